"""Rebuild only what a change affects, for `build.py serve`; the output always equals a full build's, byte for byte.

A `SiteSession` lives as long as the dev server's build process and remembers
three things between rebuilds:

- parsed pages, keyed by everything `parse_page` reads (the file's text, its
  kind, the chapter count, the core's source), so an unchanged file is not
  parsed again;
- KaTeX's results, in memory (the disk cache costs a file read and a hash of
  KaTeX itself on every build);
- rendered pages, keyed by a description of everything `render_page` reads
  (`describe_render_inputs`), so a page is rendered again only when one of
  those inputs changed: an edit to chapter 3's prose re-renders chapter 3;
  a new title also re-renders its neighbours (previous/next) and the contents
  page; a new term use re-renders the glossary ("Used in").

Validation, the shared assets and the small site-wide files are recomputed
each time: they are cheap, and going through `check_project` and
`make_site` keeps the one full pipeline the single definition of the site.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any

from sitegen.assets.plan import plan_static_files
from sitegen.check.cell_runner import KERNEL_ASSET, CellRunner
from sitegen.check.formulas import KatexProcess
from sitegen.check.parse import PageParser, parse_page
from sitegen.context import SiteContext
from sitegen.diagnostics import BuildFailed, Diagnostic
from sitegen.kinds.blocks import KINDS
from sitegen.kinds.blocks.base import BlockKind
from sitegen.kinds.links import SCHEMES
from sitegen.kinds.links.base import LinkScheme
from sitegen.kinds.pages import PAGE_KINDS
from sitegen.kinds.pages.base import PageKind
from sitegen.model import MathResult, Page, Project, Source
from sitegen.pipeline import check_project, create_cell_runner, make_site
from sitegen.read.load import load_project, reload_content
from sitegen.render.core_results import CoreResults, core_caches, keep_core_results, remember_core_results
from sitegen.render.pages import render_page
from sitegen.render.site import encode_page

# SiteContext fields that every page's render reads in parts (render/pages.py): the chapter count, the page's
# formulas, the assets' URLs, the lab's and the cells' scripts on pages that have them. The kinds declare the
# fields their own `render_inputs` read (`site_fields`). Any other field (a later feature's) is compared whole
# for every page: a page may then be re-rendered needlessly, but never left stale.
_PAGE_READS_IN_PARTS = frozenset({"chapters", "math", "assets", "lab", "cell_assets"})


def list_render_inputs_providers() -> tuple[PageKind | BlockKind[Any] | LinkScheme, ...]:
    """Return every registered kind that may declare what a page's render reads of the site (read afresh: a test
    may register a kind)."""
    return (*PAGE_KINDS.values(), *KINDS.values(), *SCHEMES.values())


def list_fields_read_in_parts() -> frozenset[str]:
    """Return the SiteContext fields that describe_render_inputs reads in parts: the page's own and the kinds'."""
    return _PAGE_READS_IN_PARTS.union(*(kind.site_fields for kind in list_render_inputs_providers()))


# Takes a page's path under dist/ and its bytes, the moment the page is rendered (SiteSession.rebuild).
PagePublisher = Callable[[str, bytes], None]


@dataclass(frozen=True)
class Rebuild:
    """One successful (re)build: every output file, the pages rendered afresh, the warnings, the time taken."""

    files: Mapping[str, bytes | Path]
    rendered: tuple[str, ...]
    warnings: tuple[Diagnostic, ...]
    seconds: float


class RememberedMath:
    """KaTeX with an in-memory memory of every formula it rendered this session (same interface as KatexProcess.render)."""

    def __init__(self, katex: KatexProcess) -> None:
        self._katex = katex
        self._results: dict[tuple[str, bool], MathResult] = {}

    def render(self, formulas: Iterable[tuple[str, bool]]) -> dict[tuple[str, bool], MathResult]:
        """Return a result for each distinct formula; only formulas never seen before go to KaTeX."""
        unique = sorted(set(formulas))
        missing = [formula for formula in unique if formula not in self._results]
        if missing:
            rendered = self._katex.render(missing)
            # One left unrendered (the request's time budget ran out) is tried again at the next rebuild.
            self._results.update((formula, result) for formula, result in rendered.items() if result.tried)
            return {formula: self._results.get(formula) or rendered[formula] for formula in unique}
        return {formula: self._results[formula] for formula in unique}


class SessionCells:
    """One cell runner for the whole session, replaced only when the kernel or the core changes (each page it runs gets
    a node process of its own, started before it is needed)."""

    def __init__(self) -> None:
        self._runner: CellRunner | None = None
        self._inputs: tuple[bytes, tuple[tuple[str, str], ...]] | None = None

    def runner_for(self, project: Project) -> CellRunner:
        """Return the session's runner for this project's kernel and core, starting a new one only if they changed."""
        inputs = (next((f.data for f in project.static_files if f.name == KERNEL_ASSET), b""), project.core_modules)
        if self._runner is None or inputs != self._inputs:
            self.close()
            self._runner, self._inputs = create_cell_runner(project), inputs
            self._runner.keep_spare = True  # each edit's page gets a fresh runner: one waits, already restored
        return self._runner

    def close(self) -> None:
        """Stop the runner's node process, if any."""
        if self._runner is not None:
            self._runner.close()
            self._runner = None


