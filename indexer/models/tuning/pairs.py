"""Training pairs from git history: for each commit that says in words what it fixes and changes a few functions,
one pair (message, the embedding text of a changed function at the parent commit) per changed function.

Built with the walker's rules and the extractors spider indexes with, so a pair's text is exactly what spider
embeds for that function. Deterministic: the same repositories and revisions give the same file, line for line.
Resumable: a commit's pairs are written before the line in `<out>.progress` that marks it done, and a rerun
drops pairs of commits not marked done, then goes on after the last one marked.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import subprocess
from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Callable, Iterator, Mapping

from spider.core.errors import CorruptRepository, InvalidInput
from spider.core.schema import Label
from spider.indexer.languages import contested_languages, is_test_code, language_of
from spider.indexer.languages.dispatch import parse_file
from spider.indexer.models.embedding import function_text
from spider.indexer.models.tuning.messages import Skip, clean_message
from spider.indexer.models.tuning.touched import hunks_of, touches
from spider.indexer.source.walk import (
    MAX_FILE_BYTES,
    default_repo_name,
    escaped_path,
    git_error,
    open_commit,
    read_blobs,
    select_files,
    skip_reason_for_path,
)

MAX_FUNCTIONS = 6  # a commit changing more is a refactoring: its message does not describe each function
MAX_FILES = 20  # nor does one changing more files of supported languages (and diffing them all is slow)
PROGRESS_EVERY = 200  # commits between progress lines


class NoPairs(StrEnum):
    """Why a commit whose message is usable gives no pairs."""

    FILES = f"more than {MAX_FILES} source files changed"
    NONE = "no function changed"
    FUNCTIONS = f"more than {MAX_FUNCTIONS} functions changed"


@dataclass(frozen=True, slots=True)
class ModifiedFile:
    path: str
    old_blob: str
    patch: bytes  # `git diff -U0`'s hunks of the file


@dataclass(frozen=True, slots=True)
class HistoryCommit:
    sha: str
    author: str
    message: str
    modified: list[ModifiedFile]  # files of supported languages modified in place, by path


@dataclass(frozen=True)
class PairsRun:
    """What to read: `max_commits` newest non-merge commits reachable from `rev` of each repository, and the
    share of commits (by hash) whose pairs are held out for validation."""

    max_commits: int = 2000
    rev: str = "HEAD"
    validation_share: float = 0.05


def is_validation(sha: str, share: float) -> bool:
    """The held-out commits: a hash of the commit id, so a commit's split never depends on what else is read."""
    return int(hashlib.sha256(sha.encode()).hexdigest()[:8], 16) < share * 16**8


def history(git_dir: Path, rev: str, max_commits: int) -> Iterator[HistoryCommit]:
    """Non-merge commits with a parent, newest first, with their diffs to the parent: one `git log` streamed.
    A path git has to quote (control characters, quotes, backslashes) is left out. Where git stops on an object
    it cannot read, the commits it wrote whole come first, then CorruptRepository; the one it was writing never.
    Records and headers end in a random token: a message cannot forge the start of another commit or a diff."""
    token = secrets.token_hex(16)
    record, header_end = f"\x1e{token}".encode(), f"\x1f{token}".encode()
    command = ["git", "--git-dir", str(git_dir), "-c", "core.quotePath=false", "log", "--no-merges", "--min-parents=1",
               f"--max-count={max_commits}", "-p", "-U0", "--raw", "--no-renames", "--no-abbrev", "--no-color",
               "--no-ext-diff", f"--format=%x1e{token}%H%x00%an <%ae>%x00%B%x1f{token}", rev, "--"]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout and proc.stderr
        pending = b""
        for chunk in iter(lambda: proc.stdout.read(1 << 20), b""):  # type: ignore[union-attr]
            *records, pending = (pending + chunk).split(record)
            yield from (commit for text in records if (commit := _commit_of(text, header_end)) is not None)
        stderr = proc.stderr.read()
    if proc.returncode != 0:
        raise CorruptRepository(f"cannot read the history of {rev} in {git_dir}: {git_error(stderr)}")
    if pending and (commit := _commit_of(pending, header_end)) is not None:
        yield commit


