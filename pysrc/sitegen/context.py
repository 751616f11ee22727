"""What rendering one page needs to know about the rest of the site: `SiteContext` and the asset URLs it carries.

A module of its own so that block kinds (kinds/blocks/*), which render with
it, and render/pages.py, which looks kinds up, do not import each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from sitegen.diagnostics import Location
from sitegen.model import CellOutput, Figure, MathResult, Page, Reference, SiteConfig


@dataclass(frozen=True)
class RuntimeUrls:
    """Where a page's Python starts from: the same files at the same URLs for the lab's worker and the cells'.

    One shape from the build to both workers: the page's JSON blocks carry
    these fields by name (`page_urls`), lab.js and cells.js post them to their
    worker's "init" as they are, and the workers pass them on to
    client/python/pyodide-start.mjs's startInBrowser (docs/workers.md).
    """

    pyodide: str  # the runtime's folder, pyodide/VERSION-HASH8/
    core: str  # the core's zip, lab/rollout_lab.HASH8.zip
    stdlib: str  # the standard library's directory of parts (sitegen/assets/stdlib_parts.py)
    lock: str  # Pyodide's lock file without its package list (sitegen/assets/lab_stdlib.py)
    wasm: str = ""  # pyodide.asm.wasm gzip-compressed (assets/compressed_wasm.py), compiled once by the page; "": none
    snapshot: str = ""  # the memory snapshot Python is restored from (assets/python_snapshot.py), or "": a plain start


@dataclass(frozen=True, eq=False)
class LabAssets:
    """The lab's module script, and the URLs its <script type="application/json" id="rollouts-lab"> data block gives lab.js."""

    script: str
    worker: str
    runtime: RuntimeUrls
    # The bytes a start fetches (the runtime's files, the snapshot among them): the progress bar's total from its first byte.
    start_bytes: int = 0
    # Those and the runtime's scripts the start imports: what the Save-Data button says a start downloads.
    download_bytes: int = 0

    def page_urls(self) -> dict[str, str]:
        """The data block's URLs, by name: the worker's and the runtime's."""
        return {"worker": self.worker, **asdict(self.runtime)}


@dataclass(frozen=True, eq=False)
class CellAssets:
    """The cells' module script, and the URLs their JSON data block (id rollouts-cells) gives cells.js."""

    script: str
    worker: str
    kernel: str
    editor: str
    runtime: RuntimeUrls  # the lab's: both workers fetch the same files
    start_bytes: int = 0  # as the lab's, with the kernel's

    def page_urls(self) -> dict[str, str]:
        """The data block's URLs, by name: the worker's, the kernel's, the editor's and the runtime's."""
        return {"worker": self.worker, "kernel": self.kernel, "editor": self.editor, **asdict(self.runtime)}


@dataclass(frozen=True, eq=False)
class SiteContext:
    """What rendering one page needs to know about the others.

    `assets` maps a name under site_templates/static/ (or katex.css, math.css)
    to its hashed URL.
    """

    chapters: tuple[Page, ...]
    references: tuple[Reference, ...]
    figures: Mapping[str, Figure]
    figure_numbers: Mapping[str, tuple[int, str]]
    math: Mapping[tuple[str, bool], MathResult]
    term_users: Mapping[str, tuple[Page, ...]]
    assets: Mapping[str, str]
    lab: LabAssets | None
    templates: tuple[tuple[str, str], ...]
    template_cache: Path | None = None
    # The reader's features: glossary definitions for previews, the
    # search index's URL, and the base URL from site.yaml ("" = relative only).
    glossary: Page | None = None
    # Python cells: the build's output of each cell, by where the cell opens; the cells' script and worker.
    cells: Mapping[Location, CellOutput] = field(default_factory=dict)
    cell_assets: CellAssets | None = None
    search_index: str = ""
    # The header links the notation page when the project has one (notation.md is optional).
    has_notation: bool = False
    base_url: str = ""
    # Issue 15: site.yaml's title/authors/year ("cite this page") and each source's last commit date.
    site_config: SiteConfig = field(default_factory=SiteConfig)
    last_updated: tuple[tuple[str, str], ...] = ()
    # js/theme.js's bundle, written into every page's <head> (SiteAssets.head_script).
    head_script: str = ""

    @property
    def references_by_key(self) -> dict[str, Reference]:
        """Return the references keyed by their key."""
        return {reference.key: reference for reference in self.references}


@dataclass(frozen=True, eq=False)
class SiteAssets:
    """What the assets stage plans before any page is rendered: every file the pages point at, and its URL.

    Rendering reads the URLs (through `SiteContext`); publishing reads what it
    must know of the files (publish/finish.py): the names that never change
    (`immutable`: cached for good by hosts, kept offline without a revision),
    what only Python uses (`python_only`: kept offline only when the reader
    asks), the workers' scripts, and whether the pages carry offline reading.
    """

    # A name under site_templates/static/ (or katex.css, math.css) -> its hashed URL.
    urls: Mapping[str, str]
    # Every asset by its path under dist/: bytes, or a runtime file to copy.
    files: Mapping[str, bytes | Path]
    lab: LabAssets | None
    cells: CellAssets | None
    immutable: tuple[str, ...]  # path patterns, as in _headers
    python_only: tuple[str, ...]  # path patterns
    workers: tuple[str, ...]  # the workers' script URLs
    offline: bool  # the pages carry js/offline.js (site.yaml's `offline`): publishing adds the service worker
    # js/theme.js's bundle, inline at the top of every page's <head> (allowed by its hash in the page's policy), not a
    # file: it must run before the first paint, and as a file it held the parser for a whole request (issue 40).
    head_script: str = ""
