"""Show the Pyodide runs' figures (tests passed inside, node run times) in pytest's summary.

Without this they would be visible only with -s or on failure, and the point
is to watch them stay lean.
"""

import pytest

_FIGURES: list[str] = []


@pytest.fixture(scope="session")
def report_figure():
    """Return a function that adds one line to the Pyodide section of the terminal summary."""
    return _FIGURES.append


def pytest_terminal_summary(terminalreporter):
    if _FIGURES:
        terminalreporter.section("Pyodide under Node")
        for line in _FIGURES:
            terminalreporter.write_line(line)
