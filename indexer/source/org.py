"""An organisation's repositories from a manifest: which to index, where to fetch them, at which revisions.

    repos:
      - url: https://git.example.com/platform/api.git   # or `path: /srv/git/api` (a clone or bare repo)
        name: platform/api                              # default: the URL's last two path parts
        branch: main                                     # or `revs: [v1.2.0, 3f2a9c1]`; default: HEAD

Workers keep a bare mirror of every URL under SPIDER_REPO_CACHE (default SPIDER_HOME/repo-cache) and fetch it
again before each run, so re-running the manifest indexes what landed since.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

import yaml
from spider.core.errors import InvalidInput, ServiceUnavailable
from spider.core.settings import Settings, path_name, settings_or_env

_KEYS = {"url", "path", "name", "branch", "revs"}
# git's transports that run nothing but git: not `ext::` (runs any command) nor other `<helper>::` remote helpers
_ALLOWED_PROTOCOLS = ("https", "http", "ssh", "git", "file")
_URL_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")


@dataclass(frozen=True)
class RepoSpec:
    name: str
    url: str | None = None
    path: str | None = None
    revs: tuple[str, ...] = ("HEAD",)

    def to_json(self) -> dict:
        return {**asdict(self), "revs": list(self.revs)}

    @classmethod
    def from_json(cls, data: dict) -> "RepoSpec":
        return cls(data["name"], data.get("url"), data.get("path"), tuple(data["revs"]))


def load_manifest(path: Path) -> list[RepoSpec]:
    """The manifest's repositories (YAML or JSON), or a one-line error naming the entry that is wrong."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise InvalidInput(f"cannot read manifest {path}: {exc.strerror}") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as exc:
        raise InvalidInput(f"{path} is not valid {'JSON' if path.suffix == '.json' else 'YAML'}: "
                           f"{str(exc).splitlines()[0]}") from None
    entries = data.get("repos") if isinstance(data, dict) else data
    if not isinstance(entries, list) or not entries:
        raise InvalidInput(f"{path}: expected a list of repositories under `repos:`")
    specs = [repo_spec(entry, number, path) for number, entry in enumerate(entries, start=1)]
    names = [s.name for s in specs]
    duplicate = next((n for n in names if names.count(n) > 1), None)
    if duplicate:
        raise InvalidInput(f"{path}: repository {duplicate!r} is listed twice")
    return specs


def repo_spec(entry: object, number: int, manifest: Path) -> RepoSpec:
    where = f"{manifest}: repository #{number}"
    if isinstance(entry, str):
        entry = {"url": entry} if "://" in entry or entry.endswith(".git") else {"path": entry}
    if not isinstance(entry, dict):
        raise InvalidInput(f"{where}: expected a mapping with `url` or `path`")
    unknown = set(entry) - _KEYS
    if unknown:
        raise InvalidInput(f"{where}: unknown key(s) {', '.join(sorted(unknown))} (known: {', '.join(sorted(_KEYS))})")
    if bool(entry.get("url")) == bool(entry.get("path")):
        raise InvalidInput(f"{where}: give exactly one of `url` and `path`")
    if entry.get("branch") and entry.get("revs"):
        raise InvalidInput(f"{where}: give `branch` or `revs`, not both")
    revs = entry.get("revs") or [entry.get("branch") or "HEAD"]
    if not isinstance(revs, list) or not all(isinstance(r, str) and r for r in revs):
        raise InvalidInput(f"{where}: `revs` must be a list of revisions")
    source = str(entry.get("url") or entry.get("path"))
    name = entry.get("name") or default_name(source)
    return RepoSpec(str(name), entry.get("url"), str(Path(entry["path"]).expanduser()) if entry.get("path") else None,
                    tuple(revs))


def default_name(source: str) -> str:
    """`https://host/org/repo.git` -> org/repo; `/srv/git/repo` -> git/repo."""
    parts = [p for p in re.split(r"[/:]", source.rstrip("/")) if p]
    return "/".join(p.removesuffix(".git") for p in parts[-2:])


def materialise(spec: RepoSpec, settings: Settings | None = None) -> Path:
    """The git directory to index: the manifest's path as is, or a bare mirror of its URL under the settings'
    repository cache (SPIDER_REPO_CACHE, else under their home), cloned the first time and fetched every time
    after. `settings`: the door's (a Celery task's); None, for a caller that has none (a test): the environment's."""
    if spec.path:
        if spec.path.startswith("-"):
            raise InvalidInput(f"not an allowed repository path: {spec.path!r} (starts with '-'; write ./{spec.path})")
        return Path(spec.path)
    url = spec.url or ""
    check_url(url)
    settings = settings_or_env(settings)
    mirror = settings.caches.repo_cache_dir(settings.home) / f"{path_name(spec.name)}.git"
    if mirror.is_dir():
        command = ["git", "--git-dir", str(mirror), "fetch", "--prune", "--quiet", "origin"]
    else:
        mirror.parent.mkdir(parents=True, exist_ok=True)
        command = ["git", "clone", "--mirror", "--quiet", "--", url, str(mirror)]
    # GIT_ALLOW_PROTOCOL overrides any protocol.allow of the user's config, for redirects and submodules too
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ALLOW_PROTOCOL": ":".join(_ALLOWED_PROTOCOLS)}
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines() or ["git failed"]
        detail = next((line for line in lines if line.startswith("fatal:")), lines[-1])
        raise ServiceUnavailable(f"cannot fetch {spec.url}: {detail}")
    return mirror


def check_url(url: str) -> None:
    """Refuse a manifest URL git would run a program for: an option (`--upload-pack=...`), a remote helper
    (`ext::sh -c ...`) or a transport other than https, http, ssh, git and file; scp-like `host:path` and local
    paths are fine."""
    scheme = _URL_SCHEME.match(url)
    if (url.startswith("-") or "::" in url.split("/", 1)[0] or "\n" in url
            or (scheme and scheme.group(1).lower() not in _ALLOWED_PROTOCOLS)):
        raise InvalidInput(f"not an allowed repository URL: {url!r} (use https, http, ssh, git or file URLs, "
                           "host:path or a local path)")
