"""Importing spider keeps a small cache (graph-format.json) in SPIDER_HOME, ~/.spider by default. So that no test
run writes into a real spider home, SPIDER_HOME points at a throwaway folder before any test module imports
spider; the integration tests' session fixture then sets their own (SPIDER_TEST_HOME or a temporary one)."""

import atexit
import os
import shutil
import tempfile

os.environ["SPIDER_HOME"] = tempfile.mkdtemp(prefix="spider-test-home-")
atexit.register(shutil.rmtree, os.environ["SPIDER_HOME"], ignore_errors=True)
