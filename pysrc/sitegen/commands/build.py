"""`build.py` / `build.py build`: build the site and report problems as `path:line: message`."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from sitegen.commands.progress import ProgressLine, format_summary, format_up_to_date, label_folder
from sitegen.files.paths import find_project_root
from sitegen.publish.output_folder import OutputFolderRefused, adopt_folder, check_output_folder
from sitegen.publish.up_to_date import find_recorded_files, find_recorded_warnings, fingerprint_inputs, record_build
from sitegen.speed import ALL_ON, Accelerators
from sitegen.speed.free_cores import count_free_cores, measure_cpu_use

# The pipeline (and even the KaTeX client) is imported only once a build is
# known to be needed: an up-to-date build costs little more than starting Python.


def run_build(
    content: str | None,
    out: str | None,
    strict: bool = False,
    stream: TextIO | None = None,
    quiet: bool = False,
    report: TextIO | None = None,
    accelerators: Accelerators = ALL_ON,
) -> int:
    """Build content/ (or `content`) into dist/ (or `out`) with `accelerators` on; return the exit status.

    Problems go to `stream` (stderr), one line each and nothing else, for
    editors and CI; the summary line of a successful build goes to `report`
    (stdout) unless `quiet`, and on a terminal a progress line while it works.
    """
    started = time.perf_counter()
    stream = stream or sys.stderr
    report = report or sys.stdout
    progress = ProgressLine(report, shown=not quiet)
    try:
        status, problems, summary = build_and_summarize(content, out, strict, progress.report, started, accelerators)
    finally:
        progress.close()  # before anything else is printed: the next line starts at the left margin
    for line in problems:
        print(line, file=stream)
    if summary and not quiet:
        print(summary, file=report, flush=True)
    return status


def build_and_summarize(
    content: str | None,
    out: str | None,
    strict: bool,
    progress: Callable[[str], None],
    started: float,
    accelerators: Accelerators,
) -> tuple[int, list[str], str]:
    """Run the build; return its exit status, its problems' lines, and, when it succeeded, the line that says what it did."""
    cpu_at_start = measure_cpu_use()  # what other processes use while the build starts decides on its copy
    root = find_project_root()
    out_dir = Path(out) if out is not None else root / "dist"
    content_path = (Path(content) if content is not None else root / "content").resolve()
    recorded_files = find_recorded_files(root, out_dir.resolve())
    try:
        output = check_output_folder(out if out is not None else "dist", out_dir, root, content_path, recorded_files)
    except OutputFolderRefused as refusal:
        return 2, [f"build.py build: {refusal}"], ""
    try:
        fingerprint: str | None = fingerprint_inputs(root, content_path, out_dir.resolve(), (content, strict))
    except OSError:
        fingerprint = None  # something unreadable: the build proper reports it
    if fingerprint is not None:
        recorded = find_recorded_warnings(root, fingerprint, out_dir.resolve())
        if recorded is not None:  # nothing changed since the last successful build
            return 0, list(recorded), format_up_to_date(time.perf_counter() - started, label_folder(out))
    from sitegen.check.formulas import start_katex
    from sitegen.diagnostics import BuildFailed
    from sitegen.read.history import CommitDates

    try:
        # node takes as long to start as Python takes to import the pipeline:
        # start KaTeX first (unless earlier results are cached), import the rest while it boots;
        # git finds the content's last-updated dates meanwhile too.
        with start_katex(root) as katex, CommitDates(content_path) as commit_dates:
            from sitegen.pipeline import build_site
            from sitegen.read.load import load_project

            progress("Reading content")
            project = load_project(root, content, commit_dates)
            if output.adopt:
                adopt_folder(output.path)
            # No core offered to the forked copy when it is off: it is never forked.
            free_cores = count_free_cores(since=cpu_at_start) if accelerators.beside else 0.0
            result = build_site(
                project,
                out_dir,
                strict=strict,
                katex=katex,
                progress=progress,
                free_cores=free_cores,
                recorded_files=recorded_files,
            )
    except BuildFailed as failure:
        # One line per problem and nothing else, so editors and CI can jump to each one.
        return 1, [diagnostic.format() for diagnostic in failure.diagnostics], ""
    except OutputFolderRefused as refusal:  # the folder changed while the build ran
        return 2, [f"build.py build: {refusal}"], ""
    except OSError as error:  # e.g. an output folder that cannot be written: the reader's to fix, not a bug
        return 1, [f"{error.filename or out_dir}: {error.strerror or error}"], ""
    warnings = [warning.format() for warning in result.warnings]
    if fingerprint is not None:
        record_build(root, fingerprint, out_dir.resolve(), warnings, result.digests)
    seconds = time.perf_counter() - started
    return 0, warnings, format_summary(result.page_count, seconds, label_folder(out), result.cells_run, result.cells_cached)
