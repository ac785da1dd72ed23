"""`path_name`: the file and folder names spider gives per repository and snapshot are distinct for distinct
names."""

from __future__ import annotations

from spider.core.settings import path_name


def test_path_names_differ_for_names_that_differ_only_in_punctuation():
    names = ["team/x", "team x", "team__x", "team:x", "team_x", "Team/x", "../x", "x/..", "", ".", "team/x "]
    made = [path_name(n) for n in names]
    assert len(set(made)) == len(names)
    for name, made_name in zip(names, made):
        assert "/" not in made_name and made_name not in ("", ".", "..") and not made_name.startswith(".")
        assert len(made_name) <= 64 and path_name(name) == made_name
    assert path_name("team/x").startswith("team_x-")


def test_path_names_stay_short_for_long_names():
    assert len(path_name("a" * 10_000)) <= 64 and path_name("a" * 10_000) != path_name("a" * 10_001)
