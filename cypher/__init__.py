"""The Cypher statements spider runs, one named .cypher file each (analysts run the same files).

Labels and relationship types cannot be Cypher parameters; the write statements name them with the
placeholders __LABEL__, __TYPE__, __SRC__ and __DST__, filled only from spider.core.schema enums.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

DIRECTORY = Path(__file__).resolve().parent
# The read queries meant for people, which `spider cypher NAME` runs: one snapshot's code graph. The other files
# are spider's own statements (writes, jobs, versions, whole-snapshot dumps), not runnable by name.
ANALYST = ("call_graph", "callees", "callers", "changed", "expand", "file_outline", "functions_by_id",
           "functions_in_files", "hotspots", "lookup", "neighbourhood")
_DEFAULT = re.compile(r"^//\s*@param\s+(\w+)\s*=\s*(.+?)\s*$", re.MULTILINE)


def path_of(name: str) -> Path:
    """An analyst query's file, else one of spider's own statements (`internal/`)."""
    analyst = DIRECTORY / f"{name}.cypher"
    return analyst if analyst.exists() else DIRECTORY / "internal" / f"{name}.cypher"


@cache
def load(name: str) -> str:
    return path_of(name).read_text()


def statements(text: str) -> list[str]:
    """Split a file of several statements on `;` at line ends; `//` comment lines are dropped."""
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("//"))
    return [s.strip().rstrip(";").rstrip() for s in body.split(";\n") if s.strip().rstrip(";").strip()]


def defaults(text: str) -> dict[str, Any]:
    """Optional parameters a file declares with `// @param name = <JSON value>` lines."""
    found = {}
    for match in _DEFAULT.finditer(text):
        found[match.group(1)] = json.loads(match.group(2))
    return found


def names() -> list[str]:
    return sorted(p.stem for p in (*DIRECTORY.glob("*.cypher"), *DIRECTORY.glob("internal/*.cypher")))
