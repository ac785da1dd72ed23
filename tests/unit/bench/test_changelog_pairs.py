"""bench/changelog_pairs.py's reading of a changelog: which files are changelogs, and what of their added lines is
an entry worth training on."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_PATH = Path(__file__).resolve().parents[3] / "bench" / "changelog_pairs.py"
_SPEC = importlib.util.spec_from_file_location("bench_changelog_pairs", _PATH)
assert _SPEC is not None and _SPEC.loader is not None
changelog_pairs = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(changelog_pairs)


@pytest.mark.parametrize("path, is_changelog", [
    ("CHANGES.rst", True), ("docs/changelog.md", True), ("HISTORY.txt", True), ("NEWS", True),
    ("RELEASE-NOTES.md", True), ("src/changes.xml", True), ("changelog/1234.bugfix.rst", True),
    ("doc/newsfragments/99.feature", True), ("changelog.d/x.md", True),
    ("src/changes_handler.py", False), ("docs/history_of_things/intro.md", False), ("news_feed.py", False),
])
def test_changelog_files_are_named_by_their_file_or_directory(path, is_changelog):
    assert bool(changelog_pairs.CHANGELOG.search(path)) is is_changelog


def test_vendored_changelogs_are_not_the_repository_s():
    assert changelog_pairs.VENDORED.search("third_party/zlib/ChangeLog")
    assert changelog_pairs.VENDORED.search("web/node_modules/left-pad/CHANGELOG.md")
    assert not changelog_pairs.VENDORED.search("CHANGELOG.md")


def test_an_entry_keeps_its_words_and_drops_markup_links_and_headings():
    added = ["Version 2.3.1", "-------------", "",
             "- Fix :func:`flask.url_for` raising `BuildError` for a `blueprint <https://x.org/bp>`_ with a",
             "  trailing slash. See https://github.com/pallets/flask/issues/1 for more.", "", "## 2.3.0",
             "* **Breaking:** <b>remove</b> the ``config.from_json`` alias"]
    assert changelog_pairs.changelog_entry(added) == (
        "Fix flask.url_for raising BuildError for a blueprint with a trailing slash. for more. "
        "Breaking: remove the config.from_json alias")


def test_short_entries_and_long_compilations_are_left_out():
    assert changelog_pairs.changelog_entry(["- Fix a typo."]) is None  # under MIN_WORDS
    assert changelog_pairs.changelog_entry(["1.0.0", "=====", "* Bump version"]) is None
    release = [f"- Fix bug number {n} in the parser module" for n in range(changelog_pairs.MAX_LINES + 1)]
    assert changelog_pairs.changelog_entry(release) is None
    assert changelog_pairs.changelog_entry(release[:changelog_pairs.MAX_LINES]) is not None


def test_an_entry_is_cut_to_the_training_text_limit():
    entry = changelog_pairs.changelog_entry(["word " * (changelog_pairs.MAX_CHARS // 2)])
    assert entry is not None and len(entry) == changelog_pairs.MAX_CHARS
