"""The core's results kept between builds: the figures the core draws, and the texts of computed values.

Both are pure functions of this tool's code (the core and the few sitegen
modules that format values and place figures); a computed value also of its
`{{ … }}` expression, words of the book. Drawing the five figures took about
0.1 s of a cold six-chapter build's CPU on a 2-core EPYC, computing the
values about half that, and every build paid both again. So:

- the figures, which no book changes, are kept in the tool's cache
  (paths.CORE_CACHE, tool_cache.py), like the stylesheets and scripts built
  once per installed version, one file per version of the code (the
  KEPT_VERSIONS most recently written stay: worktrees may share node_modules);
- the values, which come from the book's words, are kept with the book's
  caches (paths.COMPUTED_VALUES_CACHE, under .cache/), which a cold build
  clears.

A version of the code is a fingerprint of every Python source under pysrc/
and the Python version: any edit to the code is another version, so a kept
result is never stale; each file carries its own SHA-256, so a damaged one is
ignored (and made again). A build seeds the in-process memories of
computed.py and generated_figures.py (`remember_core_results`) and, when it
computed anything new, writes them back (`keep_core_results`). Errors are
never kept: a bad expression is reported by every build that has it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from sitegen.files.tool_cache import find_writable, read_verified, write_verified
from sitegen.kinds.computed import list_computed_values, remember_computed_values
from sitegen.model import Project
from sitegen.render.generated_figures import list_drawn_figures, remember_drawn_figures

PYSRC = Path(__file__).resolve().parents[2]
# Several checkouts may share one node_modules (git worktrees, a scratch copy with its code changed), each with its own
# code and so its own figures file: the most recently written few stay, older ones (code long gone) are deleted.
KEPT_VERSIONS = 8


@dataclass(frozen=True)
class CoreResults:
    """Computed values ({expression: text}) and drawn figures ({name: (description, svg)})."""

    values: dict[str, str]
    figures: dict[str, tuple[str, str]]


@dataclass(frozen=True)
class CoreCaches:
    """Where the results are kept: the tool's folder for figures, the book's file for values (None: not kept)."""

    figures: Path | None
    values: Path | None


def core_caches(project: Project) -> CoreCaches:
    """Return where this project keeps the core's results."""
    return CoreCaches(project.core_cache, project.values_cache)


@cache
def fingerprint_tool_code() -> str:
    """Return a hash of the Python version and every .py file under pysrc/ (path and bytes), read once per process."""
    digest = hashlib.sha256(sys.version.encode())
    for path in sorted(PYSRC.rglob("*.py")):
        digest.update(path.relative_to(PYSRC).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:32]


def find_kept_figures(folder: Path) -> Path:
    """Return the file in the tool's cache that keeps the figures of this version of the code."""
    return folder / f"figures-{fingerprint_tool_code()}.json"


def read_core_results(caches: CoreCaches) -> CoreResults:
    """Return the kept results of this code; none of a kind without a cache, a file, or a file that passes its check."""
    figures: dict[str, tuple[str, str]] = {}
    stored = _read_json(find_kept_figures(caches.figures)) if caches.figures is not None else None
    if isinstance(stored, dict):
        figures = {str(k): (str(v[0]), str(v[1])) for k, v in stored.items() if isinstance(v, list) and len(v) == 2}
    values: dict[str, str] = {}
    stored = _read_json(caches.values) if caches.values is not None else None
    if isinstance(stored, dict) and stored.get("code") == fingerprint_tool_code() and isinstance(stored.get("values"), dict):
        values = {str(k): str(v) for k, v in stored["values"].items()}
    return CoreResults(values, figures)


def remember_core_results(caches: CoreCaches) -> CoreResults:
    """Seed this process's memories with the kept results; return them (keep_core_results compares with them)."""
    kept = read_core_results(caches)
    remember_computed_values(kept.values)
    remember_drawn_figures(kept.figures)
    return kept


def keep_core_results(caches: CoreCaches, kept: CoreResults) -> CoreResults:
    """Write what this process computed that `kept` did not hold; return what the caches hold now.

    A cache that cannot be written is skipped (the next build computes again).
    """
    now = CoreResults({**kept.values, **list_computed_values()}, {**kept.figures, **list_drawn_figures()})
    held = kept
    if now.figures.keys() - kept.figures.keys() and caches.figures is not None:
        writable = find_writable(caches.figures)
        if writable is not None:
            write_verified(find_kept_figures(writable), _to_json(now.figures))
            forget_old_figures(writable)
            held = CoreResults(held.values, now.figures)
    new_values = now.values.keys() - kept.values.keys()
    if new_values and caches.values is not None and find_writable(caches.values.parent) is not None:
        write_verified(caches.values, _to_json({"code": fingerprint_tool_code(), "values": now.values}))
        held = CoreResults(now.values, held.figures)
    return held


def forget_old_figures(folder: Path) -> None:
    """Delete all but the KEPT_VERSIONS most recently written figures files."""
    files = []
    for path in folder.glob("figures-*.json"):
        with contextlib.suppress(OSError):
            files.append((path.stat().st_mtime_ns, path))
    for _written, path in sorted(files, reverse=True)[KEPT_VERSIONS:]:
        with contextlib.suppress(OSError):
            path.unlink()


def _read_json(path: Path) -> object:
    data = read_verified(path)
    try:
        return json.loads(data) if data is not None else None
    except ValueError:
        return None


def _to_json(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False).encode()