def _commit_of(record: bytes, header_end: bytes) -> HistoryCommit | None:
    header, found, body = record.partition(header_end)
    fields = header.split(b"\0", 2)
    if not found or len(fields) != 3:
        return None
    sha, author, message = (f.decode("utf-8", "replace") for f in fields)
    raw, _, patches = body.lstrip(b"\n").partition(b"\n\ndiff --git ")
    sections = (b"diff --git " + patches).split(b"\ndiff --git ") if patches else []
    modified = []
    for line, section in zip((r for r in raw.split(b"\n") if r.startswith(b":")), sections):
        meta, _, raw_path = line.partition(b"\t")
        old_mode, new_mode, old_blob, _, status = meta.lstrip(b":").split()
        path = escaped_path(raw_path)
        if (status == b"M" and old_mode == new_mode == b"100644" and not raw_path.startswith(b'"')
                and language_of(path) and skip_reason_for_path(path) is None):
            modified.append(ModifiedFile(path, old_blob.decode(), section))
    return HistoryCommit(sha.strip(), author, message, sorted(modified, key=lambda f: f.path))


def changed_functions(old: dict[str, bytes | None], modified: list[ModifiedFile],
                      contested: Mapping[str, str] = {}) -> list[tuple[str, str, str]]:
    """(language, node id, embedding text at the parent) of each function that is not test code and whose
    lines the commit changes, in path and source order. `old`: the parent's blobs by id; `contested`: the
    repository's choices for contested extensions (`.h`: C or C++)."""
    found = []
    for file in modified:
        data = old.get(file.old_blob)
        if data is None or len(data) > MAX_FILE_BYTES:
            continue
        facts = parse_file(file.path, data, language_of(file.path, contested)).facts
        if facts is None:
            continue
        hunks = hunks_of(file.patch)
        for entity in facts.entities:
            node_id = f"{file.path}:{entity.qualname}"
            if (entity.label == Label.FUNCTION and not is_test_code(node_id)
                    and any(touches(h, entity.start_line, entity.end_line) for h in hunks)):
                found.append((facts.language, node_id, function_text(node_id, entity.code)))
    return found


def pairs_of(commit: HistoryCommit, old: dict[str, bytes | None], contested: Mapping[str, str] = {}
             ) -> tuple[list[tuple[str, str, str]], str, str | None]:
    """The commit's (language, function id, text) and its cleaned message; or no pairs and why."""
    message = clean_message(commit.message, commit.author)
    if isinstance(message, Skip):
        return [], "", message.value
    if len(commit.modified) > MAX_FILES:
        return [], message, NoPairs.FILES
    functions = changed_functions(old, commit.modified, contested)
    if not functions:
        return [], message, NoPairs.NONE
    if len(functions) > MAX_FUNCTIONS:
        return [], message, NoPairs.FUNCTIONS
    return functions, message, None


def batches(commits: Iterator[HistoryCommit], size: int) -> Iterator[list[HistoryCommit]]:
    """commits in lists of size; where commits raises CorruptRepository, the commits before it, then the error."""
    batch: list[HistoryCommit] = []
    try:
        for commit in commits:
            batch.append(commit)
            if len(batch) == size:
                yield batch
                batch = []
    except CorruptRepository:
        if batch:
            yield batch
        raise
    if batch:
        yield batch


def resume(out: Path, progress: Path) -> set[tuple[str, str]]:
    """The (repository, commit) pairs marked done; pairs of any other commit (cut off mid-write) and a line an
    interruption cut are dropped from both files."""
    done: set[tuple[str, str]] = set()
    if progress.exists():
        rows = _whole_rows(progress)
        done = {(str(row.get("repo")), str(row.get("commit"))) for row in rows}
        progress.write_text("".join(json.dumps(row) + "\n" for row in rows))
    if out.exists():
        out.write_text("".join(json.dumps(row) + "\n" for row in _whole_rows(out)
                               if (row.get("repo"), row.get("commit")) in done))
    return done


