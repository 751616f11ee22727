"""The Pyodide runtime the pages ship, read by the assets stage (plan.py): the one read after `load_project`.

The runtime's own files are copied as they are (by path), but for Pyodide's
python_stdlib.zip, which the pages get cut into parts instead (stdlib_parts.py);
those parts, their directory and the trimmed lock file (lab_stdlib.py) are
derived here, and the WebAssembly's gzip copy (compressed_wasm.py), and the gzip copy of the zstd decoder's
WebAssembly that the workers decode the memory snapshot with (the npm package @bokuweb/zstd-wasm). All of them live in
one folder named after their bytes, pyodide/VERSION-HASH8 (site_assets.name_pyodide_folder), so a host may cache it forever.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sitegen.assets.compressed_copy import GZIP
from sitegen.assets.compressed_wasm import WASM, compress_wasm
from sitegen.assets.lab_stdlib import trim_lock_file
from sitegen.assets.site_assets import hash_name, name_pyodide_folder
from sitegen.assets.stdlib_parts import read_stdlib_parts, stamp
from sitegen.model import Project

# The workers' zstd decoder (docs/workers.md): served from the site as a file (the workers' policy refuses the data: URL
# zstd's other WebAssembly decoders load from), under a fixed name (the folder's name carries the hash) that
# client/python/pyodide-start.mjs knows, as gzip (80 KB for 252), which the worker's DecompressionStream decodes.
ZSTD_DECODER = Path("node_modules/@bokuweb/zstd-wasm/dist/web/zstd.wasm")
ZSTD_DECODER_NAME = "zstd-decoder.wasm.gz.bin"


@dataclass(frozen=True, eq=False)
class Runtime:
    """The runtime's files by name (a path to copy, or derived bytes), their folder, the stdlib's directory and the lock file's names."""

    files: Mapping[str, bytes | Path]
    folder: str
    stdlib_name: str
    lock_name: str
    wasm_name: str  # the gzip copy of pyodide.asm.wasm (compressed_wasm.py), the one form the pages fetch
    wasm: Path  # pyodide.asm.wasm itself: the snapshot's copy leaves out its data (wasm_data.py)
    decoder_name: str  # the gzip copy of the snapshot's zstd decoder, fetched by each worker that restores the snapshot


def read_runtime(project: Project) -> Runtime:
    """Cut the standard library into parts, trim the lock file, and name the runtime's folder."""
    runtime = {path.name: path for path in project.pyodide_files}
    stdlib_zip, full_lock = runtime.pop("python_stdlib.zip"), runtime["pyodide-lock.json"]
    stdlib = read_stdlib_parts(stdlib_zip, project.stdlib_cache)
    lock = trim_lab_lock_file(full_lock, stamp(full_lock))
    lock_name = hash_name("pyodide-lock.json", lock)
    wasm_name, wasm = compress_wasm(runtime[WASM], project.runtime_cache)
    files: dict[str, bytes | Path] = {**runtime, **stdlib.parts, stdlib.directory_name: stdlib.directory, lock_name: lock}
    files[wasm_name] = wasm
    files[ZSTD_DECODER_NAME] = GZIP.compress((project.root / ZSTD_DECODER).read_bytes())
    folder = name_pyodide_folder(files)
    return Runtime(files, folder, stdlib.directory_name, lock_name, wasm_name, runtime[WASM], ZSTD_DECODER_NAME)


# Remembered while the file is unchanged (its stamp is part of the key): the dev server renders the site on every edit.
@lru_cache(maxsize=4)
def trim_lab_lock_file(full_lock: Path, _stamp: tuple[int, int, int]) -> bytes:
    """Return the lock file without its package list (lab_stdlib.trim_lock_file)."""
    return trim_lock_file(full_lock)
