"""conftest.py - the Python package's tests run on the source tree's
package (python/picard) and library (lib/libpicard.so, or $PICARD_LIB)."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import picard  # noqa: E402


@pytest.fixture
def gpu():
    """Skip without a CUDA device, unless PICARD_REQUIRE_GPU=1: then fail, so
    that a broken driver cannot hide behind a skip."""
    if not picard.cuda_available():
        if os.environ.get("PICARD_REQUIRE_GPU") == "1":
            pytest.fail("PICARD_REQUIRE_GPU=1 but no usable CUDA device")
        pytest.skip("no CUDA device")
