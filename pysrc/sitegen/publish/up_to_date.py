"""Skip a build whose inputs and output are exactly as the last successful build left them (like make).

`build.py build` fingerprints everything the output depends on: the content
folder, site_templates/, pysrc/ (the pipeline and the core), files at the
project root (site.yaml, ...), the ROLLOUTS_BASE_URL variable, the KaTeX and Pyodide files, the installed
Python packages and the Python version, and the command's options. After a
successful build it records that fingerprint, the warnings, and the output
folder as it left it (every file's size and modification time) in
.cache/build-manifest.json. When the next build finds the same fingerprint
and an untouched output folder, it prints the recorded warnings and stops:
no parsing, no rendering, not even an import of the pipeline.

Any doubt means a real build: a changed, added or removed input, an output
file touched or missing, an unreadable manifest. Deleting .cache/ is always safe.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

from sitegen.atomic import write_atomically
from sitegen.paths import BUILD_MANIFEST

# Hashed by content: what authors and developers edit.
HASHED_FOLDERS = ("site_templates", "pysrc")
# Checked by size and modification time: large files only `npm ci` changes.
STATTED_FOLDERS = ("node_modules/katex/dist", "node_modules/pyodide")
SKIPPED_NAMES = {"__pycache__", ".git"}
MANIFEST_FORMAT = 1
RECORDED_OUTPUTS = 16  # output folders remembered (tests build into many temporary ones)


def fingerprint_inputs(root: Path, content_path: Path, out_dir: Path, options: tuple[object, ...]) -> str:
    """Return a digest of everything the build's output depends on, and of the options.

    `options` are the command's options as typed (the content folder as given
    names the files in the warnings, `--content drafts` → `drafts/...`).
    """
    digest = hashlib.sha256()

    def add(*parts: object) -> None:
        digest.update(repr(parts).encode())
        digest.update(b"\0")

    add(MANIFEST_FORMAT, sys.version, sys.executable, str(content_path), str(out_dir), options)
    add(os.environ.get("ROLLOUTS_BASE_URL", ""))  # overrides site.yaml's base_url (see base_url_override.py)
    for folder in (content_path, *(root / name for name in HASHED_FOLDERS)):
        for path in list_files(folder):
            if not stat.S_ISREG(path.stat().st_mode):  # a FIFO would block read_bytes(): let the build report it
                raise OSError(f"{path}: not a regular file")
            add(str(path))
            digest.update(path.read_bytes())
    for path in sorted(p for p in root.iterdir() if p.is_file()):
        add(str(path))
        digest.update(path.read_bytes())
    for folder in (root / name for name in STATTED_FOLDERS):
        for path in list_files(folder):
            status = path.stat()
            add(str(path), status.st_size, status.st_mtime_ns)
    for folder in (Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()):
        add(str(folder), sorted(entry.name for entry in os.scandir(folder)))  # dist-info names carry versions
    return digest.hexdigest()


def list_files(folder: Path) -> list[Path]:
    """Return every file under folder, sorted, skipping caches; nothing for a missing folder."""
    found = []
    for directory, folders, names in os.walk(folder):
        folders[:] = sorted(name for name in folders if name not in SKIPPED_NAMES)
        found += [Path(directory, name) for name in names]
    return sorted(found)


def describe_output(out_dir: Path) -> list[list[object]]:
    """Return every output file with its size and modification time (what a later build compares)."""
    if not out_dir.is_dir():
        return []
    described = []
    for path in list_files(out_dir):
        status = path.stat()
        described.append([path.relative_to(out_dir).as_posix(), status.st_size, status.st_mtime_ns])
    return described


def read_manifest(root: Path) -> dict[str, Any]:
    """Return the recorded builds ({output folder: record}); an unreadable manifest is an empty one."""
    try:
        manifest = json.loads((root / BUILD_MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def find_recorded_warnings(root: Path, fingerprint: str, out_dir: Path) -> list[str] | None:
    """Return the warnings of the last build if nothing changed since it (inputs and output); else None."""
    record = read_manifest(root).get(str(out_dir))
    if not isinstance(record, dict) or record.get("fingerprint") != fingerprint:
        return None
    if record.get("output") != describe_output(out_dir):
        return None
    warnings = record.get("warnings")
    return warnings if isinstance(warnings, list) else None


def find_recorded_files(root: Path, out_dir: Path) -> set[str] | None:
    """Return the files the last successful build into out_dir left there, or None if none is recorded."""
    record = read_manifest(root).get(str(out_dir))
    output = record.get("output") if isinstance(record, dict) else None
    if not isinstance(output, list):
        return None
    return {entry[0] for entry in output if isinstance(entry, list) and entry and isinstance(entry[0], str)}


def record_build(root: Path, fingerprint: str, out_dir: Path, warnings: list[str]) -> None:
    """Remember a successful build (best effort: a cache that cannot be written only costs time)."""
    manifest = read_manifest(root)
    manifest.pop(str(out_dir), None)
    manifest[str(out_dir)] = {"fingerprint": fingerprint, "output": describe_output(out_dir), "warnings": warnings}
    while len(manifest) > RECORDED_OUTPUTS:
        manifest.pop(next(iter(manifest)))
    with contextlib.suppress(OSError):  # best effort, as above
        write_atomically(root / BUILD_MANIFEST, json.dumps(manifest))
