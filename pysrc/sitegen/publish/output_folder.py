"""Decide whether a build may replace its output folder, and mark the folders builds make.

A build replaces its output folder whole, so the folder must be one this tool
may throw away: missing, empty, or an earlier build. Every build writes a
marker file (BUILD_MARKER) into its output; a folder counts as an earlier
build when it carries the marker, or, once, to adopt a build made before the
marker existed, when every file in it is listed in the last build's manifest
for that folder. Anything else (the project, its sources, somebody's photos,
a file) is refused before anything is touched, with one line that says why.

Interrupted builds leave a staging folder (`.NAME-new-PID-…`) beside the
output, or, where folders cannot be swapped atomically, a retired one
(`.NAME-old-PID-…`). A later build removes such a folder only when it carries
the marker and the process that made it is gone, so two builds running at
once never delete each other's work.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BUILD_MARKER = ".rollouts-build"
MARKER_TOOL = "rollouts"
MARKER_FORMAT = 1
# Folders of the project a build must never replace or write into, besides the content folder.
PROTECTED_FOLDERS = {
    "pysrc": "pysrc/, the build's source code",
    "site_templates": "site_templates/, the site's templates",
    ".git": ".git/, the repository",
}


class OutputFolderRefused(Exception):
    """The output folder is not one a build may replace; the message says why, in one line."""


@dataclass(frozen=True)
class OutputFolderCheck:
    """What the build may do with its output folder: `adopt` when it is a build made before the marker."""

    path: Path
    adopt: bool = False


def write_marker(pid: int | None = None) -> bytes:
    """Return the marker's bytes; a staging folder's marker also names the process that writes it."""
    record: dict[str, object] = {"tool": MARKER_TOOL, "format": MARKER_FORMAT}
    if pid is not None:
        record["pid"] = pid
    return (json.dumps(record) + "\n").encode()


def read_marker(folder: Path) -> dict[str, Any] | None:
    """Return the folder's marker record when it carries this tool's marker; else None."""
    try:
        record = json.loads((folder / BUILD_MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict) or record.get("tool") != MARKER_TOOL:
        return None
    return record


def check_output_folder(
    out: str, out_dir: Path, root: Path, content_dir: Path, recorded_files: set[str] | None
) -> OutputFolderCheck:
    """Return how the build may use out_dir, or raise OutputFolderRefused naming `out` (as typed) and the reason.

    `recorded_files` are the files the last build recorded for out_dir in the
    manifest (None when it recorded none): a marker-less folder holding only
    those is an earlier build, adopted once.
    """
    out_dir = out_dir.resolve()

    def refuse(reason: str) -> OutputFolderRefused:
        return OutputFolderRefused(f"will not build into '{out}': {reason}")

    if out_dir.exists() and not out_dir.is_dir():
        raise refuse("it is a file, not a folder")
    if out_dir == root:
        raise refuse("it is the project root")
    if out_dir in root.parents:
        raise refuse("it contains the project root")
    guarded = [(content_dir.resolve(), "the content folder")]
    guarded += [(root / name, description) for name, description in PROTECTED_FOLDERS.items()]
    for folder, name in guarded:
        if out_dir == folder:
            raise refuse(f"it is {name}")
        if folder in out_dir.parents:
            raise refuse(f"it is inside {name}")
        if out_dir in folder.parents:
            raise refuse(f"it contains {name}")
    check_writable(out, out_dir)
    if not out_dir.is_dir() or not any(out_dir.iterdir()) or read_marker(out_dir) is not None:
        return OutputFolderCheck(out_dir)
    if recorded_files is not None and set(list_files(out_dir)) <= recorded_files:
        return OutputFolderCheck(out_dir, adopt=True)
    raise refuse(f"it is not empty and not an earlier build (no {BUILD_MARKER} file); empty it or choose another folder")


def check_writable(out: str, out_dir: Path) -> None:
    """Raise OutputFolderRefused unless the build can create its staging folder beside out_dir."""
    parent = out_dir.parent
    while not parent.exists():
        parent = parent.parent
    # Name the culprit the way the folder was typed: relative stays relative.
    shown = parent if Path(out).is_absolute() else Path(os.path.relpath(parent))
    if not parent.is_dir():
        raise OutputFolderRefused(f"cannot create '{out}': {shown} is a file")
    try:
        probe = tempfile.mkdtemp(prefix=".rollouts-probe-", dir=parent)
    except OSError:
        raise OutputFolderRefused(f"cannot create '{out}': {shown} is not writable") from None
    os.rmdir(probe)


def ensure_replaceable(out_dir: Path) -> None:
    """Raise OutputFolderRefused unless out_dir is missing, empty or marked: the last guard before writing."""
    if not out_dir.exists():
        return
    if not out_dir.is_dir():
        raise OutputFolderRefused(f"will not build into '{out_dir}': it is a file, not a folder")
    if any(out_dir.iterdir()) and read_marker(out_dir) is None:
        raise OutputFolderRefused(
            f"will not build into '{out_dir}': it is not empty and not an earlier build (no {BUILD_MARKER} file)"
        )


def adopt_folder(out_dir: Path) -> None:
    """Mark a build made before the marker existed as a build (check_output_folder said it is one)."""
    (out_dir / BUILD_MARKER).write_bytes(write_marker())


def staging_prefix(out_dir: Path, kind: str) -> str:
    """Return the name prefix of a staging ('new') or retired ('old') folder of this process beside out_dir."""
    return f".{out_dir.name}-{kind}-{os.getpid()}-"


def remove_stale_folders(out_dir: Path) -> list[Path]:
    """Remove staging and retired folders beside out_dir left by builds whose process is gone; return them.

    A folder is removed only when it carries the marker (so it is certainly a
    build's) and the process named in its marker, or in its name, has ended.
    """
    pattern = re.compile(rf"\.{re.escape(out_dir.name)}-(new|old)-(\d+)-")
    removed = []
    try:
        entries = list(out_dir.parent.iterdir())
    except OSError:
        return []
    for entry in entries:
        match = pattern.match(entry.name)
        if not match or not entry.is_dir() or entry.is_symlink():
            continue
        marker = read_marker(entry)
        if marker is None:
            continue
        pid = marker.get("pid")
        if not isinstance(pid, int):
            pid = int(match.group(2))
        if is_running(pid):
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


def is_running(pid: int) -> bool:
    """Say whether a process with this id exists (on this machine)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, run by another user
    except OSError:
        return True  # when in doubt, keep the folder
    return True


def list_files(folder: Path) -> list[str]:
    """Return every file under folder as a relative POSIX path."""
    found = []
    for directory, _folders, names in os.walk(folder):
        for name in names:
            found.append(Path(directory, name).relative_to(folder).as_posix())
    return found
