"""Which files of a commit get parsed, read straight from git's object store.

Reading the commit's tree (not the working directory) makes a snapshot exactly the commit it is named after:
uncommitted edits, ignored files and symlink targets outside the repository never leak in. Symlinks and
submodules are skipped, not followed.
"""

from __future__ import annotations

import re
import subprocess
import threading
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Generator, Iterable, Iterator

from spider.core.errors import ConfigurationError, CorruptRepository, RepositoryNotFound, RevisionNotFound
from spider.indexer.languages import contested_languages, language_of, vendored_directories

MAX_FILE_BYTES = 1_000_000  # larger "source" files are generated or bundled, not written by hand
_VENDORED_DIRS = frozenset({"node_modules", "bower_components", "vendor", "vendored", "third_party", "__generated__"})
_BUNDLE_NAME = re.compile(r"[.-](min|bundle)\.[cm]?js$")
_SHA = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True, slots=True)
class SourceFile:
    path: str
    blob: str  # git blob sha: identical content, identical parse
    size: int
    language: str | None = None  # where the snapshot chose it: a contested extension's (`.h`: C or C++)

    @property
    def parsed_as(self) -> str:
        """What the file's parse depends on besides its path: its blob, and the language the snapshot chose."""
        return self.blob if self.language is None else f"{self.blob}:{self.language}"


@dataclass
class FileSelection:
    files: list[SourceFile] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)  # reason -> count: symlinks, submodules, supported-language files
    skipped_files: list[tuple[str, str]] = field(default_factory=list)  # (path, reason) of each counted in `skipped`
    other: int = 0  # files of languages spider does not parse

    def skip(self, path: str, reason: str) -> None:
        self.skipped[reason] += 1
        self.skipped_files.append((path, reason))


@dataclass(frozen=True, slots=True)
class Commit:
    git_dir: Path
    sha: str  # full 40-hex commit id: the snapshot's name
    rev: str  # what the user asked for


def _git(git_dir: Path, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], input=input, capture_output=True)


def git_error(stderr: bytes) -> str:
    """git's reason in one line: its `fatal:` line (after the `error:` lines that led to it), else its first."""
    lines = stderr.decode("utf-8", "replace").strip().splitlines() or ["git failed"]
    return next((line for line in lines if line.startswith("fatal:")), lines[0])


def open_commit(path: str | Path, rev: str | None = None) -> Commit:
    """The commit to index: `rev` (default HEAD) of the repository at `path` (a working tree or a bare repo)."""
    root = Path(path).expanduser()
    if not root.exists():
        raise RepositoryNotFound(f"no such directory: {root}")
    if not root.is_dir():
        raise RepositoryNotFound(f"not a directory: {root}")
    probe = subprocess.run(
        ["git", "-C", str(root), "rev-parse", "--absolute-git-dir"], capture_output=True, text=True
    )
    if probe.returncode != 0:
        if "dubious ownership" in probe.stderr:  # safe.directory: its config could run programs, so git keeps off
            raise ConfigurationError(f"git refuses to read {root}: {root} is owned by another user (if you trust it: "
                                     f"git config --global --add safe.directory {root})")
        raise RepositoryNotFound(f"{root} is not a git repository (spider indexes commits: run `git init` and commit first)")
    git_dir = Path(probe.stdout.strip())
    wanted = rev or "HEAD"
    try:
        return commit_in(git_dir, wanted)
    except RevisionNotFound:
        if rev is None and _git(git_dir, "rev-parse", "--verify", "--quiet", "HEAD").returncode != 0:
            raise RevisionNotFound(f"{root} has no commits yet: nothing to index") from None
        raise RevisionNotFound(f"unknown revision {wanted!r} in {root}") from None


