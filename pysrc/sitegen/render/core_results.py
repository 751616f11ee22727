"""The core's results kept between builds: the texts of computed values and the figures the core draws.

Both are pure functions of this tool's code (the core and the few sitegen
modules that format values and place figures) and, for a computed value, of
its `{{ … }}` expression; drawing the figures and computing the values costs
about a tenth of a cold six-chapter build, paid again by every build. So they
are kept in the tool's cache (paths.CORE_CACHE, tool_cache.py), like the
stylesheets and scripts built once per installed version, in one file named by
a fingerprint of every Python source under pysrc/ and the Python version: any
edit to the code names another file, so a kept result is never stale; the
file carries its own SHA-256, so a damaged one is ignored (and made again).
Only the few most recently written files stay (`forget_old_results`).

A build seeds the in-process memories of computed.py and generated_figures.py
from the file (`remember_core_results`) and, when it computed anything new,
writes them back (`keep_core_results`). Errors are never kept: a bad
expression is reported by every build that has it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sitegen.kinds.computed import list_computed_values, remember_computed_values
from sitegen.render.generated_figures import list_drawn_figures, remember_drawn_figures
from sitegen.tool_cache import find_writable, read_verified, write_verified

PYSRC = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class CoreResults:
    """Computed values ({expression: text}) and drawn figures ({name: (description, svg)})."""

    values: dict[str, str]
    figures: dict[str, tuple[str, str]]


@cache
def fingerprint_tool_code() -> str:
    """Return a hash of the Python version and every .py file under pysrc/ (path and bytes), read once per process."""
    digest = hashlib.sha256(sys.version.encode())
    for path in sorted(PYSRC.rglob("*.py")):
        digest.update(path.relative_to(PYSRC).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def find_core_results(folder: Path) -> Path:
    """Return the file that keeps the results of this code."""
    return folder / f"core-results-{fingerprint_tool_code()}.json"


def read_core_results(folder: Path | None) -> CoreResults:
    """Return the kept results of this code; none when there is no cache, no file, or a file that fails its check."""
    data = read_verified(find_core_results(folder)) if folder is not None else None
    try:
        stored = json.loads(data) if data is not None else {}
        values = {str(k): str(v) for k, v in stored.get("values", {}).items()}
        figures = {str(k): (str(v[0]), str(v[1])) for k, v in stored.get("figures", {}).items()}
    except (ValueError, TypeError, AttributeError, IndexError, KeyError):
        return CoreResults({}, {})
    return CoreResults(values, figures)


def remember_core_results(folder: Path | None) -> CoreResults:
    """Seed this process's memories with the kept results; return them (keep_core_results compares with them)."""
    kept = read_core_results(folder)
    remember_computed_values(kept.values)
    remember_drawn_figures(kept.figures)
    return kept


def keep_core_results(folder: Path | None, kept: CoreResults) -> CoreResults:
    """Write this process's results when they hold anything `kept` did not; return what the cache holds now.

    A cache that cannot be written is skipped (the next build computes again).
    """
    now = CoreResults(list_computed_values(), list_drawn_figures())
    if now.values.keys() <= kept.values.keys() and now.figures.keys() <= kept.figures.keys():
        return kept
    writable = find_writable(folder) if folder is not None else None
    if writable is None:
        return kept
    merged = CoreResults({**kept.values, **now.values}, {**kept.figures, **now.figures})
    target = find_core_results(writable)
    stored = {"values": merged.values, "figures": merged.figures}
    write_verified(target, json.dumps(stored, sort_keys=True, ensure_ascii=False).encode())
    forget_old_results(writable)
    return merged


# Several checkouts may share one node_modules (git worktrees, a scratch copy with its code changed), each with its own
# code and so its own file: the most recently written few stay, older ones (code long gone) are deleted.
KEPT_VERSIONS = 8


def forget_old_results(folder: Path) -> None:
    """Delete all but the KEPT_VERSIONS most recently written results files."""
    files = []
    for path in folder.glob("core-results-*.json"):
        with contextlib.suppress(OSError):
            files.append((path.stat().st_mtime_ns, path))
    for _written, path in sorted(files, reverse=True)[KEPT_VERSIONS:]:
        with contextlib.suppress(OSError):
            path.unlink()
