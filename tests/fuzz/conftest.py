"""Hypothesis profiles for the fuzz suite: `ci` (default) keeps each test to seconds; `long` is the run whose
figures are committed under bench/results/ (`python bench/fuzz.py`, or `SPIDER_FUZZ_PROFILE=long python3 -m pytest
tests/fuzz`; SPIDER_FUZZ_EXAMPLES sets its examples per test)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=int(os.environ.get("SPIDER_FUZZ_EXAMPLES") or 5_000), deadline=None,
                          suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("SPIDER_FUZZ_PROFILE", "ci"))

# Some fuzz tests index a repository: they use the integration tests' services.
from tests.integration.conftest import neo4j_settings, shop, spider_home, store, test_embedding_model  # noqa: E402, F401
