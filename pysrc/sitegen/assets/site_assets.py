"""Files shipped beside the pages: hashed CSS/JS/fonts, KaTeX, the lab's core archive and recorded run.

Asset names carry the first 8 hex digits of their SHA-256, so a CDN may cache
them forever; a changed file gets a new name and the pages that link it change.
Pyodide's files keep their own names (its loader asks for them by name), so
their folder carries the version and a hash of everything in it instead.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path, PurePosixPath

from rollout_lab import run_lab
from sitegen.files.hashes import hash_bytes, hash_file
from sitegen.model import Project, StaticFile

ASSETS_FOLDER = "assets"
PYODIDE_VERSION = "314.0.7"
RECORDED_RUN = "lab/recorded-run.json"
# A fixed timestamp (the earliest a zip can store) keeps the archive byte-identical across builds.
ZIP_TIMESTAMP = (1980, 1, 1, 0, 0, 0)
_KATEX_FONT_SOURCES = re.compile(r'url\(fonts/([\w-]+)\.woff2\) format\("woff2"\)(?:,url\(fonts/[\w.-]+\) format\("[\w-]+"\))*')


def hash_name(name: str, data: bytes) -> str:
    """Return name.HASH8.ext for a file name and its bytes (the folder is dropped)."""
    path = PurePosixPath(name)
    digest = hash_bytes(data)[:8]
    return f"{path.stem}.{digest}{path.suffix}"


def plan_static_assets(static_files: tuple[StaticFile, ...]) -> dict[str, tuple[str, bytes]]:
    """Return {name under static/: (URL under assets/, bytes)} for the templates' own files."""
    return {f.name: (f"{ASSETS_FOLDER}/{hash_name(f.name, f.data)}", f.data) for f in static_files}


def plan_katex_assets(project: Project) -> dict[str, tuple[str, bytes]]:
    """Return KaTeX's stylesheet (font URLs rewritten to the hashed woff2 files) and the fonts."""
    fonts = {f.name: (f"{ASSETS_FOLDER}/{hash_name(f.name, f.data)}", f.data) for f in project.katex_fonts}

    def point_at_hashed_font(match: re.Match[str]) -> str:
        url = fonts[f"{match.group(1)}.woff2"][0].removeprefix(f"{ASSETS_FOLDER}/")
        return f'url({url}) format("woff2")'

    stylesheet = _KATEX_FONT_SOURCES.sub(point_at_hashed_font, project.katex_stylesheet).encode()
    planned = {f"katex/{name}": value for name, value in fonts.items()}
    planned["katex.css"] = (f"{ASSETS_FOLDER}/{hash_name('katex.css', stylesheet)}", stylesheet)
    return planned


def plan_math_stylesheet(css: str) -> dict[str, tuple[str, bytes]]:
    """Return the stylesheet of KaTeX's inline styles turned into classes."""
    data = css.encode()
    return {"math.css": (f"{ASSETS_FOLDER}/{hash_name('math.css', data)}", data)}


# Remembered: the pipeline asks for it twice per build, and the dev server on every rebuild.
@lru_cache(maxsize=4)
def archive_core(core_modules: tuple[tuple[str, str], ...]) -> bytes:
    """Return a deterministic zip of rollout_lab/*.py, ready for Pyodide's unpackArchive into site-packages."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, text in sorted(core_modules):
            info = zipfile.ZipInfo(name, date_time=ZIP_TIMESTAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3  # Unix, whatever the host, so the bytes match everywhere
            archive.writestr(info, text.encode("utf-8"))
    return buffer.getvalue()


def write_recorded_run() -> bytes:
    """Return the recorded default run: exactly json.dumps(run_lab(), indent=2) and a newline."""
    return (json.dumps(run_lab(), indent=2) + "\n").encode()


def name_pyodide_folder(files: Mapping[str, bytes | Path]) -> str:
    """Return pyodide/VERSION-HASH8, HASH8 over every file's name and bytes: the one rule for that folder.

    Everything placed in it (the runtime, and anything derived from it such as
    a trimmed standard library) must be in `files`, so any change renames the
    folder and hosts may cache its contents forever (see host_headers.py).
    """
    digest = hashlib.sha256()
    for name in sorted(files):
        data = files[name]
        digest.update(f"{name}\0{hash_file(data) if isinstance(data, Path) else hash_bytes(data)}\0".encode())
    return f"pyodide/{PYODIDE_VERSION}-{digest.hexdigest()[:8]}"


def place_pyodide_files(files: Mapping[str, bytes | Path]) -> dict[str, bytes | Path]:
    """Return {output path: bytes or source path} for the Pyodide runtime files, under their folder (copied, not read)."""
    folder = name_pyodide_folder(files)
    return {f"{folder}/{name}": data for name, data in files.items()}
