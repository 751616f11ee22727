"""What the build benchmarks share: timing a command in a new process, clearing the build's caches, the load average."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def time_command(command: list[str], cwd: Path | None = None) -> tuple[float, float]:
    """Run a command in a new process; return its wall-clock and CPU seconds (children included, e.g. node).

    CPU time is reported too because wall-clock time on a busy machine mostly
    measures the other processes.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def clear_build_caches() -> None:
    """Remove the build's caches (compiled templates, KaTeX results) so the next build starts from nothing."""
    shutil.rmtree(ROOT / ".cache" / "jinja", ignore_errors=True)
    (ROOT / ".cache" / "math.json").unlink(missing_ok=True)


def load_average() -> str:
    """Return the 1, 5 and 15 minute load averages."""
    return " ".join(f"{x:.2f}" for x in os.getloadavg())