def _whole_rows(path: Path) -> list[dict]:
    rows = []
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


def build_pairs(repositories: list[tuple[str | None, Path]], out: Path, run: PairsRun,
                report: Callable[[str], None] = print) -> dict:
    """Write the pairs of every (name, path) repository to `out` (JSON lines), resuming a cut-off run; the counts,
    also written to `<out>.summary.json`. A name None is the repository's own (`spider index`'s default)."""
    if not 0 <= run.validation_share < 1:
        raise InvalidInput(f"the validation share must be in [0, 1): {run.validation_share}")
    progress, summary_path = out.with_name(out.name + ".progress"), out.with_name(out.name + ".summary.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    done = resume(out, progress)
    heads: dict[str, dict[str, str]] = {}
    for given, path in repositories:
        commit = open_commit(path, run.rev)
        name = given or default_repo_name(commit)
        if name in heads:
            raise InvalidInput(f"two repositories are named {name}: {heads[name]['path']} and {path}")
        heads[name] = {"path": str(path), "rev": run.rev, "head": commit.sha}
        # `.h` is C or C++ as `spider index` would decide at the head (per snapshot there; history rarely flips it)
        contested = contested_languages(f.path for f in select_files(commit).files)
        report(f"{name}: up to {run.max_commits} commits from {commit.sha[:12]}")
        read = 0
        with out.open("a") as pairs_file, progress.open("a") as progress_file:
            try:
                for batch in batches(history(commit.git_dir, commit.sha, run.max_commits), PROGRESS_EVERY):
                    todo = [c for c in batch if (name, c.sha) not in done]
                    usable = [c for c in todo if len(c.modified) <= MAX_FILES]
                    old = dict(read_blobs(commit.git_dir, sorted({f.old_blob for c in usable for f in c.modified})))
                    for entry in todo:
                        functions, message, skipped = pairs_of(entry, old, contested)
                        split = "validation" if is_validation(entry.sha, run.validation_share) else "train"
                        pairs_file.writelines(json.dumps(
                            {"repo": name, "commit": entry.sha, "split": split, "language": language,
                             "function": node_id, "message": message, "text": text}) + "\n"
                            for language, node_id, text in functions)
                        pairs_file.flush()
                        progress_file.write(json.dumps({"repo": name, "commit": entry.sha, "pairs": len(functions),
                                                        "skipped": skipped}) + "\n")
                        progress_file.flush()
                    read += len(batch)
                    report(f"{name}: {read} commits read ({len(batch) - len(todo)} of the last {len(batch)} done before)")
            except CorruptRepository as error:  # a partial mirror: keep what it holds, go on with the others
                heads[name]["unreadable"] = f"after {read} commits: {error}"
                report(f"{name}: history unreadable after {read} commits ({error}); its pairs so far are kept")
    summary = count_pairs(out, progress, heads, run)
    summary_path.write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def count_pairs(out: Path, progress: Path, heads: dict, run: PairsRun) -> dict:
    """Pairs per repository, language and split, and why commits gave none: from the files, so a resumed run
    counts what earlier runs wrote."""
    pairs: Counter = Counter()
    commits: Counter = Counter()
    for line in out.read_text().splitlines():
        row = json.loads(line)
        pairs[(row["repo"], row["language"], row["split"])] += 1
    for line in progress.read_text().splitlines():
        row = json.loads(line)
        if row["repo"] in heads:
            commits[(row["repo"], row["skipped"] or "gave pairs")] += 1
    return {
        "settings": {"max_commits": run.max_commits, "rev": run.rev, "validation_share": run.validation_share,
                     "max_functions": MAX_FUNCTIONS, "max_files": MAX_FILES},
        "repositories": {
            name: {**head,
                   "commits": {why: n for (repo, why), n in sorted(commits.items()) if repo == name},
                   "pairs": {f"{language}/{split}": n for (repo, language, split), n in sorted(pairs.items())
                             if repo == name}}
            for name, head in heads.items()},
        "pairs": sum(n for (repo, _, _), n in pairs.items() if repo in heads),
    }
