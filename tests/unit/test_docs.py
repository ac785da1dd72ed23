"""What the documentation promises the code must keep: every relative link (and its #anchor) leads somewhere, every
`pip install` names this distribution and an extra it has, every option of every command is in docs/cli.md."""

from __future__ import annotations

import re
import tomllib
import unicodedata
from pathlib import Path

import click
from spider.cli.ask import query_command
from spider.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def anchor(heading: str) -> str:
    """GitHub's id for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = unicodedata.normalize("NFKC", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = re.sub(r"(?ms)^```.*?^```", "", page.read_text())  # a `#` in a code block is no heading
    return {anchor(line.lstrip("#")) for line in text.splitlines() if re.match(r"#{1,6} ", line)}


def test_every_relative_link_and_anchor_leads_somewhere():
    broken = []
    for page in PAGES:
        for target in LINK.findall(page.read_text()):
            if re.match(r"[a-z]+:", target):  # https:, mailto:
                continue
            path, _, fragment = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if not linked.exists():
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such file)")
            elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
                broken.append(f"{page.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "\n".join(broken)


def test_every_pip_install_names_this_distribution_and_its_extras():
    named = set()
    for path in [*PAGES, *(ROOT / "indexer").rglob("*.py"), *(ROOT / "query").rglob("*.py")]:
        named |= set(re.findall(r"pip install '([\w.-]+)\[([\w,]+)\]'", path.read_text()))
    assert named, "the pattern no longer finds the install hints"
    extras = set(PROJECT["optional-dependencies"])
    assert {(name, extra) for name, extra in named if name != PROJECT["name"] or extra not in extras} == set()


def options(command: click.Command, path: str) -> set[tuple[str, str]]:
    found = {(path, name) for parameter in command.params if isinstance(parameter, click.Option)
             for name in parameter.opts if name.startswith("--") and name != "--help"}
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            found |= options(sub, f"{path} {name}")
    return found


def test_docs_cli_names_every_long_option_of_every_command():
    text = (ROOT / "docs" / "cli.md").read_text()
    missing = sorted(f"{path} {name}" for path, name in options(main, "spider") | options(query_command, "spider-query")
                     if name not in text)
    assert not missing, "not in docs/cli.md:\n" + "\n".join(missing)


def test_every_stdio_registration_gives_the_server_its_spider_home():
    """An MCP client starts `spider mcp` without the shell's environment: a snippet without SPIDER_HOME serves
    ~/.spider, whatever the user indexed into."""
    found = []
    for page in PAGES:
        for line in page.read_text().splitlines():
            if ("claude mcp add" in line and "-- spider mcp" in line) or '"command": "spider"' in line:
                found.append((page.name, line, "SPIDER_HOME" in line))
    assert found and [(name, line) for name, line, named in found if not named] == []
