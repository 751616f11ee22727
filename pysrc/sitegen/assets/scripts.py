"""The site's JavaScript minified by esbuild, each result cached so a warm build never starts it.

Every page loads theme.js and reader.js, and lab pages lab.js and the worker:
minified they weigh half as much. esbuild only transforms (no bundling, no
`--format`), so modules stay modules, classic scripts keep their top-level
names, and nothing is lowered to an older language version.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from sitegen.atomic import write_atomically
from sitegen.diagnostics import BuildFailed, Diagnostic, Location
from sitegen.model import StaticFile
from sitegen.paths import TEMPLATES_FOLDER
from sitegen.read.load import STATIC_FOLDER

ESBUILD_OPTIONS = ("--minify", "--legal-comments=none", "--charset=utf8", "--log-level=warning")
_ESBUILD_ERROR = re.compile(r"\[ERROR\] (?P<message>.+)\n\s*\n\s*\S+?:(?P<line>\d+):(?P<column>\d+):")


def minify_scripts(
    static_files: tuple[StaticFile, ...], esbuild: Path, esbuild_version: str, cache_dir: Path | None
) -> tuple[StaticFile, ...]:
    """Return the static files with every .js minified; esbuild runs once per script not already in the cache."""
    keys = {f.name: _cache_key(f.data, esbuild_version) for f in static_files if f.name.endswith(".js")}
    cached = {name: _read_cached(cache_dir, key) for name, key in keys.items()}
    minified = {name: data for name, data in cached.items() if data is not None}
    missing = [f for f in static_files if f.name in keys and f.name not in minified]
    if missing:
        # One esbuild per file (each starts in milliseconds), run side by side.
        with ThreadPoolExecutor() as pool:
            results = pool.map(lambda f: _run_esbuild(esbuild, f), missing)
            for f, data in zip(missing, results):
                minified[f.name] = data
                _write_cached(cache_dir, keys[f.name], data)
    return tuple(replace(f, data=minified[f.name]) if f.name in keys else f for f in static_files)


def _cache_key(data: bytes, esbuild_version: str) -> str:
    digest = hashlib.sha256(repr((esbuild_version, ESBUILD_OPTIONS)).encode())
    digest.update(data)
    return digest.hexdigest()


def _read_cached(cache_dir: Path | None, key: str) -> bytes | None:
    if cache_dir is None:
        return None
    try:
        return (cache_dir / f"{key}.js").read_bytes()
    except FileNotFoundError:
        return None


def _write_cached(cache_dir: Path | None, key: str, data: bytes) -> None:
    if cache_dir is None:
        return
    # Atomic, so an interrupted write never leaves half a script to be reused.
    write_atomically(cache_dir / f"{key}.js", data)


def _run_esbuild(esbuild: Path, script: StaticFile) -> bytes:
    # esbuild reads stdin; --sourcefile names the script in its messages.
    completed = subprocess.run(
        [str(esbuild), *ESBUILD_OPTIONS, "--color=false", f"--sourcefile={script.name}"],
        input=script.data,
        capture_output=True,
    )
    if completed.returncode != 0:
        raise BuildFailed([_describe_esbuild_error(script.name, completed.stderr.decode(errors="replace"))])
    return completed.stdout


def _describe_esbuild_error(name: str, stderr: str) -> Diagnostic:
    """Turn esbuild's first error (message, blank line, `name:line:column:`) into our one-line form."""
    error = _ESBUILD_ERROR.search(stderr)
    path = f"{TEMPLATES_FOLDER.as_posix()}/{STATIC_FOLDER}/{name}"
    if error is None:
        return Diagnostic(Location(path, 0), f"esbuild failed: {' '.join(stderr.split())}")
    return Diagnostic(Location(path, int(error["line"])), f"{error['message']} (esbuild, column {error['column']})")
