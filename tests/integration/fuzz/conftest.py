"""The fuzz tests that use the services."""

from tests.fixtures.fuzz_profiles import load_fuzz_profile

load_fuzz_profile()
