"""Shared helpers of the specdoc tests: the Hypothesis budget of the schema tests."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

# A fraction of the profile's budget per test: each example also runs the validator and a checker.
_PROFILE = settings.default
assert _PROFILE is not None
BUDGET = settings(
    max_examples=max(20, _PROFILE.max_examples // 4),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    deadline=None,
)