class SiteSession:
    """The state of one dev-server session: the project as last read and what was parsed and rendered from it."""

    def __init__(self, root: Path, content_dir: str | Path | None, katex: KatexProcess, strict: bool = False) -> None:
        self._root = root
        self._content_dir = content_dir
        self._math = RememberedMath(katex)
        self._cells = SessionCells()
        self._strict = strict
        self._project: Project | None = None
        self._parsed: dict[tuple[object, ...], Page] = {}
        self._rendered: dict[str, tuple[tuple[object, ...], str]] = {}
        # The templates' static files, minified (plan_static_files), by whether the pages have cells (the editor's
        # bundle): they change only with the templates and static files, which only a full reload reads again.
        self._static: dict[bool, dict[str, tuple[str, bytes]]] = {}
        self._kept: CoreResults | None = None  # the core's results the tool's cache held when the session began
        self._assets: tuple[object, ...] | None = None  # the assets' URLs the last build's pages point at

    def rebuild(self, reload_everything: bool = False, publish: PagePublisher | None = None) -> Rebuild:
        """Read the sources again and rebuild what changed; raise BuildFailed (and keep the last state) on problems.

        Only the content folder is read again, unless `reload_everything`
        (templates and static files changed too) or nothing was read yet.
        `publish(name, bytes)`, when given, gets each page rendered afresh the
        moment it is rendered, before the search index and the other
        site-wide files are made: the page an author edited is served sooner.
        Only a content edit's pages go early, and only pages that existed and
        point at the same assets as before (a page never points at a file not
        yet written); the checks that can fail a build have all passed by then.
        """
        started = time.perf_counter()
        if self._project is None or reload_everything:
            project = load_project(self._root, self._content_dir)
            self._static.clear()
            if self._kept is None:
                self._kept = remember_core_results(core_caches(project))
        else:
            project = reload_content(self._project)
        self._project = project
        parsed_now: dict[tuple[object, ...], Page] = {}
        cells = self._cells.runner_for(project)
        checked = check_project(project, self._math, self._remember_parse(parsed_now), cells)
        if checked.has_errors(self._strict):
            # Keep the last good build's pages too: fixing the mistake usually
            # brings back their exact text, which then needs no parsing.
            self._parsed = {**self._parsed, **parsed_now}
            raise BuildFailed(checked.diagnostics)
        self._parsed = parsed_now
        rendered_now: dict[str, tuple[tuple[object, ...], str]] = {}
        fresh: list[str] = []
        described: list[tuple[SiteContext, SiteInputs]] = []  # the site's shared inputs, described once

        def render_if_changed(page: Page, site: SiteContext) -> str:
            if not described or described[0][0] is not site:
                described[:] = [(site, describe_site_inputs(site))]
            inputs = describe_render_inputs(page, site, described[0][1])
            earlier = self._rendered.get(page.output_name)
            if earlier is not None and earlier[0] == inputs:
                html = earlier[1]
            else:
                html = render_page(page, site)
                fresh.append(page.output_name)
                same_assets = described[0][1].assets == self._assets
                if publish is not None and earlier is not None and not reload_everything and same_assets:
                    publish(page.output_name, encode_page(html))
            rendered_now[page.output_name] = (inputs, html)
            return html

        with_editor = bool(checked.cells)
        if with_editor not in self._static:
            self._static[with_editor] = plan_static_files(project, with_editor)
        files = make_site(checked, render_if_changed, self._static[with_editor], cells=cells)
        self._rendered = rendered_now
        self._assets = described[0][1].assets if described else None
        if self._kept is not None:
            self._kept = keep_core_results(core_caches(project), self._kept)
        return Rebuild(files, tuple(fresh), checked.warnings, time.perf_counter() - started)

    def close(self) -> None:
        """Stop the processes the session keeps (the cells' node; KaTeX belongs to the caller)."""
        self._cells.close()

    def _remember_parse(self, parsed_now: dict[tuple[object, ...], Page]) -> PageParser:
        """Return a parse_page that reuses this session's earlier pages (and records the ones used now)."""

        def parse_or_reuse(source: Source, kind: str, chapter_count: int, core_modules: dict[str, str]) -> Page:
            key = (source, kind, chapter_count, tuple(sorted(core_modules.items())))
            page = self._parsed.get(key) or parsed_now.get(key) or parse_page(source, kind, chapter_count, core_modules)
            parsed_now[key] = page
            return page

        return parse_or_reuse


