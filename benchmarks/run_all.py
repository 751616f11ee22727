#!/usr/bin/env python3
"""Run every benchmarks/bench_*.py in turn (`make bench`) and print their figures.

Each script runs in its own process with the project's Python, one after the
other (they time things, so they must not compete for the machine). A script
that fails is reported and the others still run; the exit status is 1 if any
failed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent


def main() -> int:
    """Run the scripts; return 1 if any failed."""
    scripts = sorted(BENCHMARKS.glob("bench_*.py"))
    failed = []
    for script in scripts:
        print(f"== {script.name} (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})", flush=True)
        started = time.perf_counter()
        status = subprocess.run([sys.executable, str(script)], cwd=BENCHMARKS.parent).returncode
        print(
            f"== {script.name}: {'done' if status == 0 else f'FAILED (exit status {status})'} in {time.perf_counter() - started:.1f} s\n",
            flush=True,
        )
        if status != 0:
            failed.append(script.name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
