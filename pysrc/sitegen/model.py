"""The typed values that flow between the pipeline's stages.

All frozen: a stage returns new values and never edits what it was given, so
any stage can be re-run (or cached) for one page without surprises. Parsed
markdown-it tokens are kept as tuples and treated as read-only after parsing.

A value lives here, on the ground floor (docs/architecture.md, "The layers"),
when more than one stage reads it, even if one stage alone makes it: site.yaml's
settings (read/), a page's front matter (read/, then the page kinds), a cell
and its output (the cell kind, check/, render), KaTeX's result (check/, the
assets, render). So no stage imports another to learn a value's shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it.token import Token

from sitegen.diagnostics import Diagnostic, Location

# The keys under which the cell and figure block kinds record on a page (Page.records).
CELLS = "cells"
FIGURE_PLACEMENTS = "figure_placements"
LAB_PLACEMENTS = "lab_placements"

# The file names of the pages that are not chapters (chapters are NN-slug.html), wherever a link or a file needs one.
INDEX_PAGE = "index.html"
GLOSSARY_PAGE = "glossary.html"
NOTATION_PAGE = "notation.html"
REFERENCES_PAGE = "references.html"
NOT_FOUND_PAGE = "404.html"
OFFLINE_PAGE = "offline.html"  # what the service worker shows for a page it did not keep (publish/offline.py)


@dataclass(frozen=True)
class SiteConfig:
    """site.yaml's settings, every one optional: base_url; title, authors and year for "cite this page"; offline.

    Read by read/site_config.py; the pages' "cite this page" and the offline files follow them.
    """

    base_url: str = ""
    title: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None
    offline: bool = True


@dataclass(frozen=True)
class Source:
    """One text file from the content folder; `path` is how diagnostics print it, `name` its name in the folder."""

    path: str
    name: str
    text: str

    def at(self, line: int) -> Location:
        """Return a location in this file."""
        return Location(self.path, line)


@dataclass(frozen=True)
class StaticFile:
    """A file shipped under assets/ with a content hash in its name (CSS, JS, fonts)."""

    name: str
    data: bytes


@dataclass(frozen=True)
class Project:
    """Everything the build reads, read once by `load_project`.

    Later stages do no I/O but the caches under .cache/ (paths.py) and copying,
    except the assets stage: it reads the Pyodide runtime it ships
    (assets/runtime.py) before any page is rendered.
    """

    root: Path
    content_dir: Path
    chapters: tuple[Source, ...]
    stray_markdown: tuple[Source, ...]
    # The pages read from one file each (contents, glossary, notation...): (page kind, source), in reading order.
    page_sources: tuple[tuple[str, Source], ...]
    references: Source | None
    figures: tuple[Source, ...]
    core_modules: tuple[tuple[str, str], ...]
    templates: tuple[tuple[str, str], ...]
    static_files: tuple[StaticFile, ...]
    katex_stylesheet: str
    katex_fonts: tuple[StaticFile, ...]
    katex_script: Path
    pyodide_files: tuple[Path, ...]
    esbuild: Path
    esbuild_version: str
    content_label: str
    template_cache: Path | None = None
    math_cache: Path | None = None
    script_cache: Path | None = None
    stdlib_cache: Path | None = None
    runtime_cache: Path | None = None
    core_cache: Path | None = None
    values_cache: Path | None = None
    # From site.yaml (see site_config.py); "" keeps the output relative-only.
    base_url: str = ""
    # site.yaml's title, authors and year, for "cite this page".
    site_config: SiteConfig = field(default_factory=SiteConfig)
    # {content file name: "YYYY-MM-DD"}, the date of each source's last commit (history.py); empty without git.
    last_updated: tuple[tuple[str, str], ...] = ()
    # Content files that cannot be read as text (a FIFO, a dangling link, bad UTF-8): one diagnostic each.
    file_problems: tuple[Diagnostic, ...] = ()

    def source_of(self, kind: str) -> Source | None:
        """Return the source of the page of this kind (kinds/pages/), or None when the content folder has none."""
        return next((source for name, source in self.page_sources if name == kind), None)


@dataclass(frozen=True)
class Chapter:
    """A chapter's front matter: its number, slug, title and lede."""

    number: int
    slug: str
    title: str
    lede: str
    location: Location

    @property
    def output_name(self) -> str:
        """Return the chapter page's file name, e.g. 03-scoring.html."""
        return f"{self.number:02d}-{self.slug}.html"


