"""Write the site: build everything in a temporary folder beside dist/, then swap it in.

The last stage and the only one that writes. A failed build never gets here,
and an interrupted one leaves the previous dist/ in place.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path


def write_site(files: Mapping[str, bytes | Path], out_dir: Path) -> None:
    """Write `files` ({relative path: bytes, or a file to copy}) as the new out_dir, atomically swapped in."""
    out_dir = out_dir.resolve()
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}-new-", dir=out_dir.parent))
    try:
        for relative, content in sorted(files.items()):
            target = staging / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, Path):
                copy_file(content, target)
            else:
                target.write_bytes(content)
        os.chmod(staging, 0o755)
        swap_folders(staging, out_dir)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def copy_file(source: Path, target: Path) -> None:
    """Copy a large runtime file; a hard link when possible, because the wasm alone is ~10 MB."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def swap_folders(staging: Path, out_dir: Path) -> None:
    """Put staging where out_dir is; the old folder is removed only after the new one is in place.

    On Linux the two folders are exchanged in one atomic step (renameat2 with
    RENAME_EXCHANGE), so a reader or a server never sees a missing dist/;
    elsewhere two renames leave it missing for an instant.
    """
    if not out_dir.exists():
        os.rename(staging, out_dir)
        return
    if exchange_paths(staging, out_dir):
        shutil.rmtree(staging, ignore_errors=True)  # staging now holds the previous site
        return
    retired = Path(tempfile.mkdtemp(prefix=f".{out_dir.name}-old-", dir=out_dir.parent))
    os.rename(out_dir, retired / out_dir.name)
    os.rename(staging, out_dir)
    shutil.rmtree(retired, ignore_errors=True)


_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


def exchange_paths(first: Path, second: Path) -> bool:
    """Atomically swap two paths with Linux's renameat2; return False where that is unavailable."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    result = renameat2(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE)
    return result == 0