@dataclass(frozen=True)
class SiteInputs:
    """What every page's render reads of the site alike, described once per rebuild.

    `lab` and `cell_assets` are read only by pages with a lab or cells; they are
    described here, whole, rather than once per such page.
    """

    assets: tuple[object, ...]
    others: tuple[object, ...]
    lab: tuple[object, ...] | None
    cell_assets: tuple[object, ...] | None


def describe_site_inputs(site: SiteContext) -> SiteInputs:
    """Return what every page's render reads of the site alike: the assets' URLs and each field not read in parts."""
    in_parts = list_fields_read_in_parts()
    others = tuple((field.name, getattr(site, field.name)) for field in fields(site) if field.name not in in_parts)
    # The lab's and the cells' script and URLs, the runtime's among them, whole (a field added later is compared too).
    lab = astuple(site.lab) if site.lab else None
    cell_assets = astuple(site.cell_assets) if site.cell_assets else None
    return SiteInputs(tuple(site.assets.items()), others, lab, cell_assets)


def describe_render_inputs(page: Page, site: SiteContext, site_inputs: SiteInputs | None = None) -> tuple[object, ...]:
    """Return everything render_page reads for this page, as a value to compare with the last build's.

    Parsed pages are reused while their text is unchanged, so a page compares
    by identity. The description must cover every input: a missing one
    would leave a stale page after an edit (tests/site/serve/test_serve_incremental.py
    compares incremental output with full builds to catch exactly that).
    `site_inputs`: describe_site_inputs(site), when the caller has it (it is the same for every page).
    """
    # What the page's kind, and the kinds of its blocks and links, read of the site (a list of chapters, the terms'
    # users, figure numbers, cited sources, cell outputs): each kind declares it.
    kind_inputs = (
        PAGE_KINDS[page.kind].render_inputs(page, site),
        *(kind.render_inputs(page, site) for kind in KINDS.values()),
        *(scheme.render_inputs(page, site) for scheme in SCHEMES.values()),
    )
    math = tuple(site.math.get((formula.tex, formula.display)) for formula in page.formulas)
    shared = site_inputs if site_inputs is not None else describe_site_inputs(site)
    return (
        page,
        len(site.chapters),
        kind_inputs,
        math,
        shared.lab if page.has_lab else None,
        shared.cell_assets if page.cells else None,
        shared.assets,
        shared.others,
    )