@dataclass(frozen=True)
class FrontMatter:
    """The checked fields of one page (None where a field was missing or bad): read/front_matter.py reads them."""

    title: str | None
    lede: str | None
    chapter: int | None
    chapter_line: int


@dataclass(frozen=True)
class Term:
    """One glossary entry: its anchor key and the term as written."""

    key: str
    text: str
    location: Location


@dataclass(frozen=True)
class Reference:
    """One entry of references.yaml."""

    key: str
    short: str
    authors: tuple[str, ...]
    year: int
    title: str
    url: str
    location: Location
    venue: str = ""
    arxiv: str = ""
    note: str = ""
    # The source page's section anchors a citation may point at ({anchor: section title}), e.g. Spinning Up's #trajectories.
    sections: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Figure:
    """An SVG figure: its title and long description (from the SVG) and the markup to inline."""

    name: str
    title: str
    description: str
    svg: str
    location: Location


@dataclass(frozen=True)
class FigurePlacement:
    """Where a `::: figure` container shows a figure."""

    name: str
    location: Location


@dataclass(frozen=True)
class LabPlacement:
    """Where a `::: lab` container shows a widget: its anchor (lab-N) and the settings it starts from, by setting name."""

    anchor: str
    widget: str
    settings: tuple[tuple[str, str], ...]
    location: Location
    # Its slot's view (`update=hidden`), which may leave some controls out: no link may set those.
    view: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class NameUse:
    """A use of a named thing in prose: a link of a scheme (kinds/links/) that names a glossary term, a source, a figure..."""

    key: str
    location: Location
    # What follows the key: a citation's section in the source (`cite:key#anchor`), a lab link's query
    # (`lab:sampler?T=2` gives "T=2"); "" for every other use.
    anchor: str = ""
    # The link scheme that made it: "term", "cite", "figure", ...
    scheme: str = ""


@dataclass(frozen=True)
class InternalLink:
    """A link to another page of the site (or an anchor on this one); `page` "" means this page."""

    page: str
    anchor: str | None
    location: Location


@dataclass(frozen=True)
class Formula:
    """One piece of TeX in the prose."""

    tex: str
    display: bool
    location: Location


@dataclass(frozen=True)
class MathResult:
    """KaTeX's HTML for one formula (styles moved to classes), or KaTeX's error message (check/formulas.py)."""

    html: str = ""
    styles: frozenset[str] = frozenset()
    error: str = ""
    tried: bool = True  # False: left unrendered when the request's time budget ran out (tried again next time)


DEFAULT_TIMEOUT = 10.0  # seconds a cell may run unless its `#| timeout:` says otherwise


@dataclass(frozen=True)
class CellOptions:
    """A cell's `#| key: value` options (the cell kind reads them: kinds/blocks/cell.py)."""

    expect_error: bool = False
    timeout: float = DEFAULT_TIMEOUT


@dataclass(frozen=True)
class Cell:
    """One ```{python} block (the block kind's data): its number on the page (from 1), the code shown and run, its options."""

    number: int
    code: str
    options: CellOptions
    location: Location  # the opening fence
    code_line: int = 0  # the file's line of the code's first line (after the option lines)


@dataclass(frozen=True)
class CellOutput:
    """What a cell printed: [stream, text] segments (stdout, stderr, result, error), and whether it raised."""

    segments: tuple[tuple[str, str], ...]
    raised: bool = False

    @property
    def text(self) -> str:
        """Return the whole output as one text."""
        return "".join(text for _stream, text in self.segments)

    def to_json(self) -> dict[str, object]:
        """Return the form stored in the cache and compared with the browser's."""
        return {"output": [list(segment) for segment in self.segments], "raised": self.raised}


