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


# The Pyodide runs' figures (tests passed inside, node run times) in pytest's
# summary: without this they would be visible only with -s or on failure, and
# the point is to watch them stay lean. Each line travels as a property of its
# test's report, so it reaches the summary from an xdist worker too; it is
# here, not in tests/pyodide/, because under xdist only the controlling
# process prints the summary, and it loads this conftest but not the folders'.
FIGURE_PROPERTY = "pyodide_figure"
_FIGURES: list[str] = []


@pytest.fixture
def report_figure(record_property):
    """Return a function that adds one line to the Pyodide section of the terminal summary."""

    def report(line: str) -> None:
        record_property(FIGURE_PROPERTY, line)

    return report


def pytest_runtest_logreport(report):
    """Keep the figure lines a test reported."""
    if report.when == "call":
        _FIGURES.extend(str(value) for name, value in report.user_properties if name == FIGURE_PROPERTY)


def pytest_terminal_summary(terminalreporter):
    """Print the figures in a section of their own."""
    if _FIGURES:
        terminalreporter.section("Pyodide under Node")
        for line in _FIGURES:
            terminalreporter.write_line(line)
