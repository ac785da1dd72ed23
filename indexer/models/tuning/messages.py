"""A commit message cleaned into the text of a training pair, or the reason the commit teaches nothing.

What is dropped says nothing about the code: trailers (`Signed-off-by:`), pull-request and issue numbers,
`[skip ci]` marks. Commits whose message is written by a machine (bots, releases, version bumps) are skipped:
their words are the same whatever they touch.
"""

from __future__ import annotations

import re
from enum import StrEnum

MIN_WORDS = 4  # "Fix typo" or "wip" says too little to learn from
MAX_CHARS = 2000  # longer messages are changelogs; the model reads ~256 tokens anyway

_TRAILER = re.compile(r"^[A-Za-z][A-Za-z0-9-]*: \S")  # git's own test for a trailer line
_KNOWN_TRAILER = re.compile(
    r"(?im)^(?:signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by|"
    r"cc|change-id|reviewed-on|piperorigin-revid|git-svn-id|pr-url|closes|fixes|resolves|refs?)\s*:.*$")
_REFERENCE = re.compile(r"\(\s*#\d+\s*\)|(?<![\w/])(?:[\w.-]+/[\w.-]+)?#\d+\b|\bGH-\d+\b")
_CI_MARK = re.compile(r"\[(?:skip ci|ci skip|no ci|skip actions)\]", re.IGNORECASE)
_BOT = re.compile(r"\[bot\]|dependabot|renovate|github-actions|greenkeeper|pre-commit-ci|snyk-bot|mergify",
                  re.IGNORECASE)
_RELEASE = re.compile(
    r"^\w+\(release\)|^(?:\w+(?:\([\w.-]+\))?:\s*)?(?:release(?:d)?(?:\s+(?:version\s+)?v?\d|\s*$)|prepare(?: for)? (?:the )?(?:next )?release|bump(?:ed)? (?:the )?version|"
    r"version bump|update (?:the )?(?:changelog|version)|v?\d+(?:\.\d+)+\b|bump \S+ from \S+ to \S+)",
    re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]+")


class Skip(StrEnum):
    BOT = "written by a bot"
    RELEASE = "release or version bump"
    MERGE = "merge message"
    SHORT = "message too short"


def clean_message(message: str, author: str) -> str | Skip:
    """The message's words about the change, one paragraph per line; or why the commit is skipped.
    `author`: the author's name and e-mail, which tell bots."""
    if _BOT.search(author):
        return Skip.BOT
    subject = message.strip().split("\n", 1)[0].strip()
    if subject.lower().startswith(("merge pull request", "merge branch", "merge remote-tracking")):
        return Skip.MERGE
    if _RELEASE.match(subject):
        return Skip.RELEASE
    paragraphs = [p for p in re.split(r"\n\s*\n", message.strip()) if p.strip()]
    if len(paragraphs) > 1 and all(_TRAILER.match(line.strip()) for line in paragraphs[-1].strip().splitlines()):
        paragraphs.pop()  # the trailer block: `Key: value` lines only
    text = "\n".join(" ".join(_REFERENCE.sub(" ", _CI_MARK.sub(" ", _KNOWN_TRAILER.sub(" ", p))).split())
                     for p in paragraphs)
    text = "\n".join(line for line in text.splitlines() if line)[:MAX_CHARS].strip()
    return text if len(_WORD.findall(text)) >= MIN_WORDS else Skip.SHORT
