"""Tests that parse, cache or compute the graph format write into SPIDER_HOME (~/.spider by default; the format's
fingerprint is kept there as graph-format.json). So that no test run writes into a real spider home, SPIDER_HOME
points at a throwaway folder before any test runs; the integration tests' session fixture then sets their own
(SPIDER_TEST_HOME or a temporary one)."""

import atexit
import os
import shutil
import tempfile

from hypothesis import settings

# Property tests check what happens, not how fast: on a shared machine under load one example can take seconds,
# and hypothesis's default 200 ms deadline then fails a correct test.
settings.register_profile("spider", deadline=None)
settings.load_profile("spider")

os.environ["SPIDER_HOME"] = tempfile.mkdtemp(prefix="spider-test-home-")
atexit.register(shutil.rmtree, os.environ["SPIDER_HOME"], ignore_errors=True)
