"""The organisation manifest: what it accepts, the names it gives, and one-line errors for what it does not."""

from __future__ import annotations

import pytest
from spider.core.errors import SpiderError
from spider.indexer.source.org import RepoSpec, default_name, load_manifest


def test_entries_of_every_form(tmp_path):
    manifest = tmp_path / "org.yaml"
    manifest.write_text("""
repos:
  - url: https://git.example.com/platform/api.git
    branch: main
  - path: /srv/git/tools
    name: platform/tools
    revs: [v1.2.0, 3f2a9c1]
  - https://git.example.com/web/site.git
  - /srv/git/docs
""")
    assert load_manifest(manifest) == [
        RepoSpec("platform/api", url="https://git.example.com/platform/api.git", revs=("main",)),
        RepoSpec("platform/tools", path="/srv/git/tools", revs=("v1.2.0", "3f2a9c1")),
        RepoSpec("web/site", url="https://git.example.com/web/site.git"),
        RepoSpec("git/docs", path="/srv/git/docs"),
    ]
    as_json = tmp_path / "org.json"
    as_json.write_text('[{"url": "git@github.com:acme/thing.git"}]')
    (spec,) = load_manifest(as_json)
    assert spec.name == "acme/thing" and RepoSpec.from_json(spec.to_json()) == spec


@pytest.mark.parametrize("text, message", [
    ("repos: []", "expected a list of repositories"),
    ("repos:\n  - {url: a.git, path: /x}", "repository #1: give exactly one of `url` and `path`"),
    ("repos:\n  - {path: /x}\n  - {path: /y, branch: b, revs: [c]}", "repository #2: give `branch` or `revs`, not both"),
    ("repos:\n  - {path: /x, tag: v1}", "unknown key(s) tag"),
    ("repos:\n  - {path: /x, revs: main}", "`revs` must be a list"),
    ("repos:\n  - {path: /a/x}\n  - {path: /a/x}", "'a/x' is listed twice"),
    ("repos: [", "is not valid YAML"),
])
def test_bad_manifests_are_one_line_errors(tmp_path, text, message):
    manifest = tmp_path / "org.yaml"
    manifest.write_text(text)
    with pytest.raises(SpiderError, match=None) as error:
        load_manifest(manifest)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_default_names():
    assert default_name("https://host/org/repo.git/") == "org/repo"
    assert default_name("/srv/repo") == "srv/repo"
