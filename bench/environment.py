"""What every bench result records about where it ran: the machine, package versions, and spider's commit."""

from __future__ import annotations

import os
import platform
import subprocess
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def machine(packages: tuple[str, ...] = ()) -> dict:
    """CPU count and model, memory, Python, platform, and the installed version of each package named."""
    model = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                  if line.startswith("model name")), "unknown")
    mem_kb = next((int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                   if line.startswith("MemTotal:")), 0)
    return {
        "nproc": os.cpu_count(), "cpu_model": model, "mem_gb": round(mem_kb / 1024 / 1024, 1),
        "python": platform.python_version(), "platform": platform.platform(),
        **{package: version(package) for package in packages},
    }


def spider_commit(paths: tuple[str, ...] = ("indexer", "query", "cypher")) -> dict:
    """HEAD of this checkout, and the files under `paths` that differ from it (the code measured is not HEAD)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=False).stdout

    dirty = [line[3:] for line in git("status", "--porcelain", "--", *paths).splitlines() if line]
    return {"sha": git("rev-parse", "HEAD").strip(), "uncommitted_changes": dirty}
