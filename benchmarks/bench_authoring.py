#!/usr/bin/env python3
"""Time the author's loop, median of 5: cold build, no-change rebuild, edit-to-reload in `serve`, and MkDocs on the same Markdown.

    .venv/bin/python benchmarks/bench_authoring.py [--runs N] [--skip-mkdocs]

1. Full cold build of the real site: `build.py build` in a new process, empty
   output folder, every cache of the book cleared (math.json, computed-values.json, the up-to-date record), so
   KaTeX renders every formula; the tool's own cache (node_modules/.cache/rollouts/) is kept.
2. No-change rebuild: the same command again, output and caches kept.
3. One-chapter edit inside `build.py serve`: from the moment a chapter file is
   written to the moment an event-stream client receives the reload event.
4. MkDocs with the Material theme and pymdown-extensions' arithmatex, building
   a copy of the same content/ Markdown from a minimal mkdocs.yml, in a new
   process each time. MkDocs lives in a throwaway venv under .cache/ (installed
   from PyPI on first use), never in the project's own environment.

Prints the figures and the ratio of the two cold builds. The machine may be
shared: wall-clock times come with CPU times and the load average. A
benchmark, not a test: it asserts nothing about speed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import ROOT, clear_build_caches, load_average, prepare_mkdocs, time_command, time_mkdocs_build


def describe(label: str, timings: list[tuple[float, float]]) -> str:
    """Return one line: median wall (range) and median CPU."""
    wall = [w for w, _ in timings]
    cpu = [c for _, c in timings]
    return (
        f"{label}: median {statistics.median(wall) * 1000:.0f} ms wall (min {min(wall) * 1000:.0f}, "
        f"max {max(wall) * 1000:.0f}), median {statistics.median(cpu) * 1000:.0f} ms CPU, {len(timings)} runs"
    )


# --- this project -----------------------------------------------------------------


def build_command(content: Path, out_dir: Path) -> list[str]:
    """Return the command of one build of this project."""
    return [sys.executable, str(ROOT / "build.py"), "build", "--content", str(content), "--out", str(out_dir)]


def time_cold_build(content: Path, out_dir: Path) -> tuple[float, float]:
    """Time one full cold build: empty output folder, build caches cleared."""
    shutil.rmtree(out_dir, ignore_errors=True)
    clear_build_caches()
    return time_command(build_command(content, out_dir))


def time_edit_to_reload(content: Path, scratch: Path, runs: int) -> tuple[list[float], list[str]]:
    """Start `serve` on a copy of the content; return the write-to-reload-event seconds of each edit, and its report lines."""
    copy = scratch / "serve-content"
    shutil.copytree(content, copy)
    chapter = sorted(copy.glob("[0-9][0-9]-*.md"))[1]
    original = chapter.read_text(encoding="utf-8")
    server = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "build.py"),
            "serve",
            "--port",
            "0",
            "--content",
            str(copy),
            "--out",
            str(scratch / "serve-dist"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    reports = []
    try:
        assert server.stdout is not None
        port = int(re.search(r":(\d+)/", server.stdout.readline()).group(1))
        reports.append(server.stdout.readline().strip())
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        connection.request("GET", "/__rollouts__/events")
        events = connection.getresponse()
        read_event(events)  # hello
        timings = []
        for run in range(runs + 1):  # the first edit warms the build process's caches
            paragraph = f"\n\nAn edit made by the benchmark, number {run}.\n"
            started = time.perf_counter()
            chapter.write_text(original + paragraph, encoding="utf-8")
            name, _data = read_event(events)
            elapsed = time.perf_counter() - started
            if name != "reload":
                raise SystemExit(f"expected a reload event, got {name}")
            reports.append(server.stdout.readline().strip())
            if run:
                timings.append(elapsed)
        connection.close()
        return timings, reports
    finally:
        server.terminate()
        server.wait(timeout=20)


def read_event(stream) -> tuple[str, dict]:
    """Read one server-sent event from a streaming response."""
    name, data = "message", []
    while True:
        line = stream.readline().decode().rstrip("\n")
        if line.startswith("event: "):
            name = line[len("event: ") :]
        elif line.startswith("data: "):
            data.append(line[len("data: ") :])
        elif not line and data:
            return name, json.loads("\n".join(data))


def main() -> int:
    """Print every figure, then the ratio of the cold builds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--skip-mkdocs", action="store_true", help="skip MkDocs (e.g. without access to PyPI)")
    arguments = parser.parse_args()
    content = ROOT / "content"
    print(f"content: {content} ({len(list(content.glob('*.md')))} Markdown pages); load average {load_average()}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        out_dir = scratch / "dist"
        mkdocs = None if arguments.skip_mkdocs else prepare_mkdocs(content, scratch)
        # Warm the OS file cache and the bytecode of both once; then alternate
        # the two cold builds so both see the same load on a shared machine.
        time_command(build_command(content, out_dir))
        if mkdocs:
            time_mkdocs_build(mkdocs[0], mkdocs[1])
        cold, others = [], []
        for _ in range(arguments.runs):
            cold.append(time_cold_build(content, out_dir))
            if mkdocs:
                others.append(time_mkdocs_build(mkdocs[0], mkdocs[1]))
        unchanged = [time_command(build_command(content, out_dir)) for _ in range(arguments.runs)]
        print(describe("full cold build (new process, empty output, caches cleared)", cold), flush=True)
        print(describe("no-change rebuild (new process, output and caches kept)", unchanged), flush=True)
        reloads, reports = time_edit_to_reload(content, scratch, arguments.runs)
        print(
            f"one-chapter edit in serve, file written -> reload event received: median {statistics.median(reloads) * 1000:.0f} ms "
            f"(min {min(reloads) * 1000:.0f}, max {max(reloads) * 1000:.0f}), {len(reloads)} runs; target < 150 ms",
            flush=True,
        )
        print(f"  last server report: {reports[-1]}", flush=True)
        if mkdocs:
            print(describe(f"MkDocs cold build ({mkdocs[2]}; Material theme, arithmatex)", others), flush=True)
            ratio = statistics.median(w for w, _ in cold) / statistics.median(w for w, _ in others)
            paired = statistics.median(ours[0] / theirs[0] for ours, theirs in zip(cold, others))
            cpu_ratio = statistics.median(c for _, c in cold) / statistics.median(c for _, c in others)
            print(
                f"ratio, our cold build / MkDocs: {ratio:.2f}x wall (median of paired runs {paired:.2f}x), "
                f"{cpu_ratio:.2f}x CPU; target <= 0.5x",
                flush=True,
            )
    print(f"load average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
