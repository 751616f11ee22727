"""Decide whether a build may replace its output folder, and mark the folders builds make.

A build replaces its output folder whole, so the folder must be one this tool
may throw away: missing, empty, or an earlier build. Every build writes a
marker file (BUILD_MARKER) into its output that lists every file it wrote
there, each with the SHA-256 of what it wrote. A folder counts as an earlier
build only when every file in it is one an earlier build recorded: listed in
a marker the last build's manifest recorded (its own), or listed in the
marker with the bytes the marker names, or in the manifest for that folder
with the same size and SHA-256 (how a build made before the marker listed
files, or before the marker existed, is adopted: a folder re-made by hand at
the same path, `rm -rf pub; mkdir pub; echo … > pub/index.html`, holds the
names but not the contents, and is refused). A name in a marker no build
recorded vouches for nothing by itself: a hand-written marker listing
`notes.md` once let a build delete it. So a marker copied beside somebody's
files (`cp -a dist/. www/`), a hand-written one or one that is not a plain
file (a symbolic link, a FIFO, something larger than a marker can be) never
lets a build delete them. Anything else (the project, its sources,
somebody's photos, a file) is refused before anything is touched, with one
line that says why.

Interrupted builds leave a staging folder (`.NAME-new-PID-…`) beside the
output, or, where folders cannot be swapped atomically, a retired one
(`.NAME-old-PID-…`). A later build removes such a folder only when it carries
the marker and the process that made it is gone, so two builds running at
once never delete each other's work.
"""

from __future__ import annotations

import errno
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sitegen.diagnostics import quote
from sitegen.files.hashes import hash_file as hash_file_remembered
from sitegen.files.limited_read import FileTooLarge, NotARegularFile, describe_file_kind, read_limited
from sitegen.publish.up_to_date import RecordedFile, hash_file

BUILD_MARKER = ".rollouts-build"
MARKER_TOOL = "rollouts"
MARKER_FORMAT = 3  # 3: with each file's SHA-256; 2: the marker lists the files its build wrote; 1 (older builds) did not
# A marker lists its build's file names (the tutorial's: about 3 KB); one larger than this is no marker of ours,
# and is never read (a link to /dev/zero, a 4 GB file).
MARKER_LIMIT = 16 * 2**20
UNKNOWN_FILES_SHOWN = 5
# Folders of the project a build must never replace or write into, besides the content folder.
PROTECTED_FOLDERS = {
    "pysrc": "pysrc/, the build's source code",
    "site_templates": "site_templates/, the site's templates",
    "client": "client/, the site's scripts",
    ".git": ".git/, the repository",
}
NOT_A_BUILD = f"it is not empty and not an earlier build (no {BUILD_MARKER} file)"
# A build replaces its folder whole (a rename), which a mount point refuses (EBUSY).
MOUNT_POINT = "it is a mount point, which a build cannot replace; build into a folder inside it"


class OutputFolderRefused(Exception):
    """The output folder is not one a build may replace; the message says why, in one line."""


@dataclass(frozen=True)
class OutputFolderCheck:
    """What the build may do with its output folder: `adopt` when only the manifest vouches for its files."""

    path: Path
    adopt: bool = False


def write_marker(files: Iterable[str] = (), pid: int | None = None, hashes: Mapping[str, str | list[str]] | None = None) -> bytes:
    """Return the marker's bytes: the files its build wrote, each with the SHA-256 of its bytes in `hashes` (or the
    hashes it may have, while an update replaces it); a staging folder's marker also names the process writing it."""
    record: dict[str, object] = {"tool": MARKER_TOOL, "format": MARKER_FORMAT}
    if pid is not None:
        record["pid"] = pid
    names = sorted(set(files) - {BUILD_MARKER})
    record["files"] = names
    if hashes:
        record["sha256"] = {name: hashes[name] for name in names if name in hashes}
    return (json.dumps(record, separators=(",", ":")) + "\n").encode()


def read_marked_hashes(marker: Mapping[str, Any] | None) -> dict[str, str | list[str]]:
    """Return the hashes a marker gives its files (none for an older marker, or a malformed list)."""
    hashes = marker.get("sha256") if marker is not None else None
    return hashes if isinstance(hashes, dict) else {}


