#!/usr/bin/env python3
"""Compare a git ref (old) with the working tree (new), alternating old and new run by run: `make bench-compare REF=main~3`.

    .venv/bin/python benchmarks/compare_ref.py REF [--runs 5] [--edits 7] [--lab-runs 3] [--chapters 96] [--skip-lab]

Both sides are copied into a temporary folder: REF's tree as git stores it
(`git archive`), the working tree as it is on disk (tracked and untracked
files that git does not ignore, so uncommitted changes count). Neither gets a
venv of its own: both run with this checkout's .venv Python (PYTHONPATH at
the side's own pysrc/, which build.py puts first anyway) and this checkout's
node_modules (a link). That is sound while the two sides pin the same
packages; when REF's constraints.txt or package-lock.json differ, a warning
says so, since the figures then compare code run on the newer packages. Each
side starts from a copy of this checkout's .cache/cells, the cells' execution
cache (an entry whose runtime changed is a miss, run once in the warm-up).

The figures, each alternating old, new, old, new, …, after one warm-up of each:

1. cold build of the side's content (6 chapters): a new `build.py build`
   process, empty output folder, every cache of the book cleared but the
   cells' (.cache/jinja, math.json, computed-values.json, scripts/, the up-to-date record; sides
   from before issue 41 kept their templates and scripts there). The tool's
   own cache (node_modules/.cache/rollouts/: compiled templates, minified
   scripts, the stdlib's parts) is kept, as an installed MkDocs theme keeps
   its prebuilt assets: it belongs to the installed tool, not to the book;
2. the same for the 96-chapter book, made from the side's content as
   bench_build.py makes it;
3. edit → served in `build.py serve`, 6 chapters, as a user sees it: a
   chapter file written → the served page, fetched again and again, holds the
   new text (a prose edit). The reload event is then read too, so the next
   edit starts once the whole rebuild is done;
4. the same on the 96-chapter book: a prose edit and a heading edit;
5. the lab's live time in Chromium (bench_lab.py's measure: chapter 4 opened
   with settings in its address until its status says Python computed it),
   cold and warm, each side's own built site served under /rollouts/;
6. a cell's first output after Run with nothing started before (bench_start.py's
   measure, chapter 6), cold (a fresh context) and warm (the page opened again in
   it: the HTTP cache holds the runtime), each with its own CPU.

After the cold builds it says whether both sides' outputs are the same
files with the same bytes (sha256 of each), for the 6 and the 96 chapters: a speed change must not change the site.

Printed for each: old and new median (range), the ratio new/old of the
medians and the median of the paired ratios, the CPU seconds beside (the
build's process tree; for serve, the server and its build worker during the
edit; for the lab, Chromium's), and the load average before and after.
Benchmarks unset PYTHONDONTWRITEBYTECODE for both sides, as users run it:
bytecode is written in the warm-up and reused after. A benchmark, not a
test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import http.client
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench_authoring import read_event
from bench_build import generate_book
from timing import BOOK_CACHE_FILES, ROOT, as_users_run_it, cpu_seconds_of_tree, describe_machine, load_average

# The book's caches a cold build clears; "jinja" and "scripts" are where sides from before issue 41 kept the tool's.
CACHES = ("jinja", "scripts")
SITE_PREFIX = "/rollouts/"
HEADING = re.compile(r"^## (.+)$", re.MULTILINE)


@dataclass(frozen=True)
class Side:
    """One side of the comparison: a project root in the scratch folder, built with this checkout's Python."""

    name: str
    root: Path

    @property
    def environment(self) -> dict[str, str]:
        """Return the environment its processes run in: bytecode written and reused, its own pysrc first."""
        env = as_users_run_it()
        env["PYTHONPATH"] = str(self.root / "pysrc")
        return env

    def build_command(self, content: Path, out_dir: Path) -> list[str]:
        """Return the command of one build of `content` into `out_dir` by this side's build.py."""
        return [sys.executable, str(self.root / "build.py"), "build", "--content", str(content), "--out", str(out_dir)]


@dataclass
class Figure:
    """One figure's paired samples: (wall, CPU) seconds for old and for new, in run order."""

    label: str
    old: list[tuple[float, float]] = field(default_factory=list)
    new: list[tuple[float, float]] = field(default_factory=list)
    load_before: str = ""
    load_after: str = ""


