"""The fuzz tests that need no services (those that do are under tests/integration/fuzz/)."""

from tests.fixtures.fuzz_profiles import load_fuzz_profile

load_fuzz_profile()
