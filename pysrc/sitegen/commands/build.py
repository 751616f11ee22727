"""`build.py` / `build.py build`: build the site and report problems as `path:line: message`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from sitegen.paths import find_project_root
from sitegen.publish.output_folder import OutputFolderRefused, adopt_folder, check_output_folder
from sitegen.publish.up_to_date import find_recorded_files, find_recorded_warnings, fingerprint_inputs, record_build

# The pipeline (and even the KaTeX client) is imported only once a build is
# known to be needed: an up-to-date build costs little more than starting Python.


def run_build(content: str | None, out: str | None, strict: bool = False, stream: TextIO | None = None) -> int:
    """Build content/ (or `content`) into dist/ (or `out`); print one line per problem; return the exit status."""
    stream = stream or sys.stderr
    root = find_project_root()
    out_dir = Path(out) if out is not None else root / "dist"
    content_path = (Path(content) if content is not None else root / "content").resolve()
    try:
        output = check_output_folder(
            out if out is not None else "dist", out_dir, root, content_path, find_recorded_files(root, out_dir.resolve())
        )
    except OutputFolderRefused as refusal:
        print(f"build.py build: {refusal}", file=stream)
        return 2
    try:
        fingerprint: str | None = fingerprint_inputs(root, content_path, out_dir.resolve(), (content, strict))
    except OSError:
        fingerprint = None  # something unreadable: the build proper reports it
    if fingerprint is not None:
        recorded = find_recorded_warnings(root, fingerprint, out_dir.resolve())
        if recorded is not None:  # nothing changed since the last successful build
            for line in recorded:
                print(line, file=stream)
            return 0
    from sitegen.check.formulas import start_katex
    from sitegen.diagnostics import BuildFailed

    try:
        # node takes as long to start as Python takes to import the pipeline:
        # start KaTeX first (unless earlier results are cached), import the rest while it boots.
        with start_katex(root) as katex:
            from sitegen.check.math_prefetch import PrefetchedMath
            from sitegen.pipeline import build_site
            from sitegen.read.load import load_project

            project = load_project(root, content)
            if output.adopt:
                adopt_folder(output.path)
            # node renders the formulas on another core while Python parses the pages
            math = PrefetchedMath(katex, project)
            result = build_site(project, out_dir, strict=strict, katex=math)
    except BuildFailed as failure:
        # One line per problem and nothing else, so editors and CI can jump to each one.
        for diagnostic in failure.diagnostics:
            print(diagnostic.format(), file=stream)
        return 1
    except OutputFolderRefused as refusal:  # the folder changed while the build ran
        print(f"build.py build: {refusal}", file=stream)
        return 2
    except OSError as error:  # e.g. an output folder that cannot be written: the reader's to fix, not a bug
        print(f"{error.filename or out_dir}: {error.strerror or error}", file=stream)
        return 1
    for warning in result.warnings:
        print(warning.format(), file=stream)
    if fingerprint is not None:
        record_build(root, fingerprint, out_dir.resolve(), [warning.format() for warning in result.warnings])
    return 0