def holds_marked(path: Path, hashes: object) -> bool:
    """Say whether path is a regular file whose bytes have the (or one of the) SHA-256 its marker gives it."""
    expected = {hashes} if isinstance(hashes, str) else set(hashes) if isinstance(hashes, list) else set()
    try:
        # Remembered by the file's status: the check before the write (ensure_replaceable) reads nothing again.
        return bool(expected) and stat.S_ISREG(os.lstat(path).st_mode) and hash_file_remembered(path) in expected
    except OSError:
        return False


def inspect_marker(folder: Path) -> dict[str, Any] | str | None:
    """Return the folder's marker record, None without a marker, or why the file there is no marker of this tool.

    A link, a FIFO, a device or a file larger than a marker can be is
    refused, never read (limited_read.py).
    """
    path = folder / BUILD_MARKER
    try:
        kind = describe_file_kind(os.lstat(path).st_mode)
        data = b"" if kind else read_limited(path, MARKER_LIMIT, follow_links=False)
    except FileNotFoundError:
        return None
    except NotARegularFile as error:
        return error.kind
    except FileTooLarge:
        return f"larger than a marker can be ({MARKER_LIMIT // 2**20} MiB)"
    except OSError as error:
        return "a symbolic link" if error.errno == errno.ELOOP else f"unreadable ({error.strerror or error})"
    if kind:
        return kind
    try:
        record = json.loads(data.decode("utf-8"))
    except ValueError:
        return "not a marker this tool wrote"
    files = record.get("files", []) if isinstance(record, dict) else None
    if not isinstance(record, dict) or record.get("tool") != MARKER_TOOL or not isinstance(files, list):
        return "not a marker this tool wrote"
    if not all(isinstance(name, str) for name in files):
        return "not a marker this tool wrote"
    return record


def read_marker(folder: Path) -> dict[str, Any] | None:
    """Return the folder's marker record when it carries this tool's marker; else None."""
    record = inspect_marker(folder)
    return record if isinstance(record, dict) else None


def check_output_folder(
    out: str, out_dir: Path, root: Path, content_dir: Path, recorded_files: Mapping[str, RecordedFile] | None
) -> OutputFolderCheck:
    """Return how the build may use out_dir, or raise OutputFolderRefused naming `out` (as typed) and the reason.

    `recorded_files` are the files the last build recorded for out_dir in the
    manifest (None when it recorded none): a folder holding only those (with
    the recorded contents), and those its marker lists, is an earlier build.
    """
    out_dir = out_dir.resolve()

    def refuse(reason: str) -> OutputFolderRefused:
        return OutputFolderRefused(f"will not build into '{out}': {reason}")

    if out_dir.exists() and not out_dir.is_dir():
        raise refuse("it is a file, not a folder")
    if os.path.ismount(out_dir):
        raise refuse(MOUNT_POINT)
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
    problem, adopt = find_replace_problem(out_dir, recorded_files)
    if problem:
        raise refuse(problem)
    return OutputFolderCheck(out_dir, adopt=adopt)


def find_replace_problem(
    out_dir: Path, recorded_files: Mapping[str, RecordedFile] | None = None, own: Iterable[str] = ()
) -> tuple[str, bool]:
    """Return why out_dir may not be replaced ("" when it may), and whether only the manifest vouches for its files.

    It may be replaced when it is missing or empty, or when every file in it
    is one an earlier build recorded: in its marker, when `recorded_files`
    (the manifest's) record the marker itself; else in its marker with the
    bytes it names, or in `recorded_files` with the size and hash recorded;
    or, `own`, one this very process wrote there (the dev server's).
    """
    if not out_dir.is_dir():
        return "", False
    files, folders = list_entries(out_dir)
    if not files and not folders:
        return "", False
    marker = inspect_marker(out_dir)
    if isinstance(marker, str):
        return f"its {BUILD_MARKER} is {marker}, not a build's marker; empty it or choose another folder", False
    if marker is None and recorded_files is None:
        return f"{NOT_A_BUILD}; empty it or choose another folder", False
    recorded, own = recorded_files or {}, set(own)
    # A marker the manifest recorded is the last build's own: its list vouches for its names (an output edited since
    # is still the build's to replace). Any other marker vouches for a file only with the bytes it names.
    its_own = BUILD_MARKER in recorded and holds_recorded(out_dir / BUILD_MARKER, recorded[BUILD_MARKER])
    hashes = read_marked_hashes(marker)
    listed = {name for name in (marker or {}).get("files", ()) if its_own or name in hashes}
    unknown = find_unknown_entries(files, folders, listed | set(recorded) | own)
    if unknown:
        if marker is None:
            return f"{NOT_A_BUILD}; empty it or choose another folder", False
        return f"it holds files no earlier build wrote there: {name_some(unknown)}; move them or choose another folder", False
    vouched = {
        name for name in files if name in own or (name in listed and (its_own or holds_marked(out_dir / name, hashes[name])))
    }
    # Files only the manifest vouches for: the marker is rewritten to list them (adopt_folder) before the build writes.
    to_adopt = [name for name in files if name not in vouched and name != BUILD_MARKER]
    changed = [name for name in to_adopt if name not in recorded or not holds_recorded(out_dir / name, recorded[name])]
    if changed:
        return (
            f"it holds files that differ from what the last build wrote there: {name_some(changed)}; "
            "move them or choose another folder",
            False,
        )
    return "", marker is None or bool(to_adopt)