@dataclass(frozen=True)
class Edit:
    """A chapter's new text, and the words its served page shows once rebuilt ("" for a restore: nothing to wait for)."""

    text: str
    marker: str = ""


def export_ref(ref: str, target: Path) -> None:
    """Write REF's tree (as committed) into target."""
    target.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "--format=tar", ref], cwd=ROOT, capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"git archive {ref}: {archive.stderr.decode().strip()}")
    archive_path = target.parent / f"{target.name}.tar"
    archive_path.write_bytes(archive.stdout)
    with tarfile.open(archive_path) as tar:
        tar.extractall(target, filter="data")
    archive_path.unlink()


def build_ref_site(ref: str, scratch: Path, out_dir: Path, more_modules: Path | None) -> Side:
    """Build REF's tree (git archive, into scratch/ref) into out_dir with this checkout's Python and npm packages, as
    the comparison does; a package REF needs that this checkout no longer has is linked from `more_modules` (another
    checkout's node_modules, say the branch point's), read only. Return REF's side (bench_start.py, bench_phone.py)."""
    side = Side("old", scratch / "ref")
    export_ref(ref, side.root)
    modules = side.root / "node_modules"
    modules.mkdir()
    for entry in (ROOT / "node_modules").iterdir():
        (modules / entry.name).symlink_to(entry)
    for entry in more_modules.iterdir() if more_modules is not None else ():
        if not (modules / entry.name).exists():
            (modules / entry.name).symlink_to(entry)
    subprocess.run(
        [sys.executable, str(side.root / "build.py"), "build", "--out", str(out_dir)],
        cwd=side.root,
        env=side.environment,
        check=True,
    )
    return side


def copy_working_tree(target: Path) -> None:
    """Copy the working tree's files that git tracks or would track (uncommitted changes included) into target."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is left out
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)


def prepare_side(side: Side) -> None:
    """Give a side this checkout's node_modules and a copy of its cells' cache."""
    (side.root / "node_modules").symlink_to(ROOT / "node_modules")
    if (ROOT / ".cache" / "cells").is_dir():
        shutil.copytree(ROOT / ".cache" / "cells", side.root / ".cache" / "cells")


def warn_on_different_pins(old: Side, new: Side) -> None:
    """Say when the two sides pin different packages: both run on this checkout's."""
    for name in ("constraints.txt", "package-lock.json"):
        old_file, new_file = old.root / name, new.root / name
        if not old_file.is_file() or old_file.read_bytes() != new_file.read_bytes():
            print(f"warning: {name} differs between old and new; both run on this checkout's packages", flush=True)


