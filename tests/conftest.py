"""Options shared by every test folder.

`--update-golden` lives here, not in tests/core/conftest.py, because pytest
only accepts command-line options from conftest files it loads before parsing
the command line, and a bare `pytest` (testpaths = tests) loads this one but
not the ones in subfolders.
"""

import pytest


def pytest_addoption(parser):
    """Add the one explicit switch that may rewrite golden files."""
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite golden files from the current output (never done otherwise)",
    )


@pytest.fixture
def update_golden(request) -> bool:
    """Whether golden files may be rewritten (only with --update-golden)."""
    return bool(request.config.getoption("--update-golden"))
