#!/usr/bin/env python3
"""Run every benchmarks/bench_*.py in turn (`make bench`), or the ones named, and print their figures.

Each script runs in its own process with the project's Python, one after the
other (they time things, so they must not compete for the machine). Beside
each script's wall-clock time it prints its CPU time (its child processes,
such as node and Chromium, included) and the 1-minute load average before and
after: on a shared machine wall-clock time mostly measures the other
processes. A script that fails is reported and the others still run; the exit
status is 1 if any failed.

    python benchmarks/run_all.py                 # all of them
    python benchmarks/run_all.py bench_core.py   # only these
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from timing import describe_machine, run_timed

BENCHMARKS = Path(__file__).resolve().parent


def main(names: list[str]) -> int:
    """Run the scripts (all, or those named); return 1 if any failed."""
    scripts = [BENCHMARKS / name for name in names] or sorted(BENCHMARKS.glob("bench_*.py"))
    missing = [script.name for script in scripts if not script.is_file()]
    if missing:
        print(f"no such benchmark: {', '.join(missing)}", file=sys.stderr)
        return 2
    print(f"machine: {describe_machine()}", flush=True)
    failed = []
    for script in scripts:
        load_before = os.getloadavg()[0]
        print(f"== {script.name} (1-minute load average {load_before:.2f})", flush=True)
        status, wall, cpu = run_timed([sys.executable, str(script)], cwd=BENCHMARKS.parent)
        outcome = "done" if status == 0 else f"FAILED (exit status {status})"
        print(
            f"== {script.name}: {outcome} in {wall:.1f} s wall, {cpu:.1f} s CPU (child processes included); "
            f"1-minute load average {load_before:.2f} before, {os.getloadavg()[0]:.2f} after\n",
            flush=True,
        )
        if status != 0:
            failed.append(script.name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