def time_process(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Run a command in a new process; return its wall-clock and CPU seconds (children included: node, esbuild)."""
    before = os.times()
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    after = os.times()
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}")
    return elapsed, (after.children_user - before.children_user) + (after.children_system - before.children_system)


def clear_caches(side: Side, out_dir: Path) -> None:
    """Empty the output folder and every build cache of the side but the cells'."""
    shutil.rmtree(out_dir, ignore_errors=True)
    for folder in CACHES:
        shutil.rmtree(side.root / ".cache" / folder, ignore_errors=True)
    for name in BOOK_CACHE_FILES:
        (side.root / ".cache" / name).unlink(missing_ok=True)


def compare_cold_builds(chapters: int, sides: tuple[Side, Side], contents: tuple[Path, Path], scratch: Path, runs: int) -> Figure:
    """Alternate cold builds of old and new into scratch/dist-SIDE-CHAPTERS; return the figure."""
    figure = Figure(f"cold build, {chapters} chapters", load_before=load_average())
    outs = tuple(scratch / f"dist-{side.name}-{chapters}" for side in sides)
    for side, content, out_dir in zip(sides, contents, outs):  # warm-up: bytecode, the OS's file cache, the cells
        time_process(side.build_command(content, out_dir), side.environment, side.root)
    for _ in range(runs):
        for side, content, out_dir, samples in zip(sides, contents, outs, (figure.old, figure.new)):
            clear_caches(side, out_dir)
            samples.append(time_process(side.build_command(content, out_dir), side.environment, side.root))
    figure.load_after = load_average()
    return figure


class Server:
    """One side's `build.py serve` on a folder of content, with an event-stream client on it."""

    def __init__(self, side: Side, content: Path, out_dir: Path) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                str(side.root / "build.py"),
                "serve",
                "--port",
                "0",
                "--content",
                str(content),
                "--out",
                str(out_dir),
            ],
            cwd=side.root,
            env=side.environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        self.stdout = self.process.stdout
        port = int(re.search(r":(\d+)/", self.stdout.readline()).group(1))
        self.stdout.readline()  # the first build's report
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.connection.request("GET", "/__rollouts__/events")
        self.events = self.connection.getresponse()
        read_event(self.events)  # hello
        self.pages = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def time_edit(self, chapter: Path, edit: Edit) -> tuple[float, float]:
        """Write the chapter; return the seconds until its served page holds the edit's marker, and the CPU the server's
        processes spent on the whole rebuild (until its reload event)."""
        cpu = cpu_seconds_of_tree(self.process.pid)
        started = time.perf_counter()
        chapter.write_text(edit.text, encoding="utf-8")
        if edit.marker:
            self.poll_page(f"/{chapter.stem}.html", edit.marker)
        elapsed = time.perf_counter() - started
        name, _data = read_event(self.events)
        self.stdout.readline()  # its report, read before the CPU: the report is written once the work is done
        if name != "reload":
            raise SystemExit(f"expected a reload event, got {name}")
        return elapsed, cpu_seconds_of_tree(self.process.pid) - cpu

    def poll_page(self, path: str, marker: str) -> None:
        """Fetch the page until it holds `marker`, as a reader reloading it would (a millisecond between fetches)."""
        wanted = marker.encode()
        deadline = time.perf_counter() + 120
        while time.perf_counter() < deadline:
            self.pages.request("GET", path)
            response = self.pages.getresponse()
            if wanted in response.read():
                return
            time.sleep(0.001)
        raise SystemExit(f"{path} never showed {marker!r}")

    def stop(self) -> None:
        """Stop the server and its build worker."""
        self.connection.close()
        self.pages.close()
        self.process.terminate()
        self.process.wait(timeout=30)


