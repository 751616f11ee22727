#!/usr/bin/env python3
"""The engine's four figures against MkDocs and their goals, in one run: cold builds and edit → served.

    .venv/bin/python benchmarks/bench_engine.py [--runs 5] [--edits 7] [--chapters 96]

1. Cold build of the six chapters, ours alternated run by run with
   MkDocs-Material on the same Markdown (bench_build.py's rules: a new process,
   an empty output folder, every build cache cleared but the cells'
   execution cache). Goal (issue 41): ours ≤ 0.7× MkDocs; the rest of the way, 0.5×.
2. The same for the 96-chapter book (bench_build.py's copies). Goal ≤ 0.5×; the rest of the way, 0.4×.
3. Edit → served in `build.py serve`, six chapters: a sentence added to
   chapter 2 written → the served page, fetched again and again as a reader
   reloading it would, holds the sentence. Goal ≤ 50 ms.
4. The same on the 96-chapter book, a prose edit and a heading edit of the
   middle chapter (compare_ref.py's edits). Goal ≤ 100 ms each.

MkDocs leaves math to the browser and runs no code, so it does less; it is
what an author would pick instead. Edit → served has no MkDocs figure (its
live reload polls). Each figure: median (range) wall time, median CPU time
(the build's process tree; for serve, the server and its build worker during
the edit), the ratio to MkDocs where there is one, the goal and whether the
median meets it; and the load average before and after. Both tools run as
users run them, writing and reusing bytecode (timing.as_users_run_it). A
benchmark, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench_build import build_command, generate_book, time_cold_build
from compare_ref import Edit, Server, Side, prose_and_heading_edits, prose_edit
from timing import ROOT, describe_machine, load_average, prepare_mkdocs, time_command, time_mkdocs_build


@dataclass
class Row:
    """One figure: our (wall, CPU) samples, MkDocs' where compared, and the goal (a ratio to MkDocs, or milliseconds)."""

    label: str
    limit: float
    ours: list[tuple[float, float]] = field(default_factory=list)
    mkdocs: list[tuple[float, float]] = field(default_factory=list)
    load: str = ""

    @property
    def goal(self) -> str:
        """Return the goal as the issue states it: "≤ 0.5×" (ours / MkDocs) or "≤ 100 ms"."""
        return f"≤ {self.limit:g}×" if self.mkdocs else f"≤ {self.limit:g} ms"

    def verdict(self) -> str:
        """Return "met" or "not met": the median ratio (or the median time) against the goal."""
        value = self.ratio() if self.mkdocs else statistics.median(wall for wall, _cpu in self.ours) * 1000
        return "met" if value <= self.limit else "not met"

    def ratio(self) -> float:
        """Return our median wall time over MkDocs'."""
        return statistics.median(w for w, _ in self.ours) / statistics.median(w for w, _ in self.mkdocs)


def time_cold_builds(label: str, content: Path, scratch: Path, runs: int, limit: float) -> Row:
    """Alternate our cold build with MkDocs' on the same Markdown; return the row."""
    row = Row(label, limit)
    out_dir = scratch / f"dist-{content.name}"
    command, project, _versions = prepare_mkdocs(content, scratch, f"mkdocs-{content.name}")
    time_command(build_command(content, out_dir))  # warm-up: bytecode, the OS's file cache, the cells
    time_mkdocs_build(command, project)
    before = load_average()
    for _ in range(runs):
        row.ours.append(time_cold_build(content, out_dir))
        row.mkdocs.append(time_mkdocs_build(command, project))
    row.load = f"{before} → {load_average()}"
    return row


def time_served(
    labels_and_limits: list[tuple[str, float]],
    content: Path,
    scratch: Path,
    edits: int,
    make_edits: Callable[[str], tuple[Callable[[int], Edit], ...]],
) -> list[Row]:
    """Serve a copy of the content; time each kind of edit `edits` times after one warm-up; return a row per kind."""
    copy = scratch / f"serve-{content.name}"
    shutil.copytree(content, copy)
    chapters = sorted(copy.glob("[0-9][0-9]-*.md"))
    target = chapters[len(chapters) // 2] if len(chapters) > 6 else chapters[1]
    original = target.read_text(encoding="utf-8")
    kinds = make_edits(original)
    server = Server(Side("this", ROOT), copy, scratch / f"serve-dist-{content.name}")
    rows = []
    try:
        for (label, limit), edit in zip(labels_and_limits, kinds):
            row = Row(label, limit)
            before = load_average()
            for run in range(edits + 1):  # the first edit warms the build worker's caches
                sample = server.time_edit(target, edit(run))
                if run:
                    row.ours.append(sample)
            server.time_edit(target, Edit(original))
            row.load = f"{before} → {load_average()}"
            rows.append(row)
    finally:
        server.stop()
    return rows


def describe(samples: list[tuple[float, float]], scale: float, unit: str) -> str:
    """Return "median (min–max) unit, CPU median unit"."""
    wall = [w * scale for w, _ in samples]
    cpu = statistics.median(c for _, c in samples) * scale
    digits = 2 if unit == "s" else 0
    return (
        f"{statistics.median(wall):.{digits}f} {unit} ({min(wall):.{digits}f}–{max(wall):.{digits}f}), "
        f"CPU {cpu:.{digits}f} {unit}"
    )


def print_rows(rows: list[Row]) -> None:
    """Print the table of figures."""
    print("\n| figure | ours: median (range), CPU | MkDocs | ours / MkDocs: wall (paired), CPU | goal | | load |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        if row.mkdocs:
            paired = statistics.median(a[0] / b[0] for a, b in zip(row.ours, row.mkdocs))
            cpu = statistics.median(c for _, c in row.ours) / statistics.median(c for _, c in row.mkdocs)
            theirs = describe(row.mkdocs, 1, "s")
            ratio = f"{row.ratio():.2f}× ({paired:.2f}×), {cpu:.2f}×"
            ours = describe(row.ours, 1, "s")
        else:
            theirs, ratio, ours = "", "", describe(row.ours, 1000, "ms")
        print(f"| {row.label} | {ours} | {theirs} | {ratio} | {row.goal} | {row.verdict()} | {row.load} |")


def main() -> int:
    """Take the four figures (five rows) and print them with the goals."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="cold builds of each tool per book")
    parser.add_argument("--edits", type=int, default=7, help="edits of each kind (0: no edit → served figures)")
    parser.add_argument("--chapters", type=int, default=96, help="chapters of the generated book")
    arguments = parser.parse_args()
    print(f"machine: {describe_machine()}")
    print(f"load average before: {load_average()}", flush=True)
    content = ROOT / "content"
    with tempfile.TemporaryDirectory(prefix="bench-engine-") as folder:
        scratch = Path(folder)
        book = generate_book(content, scratch / f"book-{arguments.chapters}", arguments.chapters)
        rows = [
            time_cold_builds("cold build, 6 chapters", content, scratch, arguments.runs, 0.7),
            time_cold_builds(f"cold build, {arguments.chapters} chapters", book, scratch, arguments.runs, 0.5),
        ]
        if arguments.edits:  # --edits 0: the cold builds alone
            rows += time_served([("edit → served, 6 chapters", 50)], content, scratch, arguments.edits, prose_edit)
            rows += time_served(
                [
                    (f"edit → served, {arguments.chapters} chapters, prose", 100),
                    (f"edit → served, {arguments.chapters} chapters, heading", 100),
                ],
                book,
                scratch,
                arguments.edits,
                prose_and_heading_edits,
            )
    print_rows(rows)
    print(f"load average after: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
