"""What the lab needs of Pyodide's standard library and lock file, and copying zip members as they are.

Pyodide's start-up and the lab's core import about 150 of the standard
library's 567 files. lab_stdlib.txt lists them, one zip member per line,
written by tests/pyodide/find_lab_stdlib.mjs (which starts Pyodide as the
worker does and exercises every widget); start_stdlib.txt, written by the
same script, lists the part of them a start with the cells' kernel imports.
The pages' standard library is cut into parts with these two lists first
(stdlib_parts.py); tests/pyodide checks the lists are still what the script
finds and runs the parity grid on a zip of the lab's files alone (trim_stdlib).
"""

from __future__ import annotations

import contextlib
import io
import json
import struct
import zipfile
from pathlib import Path

from sitegen.assets.site_assets import ZIP_TIMESTAMP

LAB_STDLIB_LIST = Path(__file__).with_name("lab_stdlib.txt")
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")  # a zip member's local header, before its name and extra field


def read_lab_stdlib_list(path: Path = LAB_STDLIB_LIST) -> tuple[str, ...]:
    """Return the zip members the lab needs, as listed (blank lines and # comments skipped)."""
    lines = (line.strip() for line in path.read_text(encoding="utf-8").splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))


def trim_lock_file(full_lock: Path) -> bytes:
    """Return Pyodide's lock file with its `info` and no packages: the lab loads none, and loadPyodide fetches the lock file.

    The package list is 119 KB of the 120 KB file; without it Pyodide starts
    the same way (the lock file only tells loadPackage where packages are).
    """
    info = json.loads(full_lock.read_text(encoding="utf-8"))["info"]
    return (json.dumps({"info": info, "packages": {}}, sort_keys=True, separators=(",", ":")) + "\n").encode()


def trim_stdlib(full_zip: Path | zipfile.ZipFile, members: tuple[str, ...]) -> bytes:
    """Return a deterministic zip of `members` of `full_zip`, their compressed bytes copied as they are.

    `full_zip` may be open already: cutting 36 parts from one zip opened once
    saves reading its central directory 36 times (stdlib_parts.py).

    Copying instead of recompressing keeps the build fast (no deflate of 3 MB
    of sources) and the output identical on every machine. zipfile has no
    public call for a raw copy, so each member's local header is written here
    and zipfile writes the central directory from the entries it is given.
    """
    output = io.BytesIO()
    opened = full_zip if isinstance(full_zip, zipfile.ZipFile) else zipfile.ZipFile(full_zip)
    with contextlib.nullcontext(opened) if opened is full_zip else opened as source, zipfile.ZipFile(output, "w") as target:
        source_file = source.fp
        assert source_file is not None
        for name in sorted(members):
            info = source.getinfo(name)  # KeyError names a member the pinned Pyodide no longer has
            source_file.seek(info.header_offset)
            header = _LOCAL_HEADER.unpack(source_file.read(_LOCAL_HEADER.size))
            name_length, extra_length = header[-2], header[-1]
            source_file.seek(info.header_offset + _LOCAL_HEADER.size + name_length + extra_length)
            data = source_file.read(info.compress_size)
            copy = zipfile.ZipInfo(name, date_time=ZIP_TIMESTAMP)
            copy.compress_type = info.compress_type
            copy.CRC, copy.compress_size, copy.file_size = info.CRC, info.compress_size, info.file_size
            copy.external_attr = 0o644 << 16
            copy.create_system = 3  # Unix, whatever the host, so the bytes match everywhere
            copy.header_offset = output.tell()
            output.write(copy.FileHeader())
            output.write(data)
            target.filelist.append(copy)
            target.NameToInfo[name] = copy
        target.start_dir = output.tell()
        # zipfile writes the central directory on close only when it wrote a member itself.
        target._didModify = True  # type: ignore[attr-defined]  # a private flag that typeshed does not declare
    return output.getvalue()
