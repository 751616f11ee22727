#!/usr/bin/env python3
"""Time cold builds against MkDocs on the same Markdown: the real six chapters and a 96-chapter book.

    .venv/bin/python benchmarks/bench_build.py [--runs N] [--chapters N] [--skip-mkdocs]

A cold build is `build.py build` in a new process into an empty output folder
with every cache of the book cleared (.cache/math.json, computed-values.json
and the up-to-date record), so KaTeX renders every formula. The tool's own cache
(node_modules/.cache/rollouts/: compiled templates, minified scripts, the
standard library's parts) is kept, as MkDocs keeps its installed theme's
prebuilt assets; `make site` fills it once per installed version. MkDocs (Material theme, pymdown-extensions'
arithmatex; see timing.py) builds a copy of the same Markdown into an empty
folder, also in a new process. The two alternate run by run, so both see the
same load on a shared machine; the ratio is of the medians (and the median of
the paired ratios). The 96-chapter book is the real chapters copied 16 times,
renumbered, each copy with its own copies of the figures (a figure is shown
once). Then, for the real site, the no-change rebuild (the up-to-date skip).
A benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

from timing import ROOT, clear_build_caches, load_average, prepare_mkdocs, time_command, time_mkdocs_build

CHAPTER = re.compile(r"^(\d\d)-(.+)\.md$")


def build_command(content: Path, out_dir: Path) -> list[str]:
    """Return the command of one build of this project."""
    return [sys.executable, str(ROOT / "build.py"), "build", "--content", str(content), "--out", str(out_dir)]


def time_cold_build(content: Path, out_dir: Path) -> tuple[float, float]:
    """Time one full cold build: empty output folder, every build cache cleared."""
    shutil.rmtree(out_dir, ignore_errors=True)
    clear_build_caches()
    return time_command(build_command(content, out_dir))


def generate_book(content: Path, target: Path, chapters: int) -> Path:
    """Copy the content to `target` with its chapters repeated until there are `chapters` of them; return target.

    Copy k of chapter NN-slug becomes MM-slug-copyk.md (chapter MM) and shows
    copies of its figures, NAME-copyk, since each figure is shown once; a
    figure the build generates (no SVG in figures/) is left out of the copies.
    """
    shutil.copytree(content, target)
    originals = sorted(p for p in content.glob("*.md") if CHAPTER.match(p.name))
    figures = [p.stem for p in (content / "figures").glob("*.svg")]
    for number in range(len(originals) + 1, chapters + 1):
        copy, original = divmod(number - 1, len(originals))
        source = originals[original]
        slug = CHAPTER.match(source.name).group(2)
        text = source.read_text(encoding="utf-8")
        text = re.sub(r"^chapter: \d+$", f"chapter: {number}", text, count=1, flags=re.MULTILINE)
        # A figure the build draws itself (no SVG file) cannot be copied: the copy shows none, its links reach the original.
        text = re.sub(
            r"^::: figure (?!(?:" + "|".join(map(re.escape, figures)) + r")\b).*?^:::\n", "", text, flags=re.DOTALL | re.MULTILINE
        )
        for figure in figures:
            text = re.sub(rf"(::: figure |figure:){re.escape(figure)}\b", rf"\g<1>{figure}-copy{copy}", text)
            if f"{figure}-copy{copy}" in text:
                shutil.copy(content / "figures" / f"{figure}.svg", target / "figures" / f"{figure}-copy{copy}.svg")
        (target / f"{number:02d}-{slug}-copy{copy}.md").write_text(text, encoding="utf-8")
    return target


def describe(label: str, timings: list[tuple[float, float]]) -> str:
    """Return one line: median wall (range) and median CPU."""
    wall = [w for w, _ in timings]
    cpu = [c for _, c in timings]
    return (
        f"{label}: median {statistics.median(wall):.3f} s wall (min {min(wall):.3f}, max {max(wall):.3f}), "
        f"median {statistics.median(cpu):.3f} s CPU, {len(timings)} runs"
    )


def compare(label: str, content: Path, scratch: Path, runs: int, skip_mkdocs: bool) -> None:
    """Alternate cold builds of ours and MkDocs' on one book; print both and their ratio."""
    out_dir = scratch / f"dist-{label}"
    mkdocs = None if skip_mkdocs else prepare_mkdocs(content, scratch, f"mkdocs-{label}")
    # Warm the OS file cache and both bytecode caches once.
    time_command(build_command(content, out_dir))
    if mkdocs:
        time_mkdocs_build(mkdocs[0], mkdocs[1])
    ours, theirs = [], []
    for _ in range(runs):
        ours.append(time_cold_build(content, out_dir))
        if mkdocs:
            theirs.append(time_mkdocs_build(mkdocs[0], mkdocs[1]))
    pages = len(list(content.glob("*.md")))
    print(f"{label} ({pages} Markdown pages), load average {load_average()}", flush=True)
    print(describe("  our cold build", ours), flush=True)
    if mkdocs:
        print(describe(f"  MkDocs ({mkdocs[2]})", theirs), flush=True)
        ratio = statistics.median(w for w, _ in ours) / statistics.median(w for w, _ in theirs)
        paired = statistics.median(a[0] / b[0] for a, b in zip(ours, theirs))
        cpu = statistics.median(c for _, c in ours) / statistics.median(c for _, c in theirs)
        print(
            f"  ratio ours / MkDocs: {ratio:.2f}x wall (paired median {paired:.2f}x), {cpu:.2f}x CPU; target <= 0.5x", flush=True
        )


def main() -> int:
    """Print the cold-build comparisons at 6 and 96 chapters, then the no-change rebuild."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--chapters", type=int, default=96, help="chapters of the generated book")
    parser.add_argument("--skip-mkdocs", action="store_true", help="skip MkDocs (e.g. without access to PyPI)")
    arguments = parser.parse_args()
    content = ROOT / "content"
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        compare("real site", content, scratch, arguments.runs, arguments.skip_mkdocs)
        book = generate_book(content, scratch / f"book-{arguments.chapters}", arguments.chapters)
        compare(f"{arguments.chapters}-chapter book", book, scratch, arguments.runs, arguments.skip_mkdocs)
        out_dir = scratch / "dist-real site"
        time_command(build_command(content, out_dir))
        unchanged = [time_command(build_command(content, out_dir)) for _ in range(arguments.runs)]
        print(describe("no-change rebuild of the real site (new process, output and caches kept)", unchanged), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