@dataclass(frozen=True, eq=False)
class Page:
    """One parsed Markdown page with everything it uses, ready to validate and render."""

    kind: str  # its page kind's name (kinds/pages/)
    source: Source
    output_name: str
    title: str
    lede: str
    chapter: Chapter | None
    tokens: tuple[Token, ...]
    anchors: frozenset[str]
    # Every link scheme's uses (kinds/links/), in reading order; `uses_of(scheme)` picks one scheme's.
    uses: tuple[NameUse, ...] = ()
    links: tuple[InternalLink, ...] = ()
    formulas: tuple[Formula, ...] = ()
    terms: tuple[Term, ...] = ()
    has_lab: bool = False
    # What block kinds recorded on the page, by a key of each kind's own (BlockKind.record), each in reading order.
    records: tuple[tuple[str, tuple[object, ...]], ...] = ()
    problems: tuple[Diagnostic, ...] = ()

    def records_of(self, key: str) -> tuple[object, ...]:
        """Return what block kinds recorded on the page under `key`, in reading order."""
        return next((items for name, items in self.records if name == key), ())

    # The two records the later stages read, typed (kinds/blocks/cell.py and figure.py record them).
    @property
    def cells(self) -> tuple[Cell, ...]:
        """Return the page's Python cells, in order (the pipeline runs them)."""
        return tuple(item for item in self.records_of(CELLS) if isinstance(item, Cell))

    @property
    def figure_placements(self) -> tuple[FigurePlacement, ...]:
        """Return where the page shows figures (numbered site-wide in reading order)."""
        return tuple(item for item in self.records_of(FIGURE_PLACEMENTS) if isinstance(item, FigurePlacement))

    @property
    def lab_placements(self) -> tuple[LabPlacement, ...]:
        """Return the page's labs, in reading order (lab links set them)."""
        return tuple(item for item in self.records_of(LAB_PLACEMENTS) if isinstance(item, LabPlacement))

    def uses_of(self, scheme: str) -> tuple[NameUse, ...]:
        """Return the page's uses of one link scheme, in reading order."""
        return tuple(use for use in self.uses if use.scheme == scheme)

    # The three schemes the render and the tutorial's tests read most, by their usual names.
    @property
    def terms_used(self) -> tuple[NameUse, ...]:
        """Return the glossary terms the page links to (`term:`)."""
        return self.uses_of("term")

    @property
    def citations(self) -> tuple[NameUse, ...]:
        """Return the page's citations (`cite:`)."""
        return self.uses_of("cite")

    @property
    def figure_references(self) -> tuple[NameUse, ...]:
        """Return the page's references to figures (`figure:`)."""
        return self.uses_of("figure")


@dataclass(frozen=True, eq=False)
class ParsedProject:
    """Every source parsed, with the problems each one has on its own."""

    # Every Markdown page in reading order (the page kinds' order, chapters by number); the chapters alone.
    pages: tuple[Page, ...]
    chapters: tuple[Page, ...]
    references: tuple[Reference, ...]
    figures: tuple[Figure, ...]
    problems: tuple[Diagnostic, ...]
    has_references_file: bool = True
    # False when references.yaml is there but not a list (or not YAML): its citations cannot be checked.
    references_readable: bool = True

    def page(self, kind: str) -> Page | None:
        """Return the page of a kind read from one file (contents, glossary...), or None."""
        return next((page for page in self.pages if page.kind == kind), None)

    # The pages other pages read, by their usual names.
    @property
    def index(self) -> Page | None:
        """Return the contents page."""
        return self.page("index")

    @property
    def glossary(self) -> Page | None:
        """Return the glossary (its terms are what `term:` links name)."""
        return self.page("glossary")

    @property
    def notation(self) -> Page | None:
        """Return the notation page."""
        return self.page("notation")


@dataclass(frozen=True)
class BuildResult:
    """What a successful build wrote, and the warnings it found."""

    out_dir: Path
    files: tuple[str, ...]
    warnings: tuple[Diagnostic, ...] = field(default=())
    cells_run: int = 0  # Python cells node ran
    cells_cached: int = 0  # Python cells answered from .cache/cells
    # Each written file's SHA-256, by its path under out_dir, for the up-to-date record (publish/up_to_date.py).
    digests: Mapping[str, str] = field(default_factory=dict)

    @property
    def page_count(self) -> int:
        """Return how many HTML pages the build wrote (chapters, the single pages, references, 404, offline)."""
        return sum(1 for name in self.files if name.endswith(".html"))
