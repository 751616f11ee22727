"""`python build.py lab …` as a user runs it: a real subprocess, for the tests of its output and exit status.

Pyodide cannot start processes; the tests that call this skip themselves there.
"""

import subprocess
import sys
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]


def run_build_lab(*arguments: str) -> subprocess.CompletedProcess:
    """Run `build.py lab` with these arguments from the repository; return what it printed and its exit status."""
    return subprocess.run(
        [sys.executable, str(REPOSITORY / "build.py"), "lab", *arguments],
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=REPOSITORY,
        timeout=60,
    )
