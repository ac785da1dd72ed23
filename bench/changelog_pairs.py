"""Issue-style texts for issue 23's experiment: the same training pairs with the commit message or with the
changelog entry the commit added.

An issue says what a user saw; a commit message says what a developer did. No issue texts can be reached here
(and the benchmark's would leak), but a changelog entry is the nearest thing a repository's history holds: written
for users, it names the symptom and the public API ("Fix: a .gitignore file will only be written into the HTML
report output directory if the directory is empty"). For each commit of a `spider models pairs` file that added
a changelog entry, both output files hold its pairs, one with the commit message, one with the entry, so a model
trained on each sees the same functions and differs only in the texts' style.

    python bench/changelog_pairs.py --pairs PAIRS --repos DIR --out-messages M.jsonl --out-changelog C.jsonl

A changelog file is CHANGES, CHANGELOG, HISTORY, NEWS or RELEASE-NOTES (bare, .md, .markdown, .rst, .txt or
.adoc), changes.xml, or any file under a changes/, changelog/, changelog.d/, newsfragments/ or unreleased_history/
directory, outside vendored trees (a source file such as news_feed.py is none). Only added lines count, markup
and links removed; a commit adding more than MAX_LINES lines to them (a release's compilation, an imported file)
or an entry of fewer than MIN_WORDS words is left out.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from spider.indexer.errors import SpiderError  # noqa: E402
from spider.indexer.tuning.messages import MAX_CHARS  # noqa: E402
from spider.query.evaluation.run import find_repository  # noqa: E402

CHANGELOG = re.compile(r"(^|/)(changes|changelog|history|news|release[-_]notes)(\.(md|markdown|rst|txt|adoc))?$"
                       r"|(^|/)changes\.xml$"
                       r"|(^|/)(changes|changelog|changelog\.d|newsfragments|unreleased_history)/", re.I)
VENDORED = re.compile(r"(^|/)(vendor|third_party|third-party|external|deps|node_modules)/")
MAX_LINES = 40
MIN_WORDS = 5
HEADING = re.compile(r"^\s*(#+\s|[=\-~^*+]{3,}\s*$|\.\.\s|version\b|v?\d+\.\d+(\.\d+)?\b|\[\d+\.\d+|</?(release|body|document|properties)\b)",
                     re.I)
LINK = re.compile(r"\bsee\s+<?https?://\S+|<?https?://\S+>?", re.I)
RST_REFERENCE = re.compile(r"`([^`<]*?)\s*<[^>]*>`_+")
ROLE = re.compile(r":[a-z:]+:`([^`]*)`")
TAG = re.compile(r"<[^>]+>")
BULLET = re.compile(r"^\s*([-*+o]|\d+\.)\s+")


def changelog_entry(added_lines: list[str]) -> str | None:
    """The words of the added changelog lines, or None if they are no single entry worth training on."""
    if len(added_lines) > MAX_LINES:
        return None
    kept = []
    for line in added_lines:
        if HEADING.match(line):
            continue
        line = ROLE.sub(r"\1", RST_REFERENCE.sub(r"\1", LINK.sub("", line)))
        line = BULLET.sub("", TAG.sub(" ", line)).replace("``", "").replace("`", "").replace("**", "")
        if line.strip():
            kept.append(" ".join(line.split()))
    text = " ".join(kept).strip()
    return text[:MAX_CHARS] if len(text.split()) >= MIN_WORDS else None


def added_changelog_lines(git_dir: Path, commit: str) -> list[str]:
    """The lines commit added to the repository's changelog files (against its first parent)."""
    names = subprocess.run(["git", "--git-dir", str(git_dir), "diff-tree", "--no-commit-id", "--name-only", "-r",
                            commit], capture_output=True, text=True, check=True).stdout.splitlines()
    files = [n for n in names if CHANGELOG.search(n) and not VENDORED.search(n)]
    if not files:
        return []
    diff = subprocess.run(["git", "--git-dir", str(git_dir), "show", "--format=", "--no-color", "-U0", commit, "--",
                           *files], capture_output=True, text=True, errors="replace", check=True).stdout
    return [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=Path, required=True, help="`spider models pairs` output")
    parser.add_argument("--repos", type=Path, required=True, help="the repositories' git dirs (as `spider eval`)")
    parser.add_argument("--out-messages", type=Path, required=True)
    parser.add_argument("--out-changelog", type=Path, required=True)
    args = parser.parse_args()
    by_commit: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for line in args.pairs.read_text().splitlines():
        row = json.loads(line)
        by_commit[(row["repo"], row["commit"])].append(row)
    messages, changelog = [], []
    counts: dict[str, Counter] = defaultdict(Counter)
    languages: Counter = Counter()
    commits = 0
    for (repo, commit), rows in by_commit.items():
        try:
            git_dir = find_repository(args.repos, repo)
        except SpiderError as error:  # one line, as `spider eval` says it
            raise SystemExit(f"changelog_pairs.py: {error}") from None
        entry = changelog_entry(added_changelog_lines(git_dir, commit))
        if entry is None:
            continue
        commits += 1
        for row in rows:
            messages.append(json.dumps(row) + "\n")
            changelog.append(json.dumps({**row, "message": entry}) + "\n")
            counts[repo][row["split"]] += 1
            languages[row["language"]] += 1
    args.out_messages.write_text("".join(messages))
    args.out_changelog.write_text("".join(changelog))
    record = {"pairs": str(args.pairs), "commits_with_entry": commits, "rows": len(messages),
              "languages": dict(languages.most_common()), "counts": {repo: dict(c) for repo, c in sorted(counts.items())}}
    for out in (args.out_messages, args.out_changelog):  # as `bench/tuning.py sample` records a sample
        out.with_name(out.name + ".sample.json").write_text(json.dumps(record, indent=1) + "\n")
    print(json.dumps(record, indent=1))


if __name__ == "__main__":
    main()
