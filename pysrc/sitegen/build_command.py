"""`build.py` / `build.py build`: build the site and report problems as `path:line: message`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TextIO

from sitegen.diagnostics import BuildFailed
from sitegen.formulas import KatexProcess, math_cache_file
from sitegen.paths import KATEX_SCRIPT, find_project_root


def run_build(content: str | None, out: str | None, strict: bool = False, stream: TextIO | None = None) -> int:
    """Build content/ (or `content`) into dist/ (or `out`); print one line per problem; return the exit status."""
    stream = stream or sys.stderr
    root = find_project_root()
    out_dir = Path(out) if out is not None else root / "dist"
    try:
        # node takes as long to start as Python takes to import the pipeline:
        # start KaTeX first (unless earlier results are cached), import the rest while it boots.
        cache = math_cache_file(root)
        with KatexProcess(root / KATEX_SCRIPT, cache, start_now=not cache.is_file()) as katex:
            from sitegen.load import load_project
            from sitegen.math_prefetch import PrefetchedMath
            from sitegen.pipeline import build_site

            project = load_project(root, content)
            # node renders the formulas on another core while Python parses the pages
            math = PrefetchedMath(katex, project)
            result = build_site(project, out_dir, strict=strict, katex=math)  # type: ignore[arg-type]
    except BuildFailed as failure:
        # One line per problem and nothing else, so editors and CI can jump to each one.
        for diagnostic in failure.diagnostics:
            print(diagnostic.format(), file=stream)
        return 1
    except OSError as error:  # e.g. an output folder that cannot be written: the reader's to fix, not a bug
        print(f"{error.filename or out_dir}: {error.strerror or error}", file=stream)
        return 1
    for warning in result.warnings:
        print(warning.format(), file=stream)
    return 0
