#!/usr/bin/env python3
"""Time the site build: full cold builds (a new process each) and no-change rebuilds, median of 5.

    .venv/bin/python benchmarks/bench_build.py [CONTENT_DIR] [--runs N]

CONTENT_DIR defaults to content/ when it exists, else the pipeline tests'
sample (tests/site/sample_content). A benchmark, not a test: it prints figures
and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def time_build(content: Path, out_dir: Path) -> tuple[float, float]:
    """Run `build.py build` in a new process; return its wall-clock and CPU seconds (Python and node together).

    CPU time is reported too because wall-clock time on a busy machine mostly
    measures the other processes.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, str(ROOT / "build.py"), "build", "--content", str(content), "--out", str(out_dir)],
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"the build failed:\n{result.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


def clear_build_caches() -> None:
    """Remove the build's caches (compiled templates, KaTeX results) so the next build starts from nothing."""
    shutil.rmtree(ROOT / ".cache" / "jinja", ignore_errors=True)
    (ROOT / ".cache" / "math.json").unlink(missing_ok=True)


def describe(label: str, timings: list[tuple[float, float]]) -> str:
    """Return one line of medians (and the wall-clock range) for a list of (wall, cpu) timings."""
    wall = [w for w, _ in timings]
    cpu = [c for _, c in timings]
    return (f"{label}: median {statistics.median(wall):.3f} s wall (min {min(wall):.3f}, max {max(wall):.3f}), "
            f"median {statistics.median(cpu):.3f} s CPU, {len(timings)} runs")


def main() -> int:
    """Print the median full cold build and no-change rebuild times."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = ROOT / "content" if (ROOT / "content").is_dir() else ROOT / "tests" / "site" / "sample_content"
    parser.add_argument("content", nargs="?", type=Path, default=default)
    parser.add_argument("--runs", type=int, default=5)
    arguments = parser.parse_args()
    content = arguments.content.resolve()
    pages = len(list(content.glob("*.md")))

    with tempfile.TemporaryDirectory() as scratch:
        out_dir = Path(scratch) / "dist"
        time_build(content, out_dir)  # warm the OS file cache and Python's bytecode cache once
        first = []
        for _ in range(arguments.runs):
            shutil.rmtree(out_dir, ignore_errors=True)
            clear_build_caches()
            first.append(time_build(content, out_dir))
        cold = []
        for _ in range(arguments.runs):
            shutil.rmtree(out_dir, ignore_errors=True)
            cold.append(time_build(content, out_dir))
        rebuild = [time_build(content, out_dir) for _ in range(arguments.runs)]

    print(f"content: {content} ({pages} Markdown pages); load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(describe("full cold build, new process, empty output, no caches (KaTeX runs)", first))
    print(describe("full cold build, new process, empty output, warm caches", cold))
    print(describe("no-change rebuild, new process, output kept", rebuild))
    return 0


if __name__ == "__main__":
    sys.exit(main())
