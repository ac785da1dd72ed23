"""Settings are read from the environment at the doors only, and passed down (docs/configuration.md): a CLI command
(`fail_cleanly`), a Celery task, the public API's `open_stores()`. This walks every source file of indexer/ and
query/ and fails on a read of the environment (`Settings.from_env`, `os.environ`, `os.getenv`) outside the door
modules, and on a call of the functions that fall back on the environment for a caller that gave no settings
(`settings_or_env`, `spider_home_path`) outside the modules
listed as still offering or needing that fallback. Both lists say why each module is on them; an entry no longer
needed fails too, so the lists only shrink. Copying the environment for a child process (`{**os.environ, ...}`)
passes it on and reads nothing. tests/integration/test_settings_decide.py proves the other half: with the
environment pointing elsewhere, `open_stores(Settings(...))` decides what indexing and a query open."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TREES = ("indexer", "query")

# The doors: modules that read the environment.
DOORS = {
    "indexer/core/settings.py": "the one reader: `Settings.from_env()`, and SPIDER_HOME for `spider_home`",
    "indexer/api.py": "the public API's door: `open_stores()` given no settings reads them",
    "query/cli/error_handler.py": "the CLI's door: `fail_cleanly` reads each command's settings once "
                                  "(`command_settings`); `spider mcp` is a command, so the MCP server's are these",
    "indexer/distributed/tasks.py": "the Celery door: a task reads its settings as it runs (`task_settings`), and "
                                    "the app its broker settings when Celery first needs them (never at import)",
    "indexer/core/redact.py": "masking, not configuration: it also masks the secrets the environment holds, "
                              "besides those of the settings the doors registered (its docstring)",
}

# Modules that call a fallback on the environment for a caller that gave no settings. Each entry goes when its
# callers pass settings.
ENV_FALLBACKS = {
    "indexer/vectors/open_store.py": "open_vector_store(): tests and bench scripts "
                                     "call it without settings",
    "indexer/models/embedding.py": "the model registry and open_embedder(): tests "
                                   "and bench scripts call them without settings",
    "indexer/graph/neo4j_local.py": "ensure_running(), status(), stop(): tests/integration/conftest.py, tests and "
                                    "bench scripts call them without settings",
    "indexer/pipeline/index.py": "index_repository(): tests and bench scripts call it without settings",
    "indexer/pipeline/delete.py": "delete_snapshot(): tests and bench scripts call it without settings",
    "indexer/source/org.py": "materialise(): tests/integration/indexer/test_cache_names.py calls it without settings",
    "query/select/llm.py": "the backends, AnswerCache and LLMSelector: tests and bench/query.py make them without "
                           "settings",
    "indexer/graph/store.py": "GraphStore() without a home (where it keeps the files beside a snapshot): tests and "
                              "bench scripts open it so",
}

ENV_READERS = {"environ", "environb", "getenv", "getenvb"}  # of os
FALLBACKS = {"settings_or_env", "spider_home_path"}


def sources() -> list[Path]:
    return sorted(path for tree in TREES for path in (ROOT / tree).rglob("*.py") if "cases" not in path.parts)


def passed_on(tree: ast.AST) -> set[int]:
    """The ids of the `os.environ` nodes that are only copied into another mapping (`{**os.environ, ...}`)."""
    return {id(value) for node in ast.walk(tree) if isinstance(node, ast.Dict)
            for key, value in zip(node.keys, node.values) if key is None}


def _called_name(node: ast.Call) -> str | None:
    function = node.func
    return function.id if isinstance(function, ast.Name) else function.attr if isinstance(function, ast.Attribute) \
        else None


def environment_reads(source: str) -> list[tuple[int, str]]:
    tree = ast.parse(source)
    copied = passed_on(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "from_env":
            found.append((node.lineno, "Settings.from_env"))
        elif (isinstance(node, ast.Attribute) and node.attr in ENV_READERS and isinstance(node.value, ast.Name)
              and node.value.id == "os" and id(node) not in copied):
            found.append((node.lineno, f"os.{node.attr}"))
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            found += [(node.lineno, f"from os import {a.name}") for a in node.names if a.name in ENV_READERS]
    return sorted(found)


def fallbacks(source: str) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = _called_name(node)
        if name in FALLBACKS:
            found.append((node.lineno, f"{name}()"))
    return sorted(found)


def where(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_only_the_doors_read_the_environment():
    wrong = [f"{where(path)}:{line}: {what}" for path in sources() if where(path) not in DOORS
             for line, what in environment_reads(path.read_text())]
    assert not wrong, "read below the doors (pass the door's Settings down instead):\n" + "\n".join(wrong)


def test_only_the_listed_modules_fall_back_on_the_environment():
    wrong = [f"{where(path)}:{line}: {what}" for path in sources() if where(path) not in ENV_FALLBACKS
             for line, what in fallbacks(path.read_text())]
    assert not wrong, "falls back on the environment (pass the door's Settings down instead):\n" + "\n".join(wrong)


def test_every_listed_module_still_needs_its_entry():
    reads = {where(path): environment_reads(path.read_text()) for path in sources()}
    falls = {where(path): fallbacks(path.read_text()) for path in sources()}
    stale = [f"DOORS: {module}" for module in DOORS if not reads.get(module)]
    stale += [f"ENV_FALLBACKS: {module}" for module in ENV_FALLBACKS if not falls.get(module)]
    assert not stale, "no longer needed (remove the entry):\n" + "\n".join(stale)


def test_the_walk_sees_what_it_must_refuse():
    source = ("import os\nfrom spider.core.settings import Settings, settings_or_env, spider_home_path\n"
              "a = Settings.from_env()\nb = os.environ.get('X')\nc = os.getenv('Y')\nd = {**os.environ, 'Z': '1'}\n"
              "e = settings_or_env(None)\nf = spider_home_path()\ng = Settings().home\n")
    assert environment_reads(source) == [(3, "Settings.from_env"), (4, "os.environ"), (5, "os.getenv")]
    assert fallbacks(source) == [(7, "settings_or_env()"), (8, "spider_home_path()")]
