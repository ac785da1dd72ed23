"""What every bench script shares: where the repository is, and the import path a script needs.

A script run as `python3 bench/NAME.py` has bench/ as sys.path[0], so `import _common` (first among its imports)
finds this file; importing it puts the repository's root on sys.path, which `from tests.fixtures... import` needs
(the `spider` package itself is installed), and bench/ too where a script was loaded some other way (a unit test's
importlib), for its siblings environment.py and latency.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"  # the committed record of every run

for _path in (ROOT, BENCH):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