def compare_edits(
    labels: tuple[str, ...],
    sides: tuple[Side, Side],
    contents: tuple[Path, Path],
    scratch: Path,
    edits: int,
    make_edits: Callable[[str], tuple[Callable[[int], Edit], ...]],
) -> list[Figure]:
    """Serve both sides' copies of a book at once; alternate each kind of edit between them; return a figure per kind."""
    copies = []
    for side, content in zip(sides, contents):
        copy = scratch / f"serve-{side.name}-{content.name}"
        shutil.copytree(content, copy)
        copies.append(copy)
    chapters = [sorted(copy.glob("[0-9][0-9]-*.md")) for copy in copies]
    # The same chapter on both sides: the middle one, or the second of a short book.
    targets = [found[len(found) // 2] if len(found) > 6 else found[1] for found in chapters]
    originals = [target.read_text(encoding="utf-8") for target in targets]
    servers = [Server(side, copy, scratch / f"serve-dist-{side.name}-{copy.name}") for side, copy in zip(sides, copies)]
    figures = [Figure(label, load_before=load_average()) for label in labels]
    try:
        kinds = [make_edits(original) for original in originals]
        for number, figure in enumerate(figures):
            for run in range(edits + 1):  # the first edit of each kind warms the build worker's caches
                for server, target, edit, samples in zip(servers, targets, kinds, (figure.old, figure.new)):
                    sample = server.time_edit(target, edit[number](run))
                    if run:
                        samples.append(sample)
            for server, target, original in zip(servers, targets, originals):
                server.time_edit(target, Edit(original))
            figure.load_after = load_average()
    finally:
        for server in servers:
            server.stop()
    return figures


def prose_edit(original: str) -> tuple[Callable[[int], Edit], ...]:
    """Return the 6-chapter edit: a sentence added at the chapter's end."""

    def add_sentence(run: int) -> Edit:
        sentence = f"An edit made by the benchmark, number {run}."
        return Edit(original + f"\n\n{sentence}\n", sentence)

    return (add_sentence,)


def prose_and_heading_edits(original: str) -> tuple[Callable[[int], Edit], ...]:
    """Return bench_book.py's two edits: a sentence added to the paragraph after the first heading; that heading's text changed."""
    heading = HEADING.search(original)
    assert heading is not None
    paragraph_end = original.index("\n\n", heading.end() + 2)

    def add_sentence(run: int) -> Edit:
        sentence = f"An edit made by the benchmark, number {run}."
        return Edit(original[:paragraph_end] + f" {sentence}" + original[paragraph_end:], sentence)

    def rename_heading(run: int) -> Edit:
        # The heading's own words may come out typographically changed (quotes, dashes): wait for the added ones.
        added = f"(take {run})"
        return Edit(original[: heading.start()] + f"## {heading.group(1)} {added}" + original[heading.end() :], added)

    return add_sentence, rename_heading


def compare_lab(sites: tuple[Path, Path], runs: int) -> list[Figure]:
    """Serve both built sites; in Chromium, alternate the lab's live time and a cell's first output, each cold and warm;
    return the four figures (ms)."""
    sys.path.insert(0, str(ROOT / "pysrc"))
    sys.path.insert(0, str(ROOT / "tests"))
    from playwright.sync_api import sync_playwright

    from bench_lab import LAB_URL, time_cold_and_warm
    from bench_start import CELL_ONLY_PAGE, time_run_to_output
    from chromium_settings import chromium_launch_options
    from sitegen.serve.static_server import SubPathServer

    servers = [SubPathServer(site, SITE_PREFIX) for site in sites]
    for server in servers:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    cold, warm, cell_cold, cell_warm = (
        Figure("lab live, cold (ms)", load_before=load_average()),
        Figure("lab live, warm (ms)", load_before=load_average()),
        Figure("cell's first output, cold (ms)", load_before=load_average()),
        Figure("cell's first output, warm (ms)", load_before=load_average()),
    )
    off_host: list[str] = []
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(**chromium_launch_options())
            for run in range(runs + 1):  # the first pair warms Chromium and the OS's file cache
                for server, cold_samples, warm_samples in zip(servers, (cold.old, cold.new), (warm.old, warm.new)):
                    cpu = cpu_seconds_of_tree(os.getpid())
                    url = f"http://127.0.0.1:{server.server_address[1]}{SITE_PREFIX}{LAB_URL}"
                    cold_ms, warm_ms, _bytes, _page, context = time_cold_and_warm(browser, url, off_host)
                    context.close()
                    spent = cpu_seconds_of_tree(os.getpid()) - cpu
                    if run:  # CPU of cold and warm together, beside each
                        cold_samples.append((cold_ms / 1000, spent))
                        warm_samples.append((warm_ms / 1000, spent))
                    side = servers.index(server)
                    cells_url = f"http://127.0.0.1:{server.server_address[1]}{SITE_PREFIX}{CELL_ONLY_PAGE}"
                    context = browser.new_context(service_workers="block")
                    for figure in (cell_cold, cell_warm):  # a fresh context, then the same page again in it
                        cpu = cpu_seconds_of_tree(os.getpid())
                        elapsed = time_run_to_output(context.new_page(), cells_url)
                        if run:
                            (figure.old, figure.new)[side].append((elapsed / 1000, cpu_seconds_of_tree(os.getpid()) - cpu))
                    context.close()
            browser.close()
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
    cold.load_after = warm.load_after = cell_cold.load_after = cell_warm.load_after = load_average()
    return [cold, warm, cell_cold, cell_warm]


def hash_folder(folder: Path) -> dict[str, str]:
    """Return {path under the folder: sha256 of its bytes} for every file."""
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def compare_outputs(label: str, old_dist: Path, new_dist: Path) -> str:
    """Return one line: whether both sides' last builds wrote the same files with the same bytes, and which differ."""
    old, new = hash_folder(old_dist), hash_folder(new_dist)
    differing = sorted(name for name in old.keys() | new.keys() if old.get(name) != new.get(name))
    if not differing:
        return f"{label}: the same {len(new)} files, byte for byte"
    return f"{label}: {len(differing)} of {len(old.keys() | new.keys())} files differ: {', '.join(differing[:8])}"


def spread(values: list[float], scale: float) -> str:
    """Return 'median (min–max)' scaled (1000: milliseconds)."""
    return f"{statistics.median(values) * scale:.0f} ({min(values) * scale:.0f}–{max(values) * scale:.0f})"


def print_figures(figures: list[Figure]) -> None:
    """Print one row per figure: old and new medians (ranges) in ms, new/old, CPU beside, the load average."""
    print()
    print(
        f"{'figure':<34} {'old ms, median (range)':>24} {'new ms, median (range)':>24} {'new/old':>8} {'paired':>7}"
        f" {'CPU old ms':>11} {'CPU new ms':>11} {'CPU new/old':>11}  load before → after"
    )
    for figure in figures:
        old_wall, new_wall = [w for w, _ in figure.old], [w for w, _ in figure.new]
        old_cpu, new_cpu = [c for _, c in figure.old], [c for _, c in figure.new]
        ratio = statistics.median(new_wall) / statistics.median(old_wall)
        paired = statistics.median(n / o for n, o in zip(new_wall, old_wall))
        cpu_ratio = statistics.median(new_cpu) / statistics.median(old_cpu) if statistics.median(old_cpu) else float("nan")
        print(
            f"{figure.label:<34} {spread(old_wall, 1000):>24} {spread(new_wall, 1000):>24} {ratio:>7.2f}x {paired:>6.2f}x"
            f" {statistics.median(old_cpu) * 1000:>11.0f} {statistics.median(new_cpu) * 1000:>11.0f} {cpu_ratio:>10.2f}x"
            f"  {figure.load_before.split()[0]} → {figure.load_after.split()[0]}",
            flush=True,
        )


def main() -> int:
    """Prepare both sides, take every figure alternating them, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("ref", help="the git ref to compare the working tree with (old), e.g. main~3")
    parser.add_argument("--runs", type=int, default=5, help="cold builds of each side per book")
    parser.add_argument("--edits", type=int, default=7, help="edits of each kind on each side (0: no edit figures)")
    parser.add_argument("--lab-runs", type=int, default=3, help="cold and warm lab openings of each side")
    parser.add_argument("--chapters", type=int, default=96, help="chapters of the generated book")
    parser.add_argument("--skip-lab", action="store_true", help="leave out the lab's live time (no Chromium)")
    arguments = parser.parse_args()
    revision = subprocess.run(["git", "rev-parse", "--short", arguments.ref], cwd=ROOT, capture_output=True, text=True)
    if revision.returncode != 0:
        raise SystemExit(f"not a git ref: {arguments.ref}")
    print(f"machine: {describe_machine()}")
    print(f"old: {arguments.ref} ({revision.stdout.strip()}); new: the working tree at {ROOT}")
    print(f"load average before: {load_average()}", flush=True)
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="bench-compare-") as folder:
        scratch = Path(folder)
        old, new = Side("old", scratch / "old"), Side("new", scratch / "new")
        export_ref(arguments.ref, old.root)
        copy_working_tree(new.root)
        sides = (old, new)
        for side in sides:
            prepare_side(side)
        warn_on_different_pins(old, new)
        contents = tuple(side.root / "content" for side in sides)
        books = tuple(generate_book(side.root / "content", scratch / f"book-{side.name}", arguments.chapters) for side in sides)
        figures.append(compare_cold_builds(6, sides, contents, scratch, arguments.runs))
        figures.append(compare_cold_builds(arguments.chapters, sides, books, scratch, arguments.runs))
        for chapters in (6, arguments.chapters):
            print(
                compare_outputs(
                    f"output, {chapters} chapters", scratch / f"dist-old-{chapters}", scratch / f"dist-new-{chapters}"
                )
            )
        if arguments.edits > 0:
            figures += compare_edits(("edit → served, 6 chapters",), sides, contents, scratch, arguments.edits, prose_edit)
            figures += compare_edits(
                (f"edit → served, {arguments.chapters} ch., prose", f"edit → served, {arguments.chapters} ch., heading"),
                sides,
                books,
                scratch,
                arguments.edits,
                prose_and_heading_edits,
            )
        if not arguments.skip_lab:
            figures += compare_lab((scratch / "dist-old-6", scratch / "dist-new-6"), arguments.lab_runs)
    print_figures(figures)
    print(f"load average after: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
