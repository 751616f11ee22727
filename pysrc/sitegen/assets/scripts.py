"""The site's JavaScript and CSS bundled and minified by esbuild, each result kept in the tool's cache (tool_cache.py).

Every page loads theme.js and reader.js, and lab pages lab.js and the worker:
minified they weigh half as much. Every script is an ES module, an entry at
the top of client/ (shipped as js/NAME). One that imports (from the folders
below it) is bundled into one file: as an ES
module, or, for the classic scripts the pages load with a plain <script>
(CLASSIC_SCRIPTS), as one self-running function. One that imports nothing is
only transformed, so it stays as it is written. Nothing is lowered to an older
language version. Our stylesheets (css/*.css) are minified the same way.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

from sitegen.diagnostics import BuildFailed, Diagnostic, Location, report
from sitegen.files.paths import CLIENT_ASSET_FOLDER, CLIENT_FOLDER, STATIC_FOLDER, TEMPLATES_FOLDER
from sitegen.files.tool_cache import read_verified, write_verified
from sitegen.messages import (
    ESBUILD_FAILED,
    SCRIPT_ERROR,
)
from sitegen.model import StaticFile

ESBUILD_OPTIONS = ("--minify", "--legal-comments=none", "--charset=utf8", "--log-level=warning")
# Run as plain scripts (theme.js inline at the top of <head>, before the first paint; the others deferred): bundled as
# classic scripts. Every other script is a module: <script type="module">, a module worker, or import().
CLASSIC_SCRIPTS = frozenset({"js/theme.js", "js/reader.js", "js/code.js"})
_STATIC_IMPORT = re.compile(r"^import\s", re.M)
_ESBUILD_ERROR = re.compile(r"\[ERROR\] (?P<message>.+)\n\s*\n\s*\S+?:(?P<line>\d+):(?P<column>\d+):")


def minify_scripts(
    static_files: tuple[StaticFile, ...],
    esbuild: Path,
    esbuild_version: str,
    cache_dir: Path | None,
    client_dir: Path | None = None,
) -> tuple[StaticFile, ...]:
    """Return the static files with every .js bundled or minified and every .css minified; esbuild runs once per file not in the cache.

    `client_dir`: the scripts' folder on disk (client/), from where their imports are resolved.
    """
    modules = _read_modules(client_dir)
    keys = {
        f.name: _cache_key(f.data + (modules if _imports(f) else b""), esbuild_version)
        for f in static_files
        if f.name.endswith((".js", ".css"))
    }
    cached = {name: _read_cached(cache_dir, key) for name, key in keys.items()}
    minified = {name: data for name, data in cached.items() if data is not None}
    missing = [f for f in static_files if f.name in keys and f.name not in minified]
    if missing:
        # One esbuild per file (each starts in milliseconds), run side by side.
        with ThreadPoolExecutor() as pool:
            results = pool.map(lambda f: _run_esbuild(esbuild, f, client_dir), missing)
            for f, data in zip(missing, results):
                minified[f.name] = data
                _write_cached(cache_dir, keys[f.name], data)
    return tuple(replace(f, data=minified[f.name]) if f.name in keys else f for f in static_files)


def _read_modules(client_dir: Path | None) -> bytes:
    """Return every importable module's path and text: a bundle's cache key covers them all."""
    if client_dir is None:
        return b""
    modules = sorted(client_dir.rglob("*.mjs"))
    return b"".join(path.relative_to(client_dir).as_posix().encode() + b"\0" + path.read_bytes() for path in modules)


def _cache_key(data: bytes, esbuild_version: str) -> str:
    digest = hashlib.sha256(repr((esbuild_version, ESBUILD_OPTIONS, sorted(CLASSIC_SCRIPTS))).encode())
    digest.update(data)
    return digest.hexdigest()


def _imports(script: StaticFile) -> bool:
    return script.name.endswith(".js") and _STATIC_IMPORT.search(script.data.decode(errors="replace")) is not None


def _read_cached(cache_dir: Path | None, key: str) -> bytes | None:
    return read_verified(cache_dir / f"{key}.js") if cache_dir is not None else None


def _write_cached(cache_dir: Path | None, key: str, data: bytes) -> None:
    if cache_dir is not None:
        write_verified(cache_dir / f"{key}.js", data)


def _run_esbuild(esbuild: Path, script: StaticFile, client_dir: Path | None) -> bytes:
    # esbuild reads stdin; --sourcefile names the script in its messages, and imports resolve from the working folder.
    # A module is strict; bundled as a classic script it stays so ("use strict" before the function).
    classic = ("--format=iife", '--banner:js="use strict";')
    bundle = ("--bundle", *(classic if script.name in CLASSIC_SCRIPTS else ("--format=esm",))) if _imports(script) else ()
    completed = subprocess.run(
        [
            str(esbuild),
            *ESBUILD_OPTIONS,
            *bundle,
            f"--loader={script.name.rpartition('.')[2]}",
            "--color=false",
            f"--sourcefile={script.name}",
        ],
        input=script.data,
        capture_output=True,
        cwd=client_dir,
    )
    if completed.returncode != 0:
        raise BuildFailed([_describe_esbuild_error(script.name, completed.stderr.decode(errors="replace"))])
    return completed.stdout


def _describe_esbuild_error(name: str, stderr: str) -> Diagnostic:
    """Turn esbuild's first error (message, blank line, `name:line:column:`) into our one-line form."""
    error = _ESBUILD_ERROR.search(stderr)
    folder, _, file_name = name.partition("/")
    client = folder == CLIENT_ASSET_FOLDER
    path = f"{CLIENT_FOLDER.as_posix()}/{file_name}" if client else f"{TEMPLATES_FOLDER.as_posix()}/{STATIC_FOLDER}/{name}"
    if error is None:
        return report(Location(path, 0), ESBUILD_FAILED, output=" ".join(stderr.split()))
    return report(Location(path, int(error["line"])), SCRIPT_ERROR, problem=error["message"], column=error["column"])