def commit_in(git_dir: Path, rev: str) -> Commit:
    """The commit `rev` names in `git_dir`: RevisionNotFound when git does not know it, CorruptRepository when its
    object is there but git cannot read it (the two must not be mistaken for each other)."""
    resolved = _git(git_dir, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    sha = resolved.stdout.decode().strip()
    if resolved.returncode == 128:  # git dies on an object it cannot read; a name it does not know is exit 1
        named = _git(git_dir, "rev-parse", "--verify", "--quiet", rev).stdout.decode().strip()
        raise CorruptRepository(f"commit {named or rev} is corrupt or unreadable in the object store: "
                                f"{git_error(resolved.stderr)}")
    if resolved.returncode != 0 or not _SHA.match(sha):
        raise RevisionNotFound(f"unknown revision {rev!r} in {git_dir}")
    return Commit(git_dir=git_dir, sha=sha, rev=rev)


def skip_reason_for_path(path: str) -> str | None:
    vendored = _VENDORED_DIRS | vendored_directories(path)
    if any(part in vendored for part in path.split("/")[:-1]):
        return "vendored"
    if _BUNDLE_NAME.search(path):
        return "minified"
    return None


def escaped_path(raw: bytes) -> str:
    """A tracked path as text: UTF-8 as is; a path component that is not UTF-8 with each undecodable byte as
    `\\xNN` and each backslash doubled, so that no two such components meet (a UTF-8 name may still spell one
    out: `select_files` skips the non-UTF-8 file then). Lone surrogates would fail in Neo4j, hashes and JSON."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return "/".join(_escaped_component(part) for part in raw.split(b"/"))


def _escaped_component(part: bytes) -> str:
    try:
        return part.decode("utf-8")
    except UnicodeDecodeError:
        return part.replace(b"\\", b"\\\\").decode("utf-8", "backslashreplace")


def select_files(commit: Commit) -> FileSelection:
    listing = _git(commit.git_dir, "ls-tree", "-r", "-z", "-l", "--full-tree", commit.sha)
    if listing.returncode != 0:
        raise CorruptRepository(f"the tree of commit {commit.sha} is corrupt or unreadable in the object store: "
                                f"{git_error(listing.stderr)}")
    selection = FileSelection()
    escaped: list[tuple[str, bytes, bytes, int]] = []  # (path, raw path, blob, size): checked after the others
    for entry in listing.stdout.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, blob, size = meta.split()
        path = escaped_path(raw_path)
        if mode == b"120000":  # before the language check: a symlink to a directory has no extension
            selection.skip(path, "symlink")
        elif kind != b"blob":
            selection.skip(path, "submodule")
        elif language_of(path) is None:
            selection.other += 1
        elif (reason := skip_reason_for_path(path)) is not None:
            selection.skip(path, reason)
        elif not size.isdigit():  # git prints BAD when the blob is absent (a partial or shallow copy)
            selection.skip(path, "blob missing from the git object store")
        elif int(size) > MAX_FILE_BYTES:
            selection.skip(path, "too large")
        elif path.encode("utf-8") != raw_path:
            escaped.append((path, raw_path, blob, int(size)))
        else:
            selection.files.append(SourceFile(path, blob.decode(), int(size)))
    _add_unless_colliding(selection, escaped)
    contested = contested_languages(f.path for f in selection.files)
    if contested:
        selection.files = [replace(f, language=chosen) if (chosen := language_of(f.path, contested))
                           != language_of(f.path) else f for f in selection.files]
    selection.files.sort(key=lambda f: f.path)
    return selection


def _add_unless_colliding(selection: FileSelection, escaped: list[tuple[str, bytes, bytes, int]]) -> None:
    """Add the files whose names are not UTF-8, but skip each whose escaped path, or one of its directories, a
    UTF-8 path spells out: the graph keeps one id (and one directory) per name."""
    taken = {prefix for f in selection.files for prefix in _path_prefixes(f.path)}
    for path, raw_path, blob, size in escaped:
        raw_parts = raw_path.split(b"/")
        raw_prefixes = (b"/".join(raw_parts[: i + 1]) for i in range(len(raw_parts)))
        if any(prefix in taken and prefix.encode("utf-8") != raw_prefix
               for prefix, raw_prefix in zip(_path_prefixes(path), raw_prefixes)):
            selection.skip(path, "file name is not UTF-8 and its escaped form names another file")
        else:
            selection.files.append(SourceFile(path, blob.decode(), size))


def _path_prefixes(path: str) -> list[str]:
    """`a/b/c.py` -> a, a/b, a/b/c.py."""
    parts = path.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def read_blobs(git_dir: Path, blobs: Iterable[str]) -> Iterator[tuple[str, bytes | None]]:
    """Stream blob contents with one `git cat-file --batch` process (thousands of files, one fork); None for a
    blob git cannot read (a corrupt object), after which, if git died on it, a new process reads the rest."""
    wanted = list(blobs)
    while wanted:
        answered = yield from _cat_file_batch(git_dir, wanted)
        if answered < len(wanted):
            yield wanted[answered], None
        wanted = wanted[answered + 1 :]


def _cat_file_batch(git_dir: Path, wanted: list[str]) -> Generator[tuple[str, bytes | None], None, int]:
    """Read `wanted` in order until git dies inside a blob's content; returns how many it answered.

    The requests are written from a thread while this one reads: written all at once, more than a pipe's worth
    of them (about 1,600 blobs) blocked git on its full stdout while we were blocked on its full stdin."""
    with subprocess.Popen(
        ["git", "--git-dir", str(git_dir), "cat-file", "--batch"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
    ) as proc:
        assert proc.stdin and proc.stdout
        stdin = proc.stdin
        requests = "".join(f"{b}\n" for b in wanted).encode()

        def feed() -> None:
            try:
                stdin.write(requests)
                stdin.close()
            except (BrokenPipeError, ValueError):  # git exited, or the reader stopped early and closed the pipes
                pass

        feeder = threading.Thread(target=feed, name="git-cat-file-requests", daemon=True)
        feeder.start()
        for answered, blob in enumerate(wanted):
            header = proc.stdout.readline().split()
            if header[1:] == [b"missing"]:  # absent, or its header does not inflate: git goes on
                yield blob, None
                continue
            if len(header) != 3:
                raise CorruptRepository(f"git cat-file could not read blob {blob}")
            data = proc.stdout.read(int(header[2]))
            if len(data) != int(header[2]):  # git died inside the content
                return answered
            proc.stdout.read(1)  # the newline after each object
            yield blob, data
        return len(wanted)


def default_repo_name(commit: Commit) -> str:
    """`owner/name` of the origin remote when there is one, else the repository's directory name."""
    origin = subprocess.run(
        ["git", "--git-dir", str(commit.git_dir), "config", "--get", "remote.origin.url"],
        capture_output=True, text=True,
    ).stdout.strip()
    match = re.search(r"[:/]([^/:]+/[^/]+?)(?:\.git)?/?$", origin)
    if match:
        return match.group(1)
    directory = commit.git_dir.parent if commit.git_dir.name == ".git" else commit.git_dir
    return directory.name.removesuffix(".git")
