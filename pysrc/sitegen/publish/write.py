"""Write the site: build everything in a temporary folder beside dist/, then swap it in.

The last stage and the only one that writes. A failed build never gets here,
and an interrupted one leaves the previous dist/ in place.
"""

from __future__ import annotations

import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

from sitegen.files.atomic import copy_file, write_atomically
from sitegen.files.hashes import hash_bytes, hash_file
from sitegen.publish.output_folder import (
    BUILD_MARKER,
    MOUNT_POINT,
    OutputFolderRefused,
    ensure_replaceable,
    list_files,
    name_some,
    read_marked_hashes,
    read_marker,
    remove_stale_folders,
    staging_prefix,
    write_marker,
)
from sitegen.publish.up_to_date import RecordedFile


def write_site(
    files: Mapping[str, bytes | Path],
    out_dir: Path,
    digests: Mapping[str, str] | None = None,
    recorded_files: Mapping[str, RecordedFile] | None = None,
) -> None:
    """Write `files` ({relative path: bytes, or a file to copy}) as the new out_dir, atomically swapped in.

    When out_dir already holds exactly these files, nothing is written: a
    rebuild without changes leaves every file (and its modification time) alone.
    out_dir must be missing, empty or an earlier build (output_folder.py; the
    manifest's `recorded_files`, when given, as check_output_folder had them);
    anything else raises OutputFolderRefused before a file is touched.
    `digests`: each file's SHA-256 (hash_content's), for its marker; made here when not given.
    """
    out_dir = out_dir.resolve()
    ensure_replaceable(out_dir, recorded_files)
    before = describe_folder(out_dir)
    files = add_marker(files, digests or {name: hash_content(content) for name, content in files.items()})
    if out_dir.is_dir() and not list_differences(files, out_dir):
        return
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_folders(out_dir)
    staging = Path(tempfile.mkdtemp(prefix=staging_prefix(out_dir, "new"), dir=out_dir.parent))
    try:
        # The marker names this process until the last file is written, so a
        # later build can tell a killed build's leftovers from a running one's.
        (staging / BUILD_MARKER).write_bytes(write_marker(pid=os.getpid()))
        for relative, content in sorted(files.items()):
            if relative == BUILD_MARKER:
                continue
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Path):
                copy_file(content, target)
            else:
                target.write_bytes(content)
        write_atomically(staging / BUILD_MARKER, files[BUILD_MARKER])
        os.chmod(staging, 0o755)
        # Whatever was written into out_dir while this build wrote its files would go with the old folder.
        ensure_unchanged(out_dir, before)
        swap_folders(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def describe_folder(folder: Path) -> dict[str, tuple[int, int, int, int]]:
    """Return every entry under folder (files and folders, links not followed) with its kind, size, inode and mtime."""
    described = {}
    pending = [("", folder)]
    while pending:
        prefix, directory = pending.pop()
        try:
            entries = list(os.scandir(directory))
        except FileNotFoundError:
            continue
        for entry in entries:
            status = entry.stat(follow_symlinks=False)
            described[prefix + entry.name] = (status.st_mode, status.st_size, status.st_ino, status.st_mtime_ns)
            if entry.is_dir(follow_symlinks=False):
                pending.append((f"{prefix}{entry.name}/", Path(entry.path)))
    return described


def ensure_unchanged(out_dir: Path, before: dict[str, tuple[int, int, int, int]]) -> None:
    """Raise OutputFolderRefused, naming them, if entries of out_dir were added, changed or removed since `before`."""
    after = describe_folder(out_dir)
    changed = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    # A folder changes whenever an entry in it does: name the entries, not the folders holding them.
    changed = [name for name in changed if not any(other.startswith(f"{name}/") for other in changed)]
    if changed:
        raise OutputFolderRefused(
            f"will not replace '{out_dir}': {name_some(changed)} changed in it while the build ran; "
            "it was left as it was, build again"
        )


def add_marker(files: Mapping[str, bytes | Path], digests: Mapping[str, str]) -> dict[str, bytes | Path]:
    """Return the files with the marker that tells later builds this folder is a build's to replace: it lists them,
    each with its SHA-256 (`digests`)."""
    return {**files, BUILD_MARKER: write_marker(files, hashes=digests)}


def hash_content(content: bytes | Path) -> str:
    """Return the SHA-256 of an output file's bytes (given, or those of the file to copy)."""
    return hash_file(content) if isinstance(content, Path) else hash_bytes(content)


def swap_folders(staging: Path, out_dir: Path) -> None:
    """Put staging where out_dir is; the old folder is removed only after the new one is in place.

    On Linux the two folders are exchanged in one atomic step (renameat2 with
    RENAME_EXCHANGE), so a reader or a server never sees a missing dist/;
    elsewhere two renames leave it missing for an instant.
    """
    if not out_dir.exists():
        os.rename(staging, out_dir)
        return
    if os.path.ismount(out_dir):  # made one since the build checked: renaming it fails with EBUSY
        raise OutputFolderRefused(f"will not build into '{out_dir}': {MOUNT_POINT}")
    if exchange_paths(staging, out_dir):
        shutil.rmtree(staging, ignore_errors=True)  # staging now holds the previous site
        return
    retired = Path(tempfile.mkdtemp(prefix=staging_prefix(out_dir, "old"), dir=out_dir.parent))
    os.rmdir(retired)  # a unique name for the old folder, which takes its place
    os.rename(out_dir, retired)
    os.rename(staging, out_dir)
    shutil.rmtree(retired, ignore_errors=True)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange_paths(first: Path, second: Path) -> bool:
    """Atomically swap two paths with Linux's renameat2; return False where that is unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # here, not at the top: a build that writes nothing never pays for importing it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    result = renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
    return bool(result == 0)


def list_differences(files: Mapping[str, bytes | Path], out_dir: Path) -> tuple[list[str], list[str]] | None:
    """Return (paths to write, paths to delete) that would turn out_dir into `files`; None when they match."""
    existing = set(list_files(out_dir)) - {BUILD_MARKER}  # the marker is compared (or written) on its own
    to_write = [relative for relative, content in sorted(files.items()) if not holds_content(out_dir / relative, content)]
    to_delete = sorted(existing - set(files))
    return (to_write, to_delete) if to_write or to_delete else None


def update_site(
    files: Mapping[str, bytes | Path], out_dir: Path, previous: Mapping[str, bytes | Path] | None = None
) -> list[str]:
    """Bring out_dir in line with `files` file by file, for the dev server; return the paths written or deleted.

    Each file is replaced atomically (written beside it, then renamed), so a
    browser never reads half a page; unchanged files are not touched. With
    `previous` (what the last update wrote), files are compared in memory
    instead of being read back. A missing out_dir is written with write_site.
    """
    out_dir = out_dir.resolve()
    if not out_dir.is_dir():
        write_site(files, out_dir)
        return sorted(files)
    # What this process wrote there last (`previous`) is its own, whatever it holds now (a page published early).
    ensure_replaceable(out_dir, own=previous or {})
    marker = read_marker(out_dir)
    marked = read_marked_hashes(marker)
    if previous is None:
        to_write, to_delete = list_differences(files, out_dir) or ([], [])
    else:
        to_write = [
            relative
            for relative, content in sorted(files.items())
            if previous.get(relative) != content or not (out_dir / relative).exists()
        ]
        to_delete = sorted(set(previous) - set(files))
    to_delete = [relative for relative in to_delete if relative != BUILD_MARKER]
    # Of what is there now (a page published early holds what `files` does): remembered, so mostly not hashed again.
    digests = {relative: hash_content(content) for relative, content in files.items()}
    listed = set(marker.get("files", ())) if marker else set()
    if to_write or set(files) - listed:
        # Until the last file is in place the marker lists the old files and the new, a replaced one with its old
        # hash and its new: a build interrupted in between leaves only files its marker vouches for (output_folder.py).
        interim: dict[str, str | list[str]] = dict(marked)
        for relative, digest in digests.items():
            old = marked.get(relative)
            interim[relative] = [old, digest] if isinstance(old, str) and old != digest else digest
        write_atomically(out_dir / BUILD_MARKER, write_marker(listed | set(files), hashes=interim))
    for relative in to_write:
        write_atomically(out_dir / relative, files[relative])
    for relative in to_delete:
        (out_dir / relative).unlink(missing_ok=True)
        remove_empty_folders((out_dir / relative).parent, out_dir)
    final = write_marker(files, hashes=digests)
    if not holds_content(out_dir / BUILD_MARKER, final):
        write_atomically(out_dir / BUILD_MARKER, final)
    return sorted(to_write + to_delete)


def holds_content(target: Path, content: bytes | Path) -> bool:
    """Say whether target already holds exactly `content` (bytes, or the bytes of a source file).

    Only a regular file of the right size is read, so a FIFO or a link to a device in its place is never opened.
    """
    try:
        status = os.lstat(target)
        if not stat.S_ISREG(status.st_mode):
            return False
        if isinstance(content, Path):
            if os.path.samefile(content, target):
                return True
            if content.stat().st_size != status.st_size:
                return False
            return content.read_bytes() == target.read_bytes()
        if status.st_size != len(content):
            return False
        return target.read_bytes() == content
    except OSError:
        return False


def remove_empty_folders(folder: Path, top: Path) -> None:
    """Remove folder and its parents up to (not including) top while they are empty."""
    while folder != top and top in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
