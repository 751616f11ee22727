#!/usr/bin/env python3
"""Edit-to-served in `serve` for a large book: 96 chapters made of copies of the six, median of N edits each.

    .venv/bin/python benchmarks/bench_book.py [--chapters 96] [--runs 9]

Makes a book of N chapters by copying content/'s chapters in turn (renumbered;
the copies leave out `::: figure` blocks, since a figure is shown once), starts
`build.py serve` on it and times, from the moment a chapter file is written to
the moment an event-stream client receives the reload event:

- a prose edit (a sentence added to a paragraph of the middle chapter);
- a heading edit (the text of one of its `##` headings changed).

It also prints which files each kind of edit rewrote, and the size of the
search index, which both edits rewrite. A benchmark, not a test: it asserts
nothing about speed.
"""

from __future__ import annotations

import argparse
import http.client
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_authoring import read_event
from timing import ROOT, load_average

FIGURE_BLOCK = re.compile(r"^::: figure [^\n]*\n.*?^:::\n", re.DOTALL | re.MULTILINE)
CHAPTER_FIELD = re.compile(r"^chapter: \d+$", re.MULTILINE)


def make_book(content: Path, destination: Path, count: int) -> list[Path]:
    """Copy content/ to destination with `count` chapters; return the chapter files."""
    shutil.copytree(content, destination)
    originals = sorted(destination.glob("[0-9][0-9]-*.md"))
    texts = [(path.name[3:], path.read_text(encoding="utf-8")) for path in originals]
    for number in range(len(originals) + 1, count + 1):
        slug, text = texts[(number - 1) % len(texts)]
        text = CHAPTER_FIELD.sub(f"chapter: {number}", FIGURE_BLOCK.sub("", text), count=1)
        (destination / f"{number:02d}-{slug.removesuffix('.md')}-{number}.md").write_text(text, encoding="utf-8")
    return sorted(destination.glob("[0-9][0-9]-*.md"))


def time_edits(book: Path, out_dir: Path, runs: int) -> dict[str, tuple[list[float], str]]:
    """Serve the book; return {edit kind: (seconds of each edit, the server's report of the last one)}."""
    chapters = sorted(book.glob("[0-9][0-9]-*.md"))
    chapter = chapters[len(chapters) // 2]
    original = chapter.read_text(encoding="utf-8")
    heading = re.search(r"^## (.+)$", original, re.MULTILINE)
    paragraph_end = original.index("\n\n", heading.end() + 2)
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "build.py"), "serve", "--port", "0", "--content", str(book), "--out", str(out_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    results: dict[str, tuple[list[float], str]] = {}
    try:
        assert server.stdout is not None
        port = int(re.search(r":(\d+)/", server.stdout.readline()).group(1))
        server.stdout.readline()  # the first build's report
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        connection.request("GET", "/__rollouts__/events")
        events = connection.getresponse()
        read_event(events)  # hello

        def prose(run: int) -> str:
            return original[:paragraph_end] + f" An edit made by the benchmark, number {run}." + original[paragraph_end:]

        def retitle(run: int) -> str:
            return original[: heading.start()] + f"## {heading.group(1)} (take {run})" + original[heading.end() :]

        for kind, edit in (("prose edit", prose), ("heading edit", retitle)):
            timings, report = [], ""
            for run in range(runs + 1):  # the first edit of each kind warms the build process's caches
                started = time.perf_counter()
                chapter.write_text(edit(run), encoding="utf-8")
                name, _data = read_event(events)
                elapsed = time.perf_counter() - started
                if name != "reload":
                    raise SystemExit(f"expected a reload event, got {name}")
                report = server.stdout.readline().strip()
                if run:
                    timings.append(elapsed)
            results[kind] = (timings, report)
            chapter.write_text(original, encoding="utf-8")
            read_event(events)
            server.stdout.readline()
        connection.close()
        return results
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> int:
    """Print the median edit-to-served time of each kind of edit."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chapters", type=int, default=96)
    parser.add_argument("--runs", type=int, default=9)
    arguments = parser.parse_args()
    print(f"load average {load_average()}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        scratch = Path(folder)
        book = scratch / "content"
        chapters = make_book(ROOT / "content", book, arguments.chapters)
        out_dir = scratch / "dist"
        results = time_edits(book, out_dir, arguments.runs)
        index = out_dir / "search-index.json"
        print(f"book: {len(chapters)} chapters; search index {index.stat().st_size / 1000:.0f} KB", flush=True)
        for kind, (timings, report) in results.items():
            print(
                f"{kind}, file written -> reload event: median {statistics.median(timings) * 1000:.0f} ms "
                f"(min {min(timings) * 1000:.0f}, max {max(timings) * 1000:.0f}), {len(timings)} runs; target < 150 ms",
                flush=True,
            )
            print(f"  server's report of the last one: {report}", flush=True)
    print(f"load average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