def holds_recorded(path: Path, recorded: RecordedFile) -> bool:
    """Say whether path is a regular file with the recorded size and hash (a link, a FIFO or an unreadable file is not)."""
    try:
        status = os.lstat(path)
        return stat.S_ISREG(status.st_mode) and status.st_size == recorded.size and hash_file(path) == recorded.sha256
    except OSError:
        return False


def find_unknown_entries(files: list[str], folders: list[str], known: set[str]) -> list[str]:
    """Return the files not in `known`, and the folders holding no file at all that no known file is in ("name/")."""
    unknown = [name for name in files if name not in known and name != BUILD_MARKER]
    holding = {parent for name in files for parent in parent_folders(name)}
    unknown += [f"{name}/" for name in folders if name not in holding]
    return sorted(unknown)


def parent_folders(name: str) -> list[str]:
    """Return the folders a relative POSIX path lies in: a/b/c → a, a/b."""
    parts = name.split("/")[:-1]
    return ["/".join(parts[: index + 1]) for index in range(len(parts))]


def name_some(names: list[str]) -> str:
    """Return up to five names, quoted, and how many more there are."""
    shown = ", ".join(quote(name) for name in names[:UNKNOWN_FILES_SHOWN])
    rest = len(names) - UNKNOWN_FILES_SHOWN
    return f"{shown} and {rest} more" if rest > 0 else shown


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


def ensure_replaceable(out_dir: Path, recorded_files: Mapping[str, RecordedFile] | None = None, own: Iterable[str] = ()) -> None:
    """Raise OutputFolderRefused unless out_dir is missing, empty or an earlier build: the last guard before writing.

    `recorded_files` and `own` as find_replace_problem's (given, the files are not read again to know them).
    """
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputFolderRefused(f"will not build into '{out_dir}': it is a file, not a folder")
    if os.path.ismount(out_dir):
        raise OutputFolderRefused(f"will not build into '{out_dir}': {MOUNT_POINT}")
    problem, _adopt = find_replace_problem(out_dir, recorded_files, own)
    if problem:
        raise OutputFolderRefused(f"will not build into '{out_dir}': {problem}")


def adopt_folder(out_dir: Path) -> None:
    """Mark an earlier build (check_output_folder found the manifest lists its files) with a marker listing them."""
    files = [name for name in list_entries(out_dir)[0] if name != BUILD_MARKER]
    hashes = {name: hash_file(out_dir / name) for name in files}
    (out_dir / BUILD_MARKER).unlink(missing_ok=True)  # an older marker (a plain file: check_output_folder saw to it)
    (out_dir / BUILD_MARKER).write_bytes(write_marker(files, hashes=hashes))


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
    """Return every file under folder (anything but a folder: links, FIFOs too) as a relative POSIX path."""
    return list_entries(folder)[0]


def list_entries(folder: Path) -> tuple[list[str], list[str]]:
    """Return (files, folders) under folder as relative POSIX paths; links are listed, never followed."""
    files: list[str] = []
    folders: list[str] = []
    pending = [("", folder)]
    while pending:
        prefix, directory = pending.pop()
        with os.scandir(directory) as entries:
            for entry in entries:
                name = prefix + entry.name
                if entry.is_dir(follow_symlinks=False):
                    folders.append(name)
                    pending.append((name + "/", Path(entry.path)))
                else:
                    files.append(name)
    return sorted(files), sorted(folders)
