"""Fixtures for the core's tests; they run in CPython and, unchanged, inside Pyodide."""

import pytest

from golden_files import GOLDEN_DIRECTORY, GoldenFiles


@pytest.fixture
def golden(request) -> GoldenFiles:
    """The golden files in tests/core/golden, writable only with --update-golden."""
    return GoldenFiles(GOLDEN_DIRECTORY, update=request.config.getoption("--update-golden"))
