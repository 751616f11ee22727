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


def copy_file(source: Path, target: Path) -> None:
    """Copy a large runtime file; a hard link when possible, because the wasm alone is ~10 MB."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)
