"""Shared settings for the dmlslice Python tests.

Run them against a built package, e.g. from the repository root:
    PYTHONPATH=build/python /usr/bin/python3 -m pytest python/tests
"""
import os

from hypothesis import HealthCheck, settings

# Examples per property: DMLS_HYPOTHESIS_EXAMPLES (default 150) so that a
# longer local or nightly run is one variable away.
settings.register_profile(
    "dmlslice",
    max_examples=int(os.environ.get("DMLS_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    database=None,  # nothing written into the working tree
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("dmlslice")
