"""Write a file beside its target and rename it into place: the one way the build writes a file others may read.

A reader (a browser on the dev server, a second build sharing `.cache/`, the
next build after a Ctrl-C) sees the old file or the new one, never half of
one. The temporary name is hidden and carries the process id, so two
processes writing the same file do not write into each other's.

Used by dist/'s incremental updates (publish/write.py) and by every cache
under `.cache/` (paths.py lists them): KaTeX's results, the cells' outputs,
the minified scripts, the editor bundle, the build manifest.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def write_atomically(target: Path, content: bytes | str | Path) -> None:
    """Write `content` (bytes, UTF-8 text, or a file to copy) beside `target` and rename it into place.

    The temporary file is removed when anything fails; the error still rises.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    temporary = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        if isinstance(content, Path):
            temporary.unlink(missing_ok=True)
            copy_file(content, temporary)
        elif isinstance(content, str):
            temporary.write_text(content, encoding="utf-8")
        else:
            temporary.write_bytes(content)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


# Linux's ioctl that makes target share source's blocks until either is written (btrfs, XFS, bcachefs: a reflink).
_FICLONE = 0x40049409


def copy_file(source: Path, target: Path) -> None:
    """Copy a large runtime file: a reflink where the file system has them (the wasm alone is ~10 MB), else a copy.

    Never a hard link: editing the output (dist/pyodide/...) would edit the
    build's own runtime in node_modules/, and every later build's cells with it.
    """
    try:
        import fcntl  # here: Windows has none, and a copy does as well

        with open(source, "rb") as reader, open(target, "wb") as writer:
            fcntl.ioctl(writer.fileno(), _FICLONE, reader.fileno())
        return
    except (ImportError, OSError):
        pass  # no reflinks here (ext4, tmpfs): copy the bytes
    shutil.copyfile(source, target)
