"""The fuzz suite's long run: every test of tests/fuzz and tests/integration/fuzz under the `long` Hypothesis
profile, with its statistics.

Usage: python bench/fuzz.py [--examples 5000] [--out bench/results/fuzz.json]
Prints a table (test, examples passing / failing / invalid, seconds) and writes JSON + Markdown. Exits 1 if any
test failed; its falsifying example is in the pytest output kept in the JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from _common import ROOT
from environment import machine, spider_commit  # bench/environment.py (this script's directory is on sys.path)

HEADER = re.compile(r"^(tests/(?:integration/)?fuzz/\S+::\S+):$")
PHASE = re.compile(r"- during (\w+) phase \(([\d.]+) seconds\)")
COUNTS = re.compile(r"- (\d+) passing(?: examples?)?, (\d+) failing(?: examples?)?,? (?:and )?(\d+) invalid")


def statistics(output: str) -> dict[str, dict]:
    """Per test: examples passing, failing and invalid, and seconds, summed over Hypothesis's phases."""
    tests: dict[str, dict] = {}
    current = None
    for line in output.splitlines():
        line = line.strip()
        if match := HEADER.match(line):
            current = tests.setdefault(match.group(1), {"passing": 0, "failing": 0, "invalid": 0, "seconds": 0.0})
        elif current is not None and (match := PHASE.search(line)):
            current["seconds"] = round(current["seconds"] + float(match.group(2)), 2)
        elif current is not None and (match := COUNTS.search(line)):
            for key, value in zip(("passing", "failing", "invalid"), match.groups()):
                current[key] += int(value)
    return tests


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=5_000, help="Examples per test (the long profile).")
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "fuzz.json")
    args = parser.parse_args()
    env = {**os.environ, "SPIDER_FUZZ_PROFILE": "long", "SPIDER_FUZZ_EXAMPLES": str(args.examples)}
    started = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/fuzz",
                          "tests/integration/fuzz", "--hypothesis-show-statistics"],
                         cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    seconds = round(time.perf_counter() - started, 1)
    tests = statistics(run.stdout)
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr.strip()[-500:]
    result = {"machine": machine(("hypothesis",)), "spider": spider_commit(("indexer", "query", "cypher", "tests")),
              "date": time.strftime("%Y-%m-%d"), "examples_per_test": args.examples, "seconds": seconds,
              "pytest": summary, "exit_code": run.returncode, "tests": tests,
              "output_tail": run.stdout[-4000:] if run.returncode else ""}
    lines = [f"# Fuzz suite, long run ({args.examples:,} examples per test)", "",
             (f"{result['date']}, spider {result['spider']['sha'][:12]}, {result['machine']['nproc']} cores, "
             f"hypothesis {result['machine']['hypothesis']}: `{summary}` in {seconds} s."), "",
             "| test | passing | failing | invalid | seconds |", "|---|---|---|---|---|"]
    lines += [f"| `{name}` | {t['passing']:,} | {t['failing']:,} | {t['invalid']:,} | {t['seconds']} |"
              for name, t in sorted(tests.items())]
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if run.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
