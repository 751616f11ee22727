#!/usr/bin/env python3
"""Time the site build: full cold builds (a new process each) and no-change rebuilds, median of 5.

    .venv/bin/python benchmarks/bench_build.py [CONTENT_DIR] [--runs N]

CONTENT_DIR defaults to content/ when it exists, else the pipeline tests'
sample (tests/site/sample_content). A benchmark, not a test: it prints figures
and asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from timing import ROOT, clear_build_caches, load_average, time_command


def time_build(content: Path, out_dir: Path) -> tuple[float, float]:
    """Run `build.py build` in a new process; return its wall-clock and CPU seconds (Python and node together)."""
    return time_command([sys.executable, str(ROOT / "build.py"), "build", "--content", str(content), "--out", str(out_dir)])


def describe(label: str, timings: list[tuple[float, float]]) -> str:
    """Return one line of medians (and the wall-clock range) for a list of (wall, cpu) timings."""
    wall = [w for w, _ in timings]
    cpu = [c for _, c in timings]
    return (
        f"{label}: median {statistics.median(wall):.3f} s wall (min {min(wall):.3f}, max {max(wall):.3f}), "
        f"median {statistics.median(cpu):.3f} s CPU, {len(timings)} runs"
    )


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

    print(f"content: {content} ({pages} Markdown pages); load average {load_average()}")
    print(describe("full cold build, new process, empty output, no caches (KaTeX runs)", first))
    print(describe("full cold build, new process, empty output, warm caches", cold))
    print(describe("no-change rebuild, new process, output kept", rebuild))
    return 0


if __name__ == "__main__":
    sys.exit(main())
