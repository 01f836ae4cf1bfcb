"""Shared settings for the dmlslice Python tests.

Run them against a built package, e.g. from the repository root:
    PYTHONPATH=build/python /usr/bin/python3 -m pytest python/tests
"""
import os

from hypothesis import HealthCheck, settings

# Two profiles. "dmlslice" (the default, what CTest and CI run) draws the
# same examples on every run (derandomize), so its verdict depends only on
# the code. "random" (DMLS_HYPOTHESIS_PROFILE=random) draws new ones each run
# and prints a @reproduce_failure line for anything it finds; each such case
# then becomes an explicit @example of the property. DMLS_HYPOTHESIS_EXAMPLES
# sets the examples per property (default 150) in either.
COMMON = dict(
    max_examples=int(os.environ.get("DMLS_HYPOTHESIS_EXAMPLES", "150")),
    deadline=None,
    database=None,  # nothing written into the working tree
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile("dmlslice", derandomize=True, **COMMON)
settings.register_profile("random", derandomize=False, print_blob=True, **COMMON)
settings.load_profile(os.environ.get("DMLS_HYPOTHESIS_PROFILE", "dmlslice"))


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA GPU (and CuPy); run on the GPU machine, skipped elsewhere")
