"""Skip a build whose inputs and output are exactly as the last successful build left them (like make).

`build.py build` fingerprints everything the output depends on: the content
folder, site_templates/, client/, pysrc/ (the pipeline and the core), files at the
project root (site.yaml, ...), the ROLLOUTS_BASE_URL variable, the commit
at HEAD and SOURCE_DATE_EPOCH (the pages' "Last updated" dates), every npm
package the build reads, copies or bundles (KaTeX, Pyodide, MiniSearch,
CodeMirror, esbuild: package-lock.json's runtime packages), the installed
Python packages and the Python version, and the command's options. Files are
hashed, except those over HASHED_SIZE_LIMIT and the npm packages' (large
files only `npm ci` changes), which count by size and modification time:
a 4 GB file at the project root costs a stat, not a read. After a
successful build it records that fingerprint, the warnings, and the output
folder as it left it (every file's size, modification and change times and
SHA-256) in
.cache/build-manifest.json. When the next build finds the same fingerprint
and an untouched output folder, it prints the recorded warnings and stops:
no parsing, no rendering, not even an import of the pipeline.

Any doubt means a real build: a changed, added or removed input, an output
file touched or missing, an unreadable manifest. An output's change time
(ctime) counts because no one can set it: an edit of the same size whose
modification time was put back (`touch -r`) changes it all the same. Deleting .cache/ is always safe.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitegen.files.atomic import write_atomically
from sitegen.files.limited_read import read_limited
from sitegen.files.paths import BUILD_MANIFEST, SNAPSHOT_RECORD
from sitegen.read.history import DATE_EPOCH_VARIABLE, read_content_commit

# Hashed by content: what authors and developers edit.
HASHED_FOLDERS = ("site_templates", "client", "pysrc")
# A file larger than this is fingerprinted by size and modification time: no source comes near it.
HASHED_SIZE_LIMIT = 8 * 2**20
# npm's record of what `npm ci` installed; its runtime packages (not "dev") are what the build may read.
PACKAGE_LOCK = "package-lock.json"
NODE_MODULES = "node_modules"
# Caches, never inputs: Python's bytecode, git's store, and node_modules/.cache (the tool's cache, tool_cache.py: listed
# with every package when package-lock.json cannot be read, it changes whenever any build sharing node_modules keeps
# something new, which would make every build after it look changed).
SKIPPED_NAMES = {"__pycache__", ".git", ".cache"}
MANIFEST_FORMAT = 4  # 3: output entries carry each file's SHA-256; 4: and its change time
MANIFEST_LIMIT = 16 * 2**20  # a manifest of 16 output folders is a few hundred KB; anything larger is not ours
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
    # Every page's "Last updated" date: a commit changes it without changing a file (read/history.py).
    add(read_content_commit(content_path), os.environ.get(DATE_EPOCH_VARIABLE, ""))

    def add_file(path: str, status: os.stat_result) -> None:
        if status.st_size > HASHED_SIZE_LIMIT:
            add(path, status.st_size, status.st_mtime_ns)
        else:
            add(path)
            digest.update(read_limited(Path(path), HASHED_SIZE_LIMIT))

    # Paths as strings (list_file_names): ≈ 700 files, where Path objects were a third of the time.
    for folder in (content_path, *(root / name for name in HASHED_FOLDERS)):
        for path in list_file_names(folder):
            status = os.stat(path)
            if not stat.S_ISREG(status.st_mode):  # a FIFO would block a read: let the build report it
                raise OSError(f"{path}: not a regular file")
            add_file(path, status)
    for entry in sorted(root.iterdir()):
        # The snapshot's record is the build's output, not an input (check/cell_cache.py).
        if entry.is_file() and entry.name != SNAPSHOT_RECORD.name:  # is_file follows links, False for a FIFO or a device
            add_file(str(entry), entry.stat())
    for folder in list_runtime_packages(root):
        for path in list_file_names(folder):
            status = os.lstat(path)  # a link (node_modules/.bin) counts as itself: its target is listed on its own
            add(path, status.st_size, status.st_mtime_ns)
    for folder in (Path(p) for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()):
        add(str(folder), sorted(entry.name for entry in os.scandir(folder)))  # dist-info names carry versions
    return digest.hexdigest()


def list_runtime_packages(root: Path) -> list[Path]:
    """Return the folders of the npm packages the build may read: package-lock.json's runtime ones (all, unreadable)."""
    try:
        packages = json.loads(read_limited(root / PACKAGE_LOCK, MANIFEST_LIMIT))["packages"]
        names = sorted(
            name for name, package in packages.items() if name.startswith(f"{NODE_MODULES}/") and not package.get("dev")
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return [root / NODE_MODULES]
    return [root / name for name in names]


def list_files(folder: Path) -> list[Path]:
    """Return every file under folder, sorted, skipping caches; nothing for a missing folder."""
    return [Path(name) for name in list_file_names(folder)]


def list_file_names(folder: Path) -> list[str]:
    """Return list_files' paths as strings, in its order (a Path sorts by its parts)."""
    found = []
    for directory, folders, names in os.walk(folder):
        folders[:] = sorted(name for name in folders if name not in SKIPPED_NAMES)
        found += [f"{directory}{os.sep}{name}" for name in names]
    return sorted(found, key=lambda name: name.split(os.sep))


@dataclass(frozen=True)
class RecordedFile:
    """A file the last build wrote into an output folder, as the manifest recorded it."""

    size: int
    sha256: str


def describe_output(out_dir: Path) -> list[list[object]]:
    """Return every output file with its size, modification and change times (what a later build compares)."""
    if not out_dir.is_dir():
        return []
    described = []
    for path in list_files(out_dir):
        status = path.stat()
        described.append([path.relative_to(out_dir).as_posix(), status.st_size, status.st_mtime_ns, status.st_ctime_ns])
    return described


def record_output(out_dir: Path, digests: Mapping[str, str]) -> list[list[object]]:
    """Return describe_output's entries with each file's SHA-256: what lets a later build adopt a file (its contents).

    `digests`: the SHA-256 of each file the build wrote, taken from what it wrote (hashes.py took most of them
    already: the runtime's 14 MB among them); a file not among them is read back and hashed.
    """
    return [[*entry, digests.get(str(entry[0])) or hash_file(out_dir / str(entry[0]))] for entry in describe_output(out_dir)]


def hash_file(path: Path) -> str:
    """Return the SHA-256 of a file's bytes, read in blocks (the runtime's wasm is ~10 MB)."""
    with open(path, "rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def read_manifest(root: Path) -> dict[str, Any]:
    """Return the recorded builds ({output folder: record}); an unreadable manifest is an empty one."""
    try:
        manifest = json.loads(read_limited(root / BUILD_MANIFEST, MANIFEST_LIMIT).decode("utf-8"))
    except (OSError, ValueError):
        return {}
    return manifest if isinstance(manifest, dict) else {}


def find_recorded_warnings(root: Path, fingerprint: str, out_dir: Path) -> list[str] | None:
    """Return the warnings of the last build if nothing changed since it (inputs and output); else None."""
    record = read_manifest(root).get(str(out_dir))
    if not isinstance(record, dict) or record.get("fingerprint") != fingerprint:
        return None
    output = record.get("output")
    if not isinstance(output, list) or [entry[:4] for entry in output if isinstance(entry, list)] != describe_output(out_dir):
        return None
    warnings = record.get("warnings")
    return warnings if isinstance(warnings, list) else None


def find_recorded_files(root: Path, out_dir: Path) -> dict[str, RecordedFile] | None:
    """Return the files the last successful build into out_dir left there (size and hash), or None if none is recorded.

    An entry without a hash (a manifest from before hashes were recorded) vouches for nothing; its hash is its last
    field (a manifest from before change times were recorded has one field fewer).
    """
    record = read_manifest(root).get(str(out_dir))
    output = record.get("output") if isinstance(record, dict) else None
    if not isinstance(output, list):
        return None
    return {
        entry[0]: RecordedFile(entry[1], entry[-1])
        for entry in output
        if isinstance(entry, list)
        and len(entry) in (4, 5)
        and isinstance(entry[0], str)
        and isinstance(entry[1], int)
        and isinstance(entry[-1], str)
    }


def record_build(root: Path, fingerprint: str, out_dir: Path, warnings: list[str], digests: Mapping[str, str]) -> None:
    """Remember a successful build (best effort: a cache that cannot be written only costs time); `digests` as record_output's."""
    manifest = read_manifest(root)
    manifest.pop(str(out_dir), None)
    manifest[str(out_dir)] = {"fingerprint": fingerprint, "output": record_output(out_dir, digests), "warnings": warnings}
    while len(manifest) > RECORDED_OUTPUTS:
        manifest.pop(next(iter(manifest)))
    with contextlib.suppress(OSError):  # best effort, as above
        write_atomically(root / BUILD_MANIFEST, json.dumps(manifest))
