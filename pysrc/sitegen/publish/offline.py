"""Offline reading: the service worker (sw.js) and its manifest, written from the build's own list of files.

Why a small hand-written worker (client/offline/service-worker.js) and
not Workbox: what the site needs beyond precaching is most of the work (the
reader's choice to keep Python's 14 MB, remembered across builds; a new build
installed whole and checked page by page against its hashes; HEAD answered
from the cache for the lab's wasm check; the first build taking over at once
and later ones only when the reader reloads). Workbox's build-time precaching
would bring its own runtime of several files and still need that code in an
injected worker; the whole worker here is about 230 lines with no dependency.

The manifest sorts every file the build writes into:
- shell: pages, styles, scripts, the search index, figures, fonts, the offline
  page: cached when the worker installs;
- runtime: what Python in the page needs (Pyodide's files, the memory
  snapshot, the core's zip, the cells' kernel and editor): cached on request.
Files whose names carry the hash of their own bytes ("name.HASH.ext", under
the immutable patterns of _headers) carry no revision: the worker checks them
against their name. Every other file (Pyodide's pyodide.mjs, whose folder's
name is the runtime's hash, not its own) carries a hash of its bytes, which the
worker checks, so a cache never mixes two builds nor keeps a damaged file.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from sitegen.assets.plan import size_of_output
from sitegen.files.hashes import hash_bytes, hash_file
from sitegen.files.paths import CLIENT_FOLDER, find_project_root
from sitegen.model import OFFLINE_PAGE
from sitegen.publish.host_headers import HEADERS_FILE, HeaderRule

SERVICE_WORKER = "sw.js"
OFFLINE_SIZES = "offline.json"
SERVICE_WORKER_SOURCE = find_project_root() / CLIENT_FOLDER / "offline/service-worker.js"
# Files a reader never needs offline: the host's headers, the sitemap for search engines,
# Pyodide's full lock file (the pages load the trimmed one), and its plain WebAssembly (9.6 MB): the pages
# compile the gzip copy, and fall back to the plain file only when that copy fails to arrive whole or to match
# its name, which a kept copy, checked when it was kept, cannot (client/python/python-worker.mjs).
_LEFT_OUT = (HEADERS_FILE, SERVICE_WORKER, "sitemap.xml", "*/pyodide-lock.json", "*/pyodide.asm.wasm")
_REVISION_LENGTH = 16


@dataclass(frozen=True)
class OfflineEntry:
    """One file the worker caches: its path under dist/, a hash of its bytes (None for a content-hashed name), its size."""

    path: str
    revision: str | None
    size: int


@dataclass(frozen=True)
class OfflineManifest:
    """What the worker caches at install (shell) and on the reader's request (runtime), and the build's version."""

    version: str
    shell: tuple[OfflineEntry, ...]
    runtime: tuple[OfflineEntry, ...]

    @property
    def shell_bytes(self) -> int:
        return sum(entry.size for entry in self.shell)

    @property
    def runtime_bytes(self) -> int:
        return sum(entry.size for entry in self.runtime)


# Remembered: the dev server plans the manifest after every edit, for the same names (and hash_bytes remembers the bytes).
@lru_cache(maxsize=4096)
def _matches(patterns: tuple[str, ...], name: str) -> bool:
    return any(HeaderRule(f"/{pattern}", ()).matches(f"/{name}") for pattern in patterns)


def _contents(data: bytes | Path) -> bytes:
    return data if isinstance(data, bytes) else data.read_bytes()


# What the worker reads as a content-named file's hash (service-worker.js, hashInName): the same pattern.
_HASH_IN_NAME = re.compile(r"\.([0-9a-f]{8,64})\.[^./]+$")


def _named_by_its_hash(name: str, data: bytes | Path) -> bool:
    """Say whether a file's name carries the start of its bytes' SHA-256 ("name.HASH.ext"), as the worker checks."""
    found = _HASH_IN_NAME.search(name)
    return found is not None and (hash_file(data) if isinstance(data, Path) else hash_bytes(data)).startswith(found[1])


def plan_offline_manifest(files: Mapping[str, bytes | Path], immutable: Iterable[str], runtime: Iterable[str]) -> OfflineManifest:
    """Sort the build's files into shell and runtime (`runtime`: path patterns, as for _headers); version them."""
    immutable, runtime = tuple(immutable), tuple(runtime)
    shell_entries: list[OfflineEntry] = []
    runtime_entries: list[OfflineEntry] = []
    for name in sorted(files):
        if _matches(_LEFT_OUT, name):
            continue
        data = files[name]
        if _matches(immutable, name) and _named_by_its_hash(name, data):
            entry = OfflineEntry(name, None, size_of_output(data))
        else:
            contents = _contents(data)
            entry = OfflineEntry(name, hash_bytes(contents)[:_REVISION_LENGTH], len(contents))
        (runtime_entries if _matches(runtime, name) else shell_entries).append(entry)
    described = json.dumps([[e.path, e.revision] for e in shell_entries + runtime_entries]).encode()
    version = hashlib.sha256(described).hexdigest()[:12]
    return OfflineManifest(version, tuple(shell_entries), tuple(runtime_entries))


def write_offline_sizes(manifest: OfflineManifest) -> bytes:
    """Return offline.json: the sizes the pages show before any worker runs (the Save-Data button's label)."""
    sizes = {"version": manifest.version, "shellBytes": manifest.shell_bytes, "runtimeBytes": manifest.runtime_bytes}
    return (json.dumps(sizes, sort_keys=True) + "\n").encode()


def write_service_worker(manifest: OfflineManifest, source: bytes) -> bytes:
    """Return sw.js: the manifest as a constant, then the worker's code (`source`: client/offline/service-worker.js)."""
    data = {
        "version": manifest.version,
        "offline": OFFLINE_PAGE,
        "shell": [[e.path, e.revision, e.size] for e in manifest.shell],
        "runtime": [[e.path, e.revision, e.size] for e in manifest.runtime],
        "runtimeBytes": manifest.runtime_bytes,
    }
    header = (
        f"// Written by the build (pysrc/sitegen/publish/offline.py).\nconst MANIFEST = {json.dumps(data, sort_keys=True)};\n"
    )
    return header.encode() + source
