"""Options shared by every test folder.

`--update-golden` lives here, not in tests/core/conftest.py, because pytest
only accepts command-line options from conftest files it loads before parsing
the command line, and a bare `pytest` (testpaths = tests) loads this one but
not the ones in subfolders.
"""

import signal

import pytest


def pytest_configure(config):
    """Let the tests that press Ctrl-C on build.py work when the suite runs as a background job.

    A shell without job control (`pytest … &` in a script) starts a background
    job with SIGINT ignored, and every process started from it inherits that:
    `build.py serve` never saw the Ctrl-C the robustness and serve tests send,
    and each waited for its time-out, failed, and left the server running.
    With Python's own handler here, as a foreground run has it, the processes
    the tests start get the default disposition again (a handled signal is
    reset by exec; an ignored one is not).
    """
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


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
# the point is to watch them stay lean. Here, not in tests/pyodide/, because
# under xdist only the controlling process prints the summary, and it loads
# this conftest but not the folders': each worker hands its lines over when it
# finishes (workeroutput), and the controller prints them all.
_FIGURES: list[str] = []
FIGURES_KEY = "pyodide_figures"


@pytest.fixture(scope="session")
def report_figure():
    """Return a function that adds one line to the Pyodide section of the terminal summary."""
    return _FIGURES.append


def pytest_sessionfinish(session):
    """In an xdist worker, hand the figures to the controller."""
    output = getattr(session.config, "workeroutput", None)
    if output is not None:
        output[FIGURES_KEY] = list(_FIGURES)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """In the controller, take a finished worker's figures (an xdist hook: only called under xdist)."""
    _FIGURES.extend(getattr(node, "workeroutput", {}).get(FIGURES_KEY, []))


def pytest_terminal_summary(terminalreporter):
    """Print the figures in a section of their own."""
    if _FIGURES:
        terminalreporter.section("Pyodide under Node")
        for line in _FIGURES:
            terminalreporter.write_line(line)
