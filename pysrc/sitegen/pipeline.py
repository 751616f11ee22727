"""The build as a story of stages, each a folder: read, check, assets, render, publish (docs/architecture.md).

    project = load_project(root, content_dir)   # read/: everything from disk, once
    checked = check_project(project)            # check/: parse, KaTeX, Python cells, validate; writes nothing
    files = make_site(checked)                  # assets/, render/, publish/: every file of the site, in memory
    result = build_site(project, out_dir)       # all of the above, then the atomic write (publish/write.py)

`make_site` is three stages in turn: `plan_assets` (assets/: every file the
pages point at, under its hashed name, the Python snapshot among them),
`render_site` (render/: the pages, the search index, the sitemap) and
`finish_site` (publish/: the offline manifest, the service worker, _headers).
Every stage looks kinds up in the registries of kinds/ (block kinds, page
kinds, link schemes, computed values); none names a particular kind.

`check_project` returns every problem (errors and warnings); `build_site`
raises `BuildFailed` carrying them when any is an error (or any warning, when
strict), and leaves out_dir untouched. Parsing and rendering are per page
(`check.parse.parse_page`, `render.pages.render_page`), pure functions of a page's text
and the shared `SiteContext`, which is what an incremental rebuild needs.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from sitegen.assets.plan import plan_site_assets
from sitegen.assets.python_snapshot import read_python_snapshot
from sitegen.assets.runtime import read_runtime
from sitegen.assets.site_assets import archive_core
from sitegen.assets.stdlib_parts import read_stdlib_parts
from sitegen.check.cell_runner import KERNEL_ASSET, CellRunner
from sitegen.check.formulas import KatexProcess, MathRenderer
from sitegen.check.parse import FigureParser, PageParser, parse_page, parse_project
from sitegen.check.validate import validate_project
from sitegen.context import SiteAssets, SiteContext
from sitegen.diagnostics import BuildFailed, Diagnostic, Location, sort_diagnostics
from sitegen.files.hashes import hash_bytes, hash_file
from sitegen.files.paths import CELL_CACHE, SNAPSHOT_RECORD
from sitegen.kinds.blocks.figure import number_figures
from sitegen.kinds.links.term import find_term_users
from sitegen.kinds.pages import PAGE_KINDS
from sitegen.kinds.pages.chapter import KIND as CHAPTERS
from sitegen.model import BuildResult, Cell, CellOutput, MathResult, Page, ParsedProject, Project, Source
from sitegen.publish.finish import finish_site
from sitegen.publish.up_to_date import RecordedFile
from sitegen.publish.write import write_site
from sitegen.read.figures import figure_name, parse_figure
from sitegen.read.load import load_project
from sitegen.render.core_results import core_caches, keep_core_results, remember_core_results
from sitegen.render.generated_figures import generate_figures
from sitegen.render.pages import render_page
from sitegen.render.search_index import SEARCH_INDEX, write_search_index
from sitegen.render.site import PageRenderer, render_site
from sitegen.speed.beside import Beside
from sitegen.speed.head_start import start_head_start

__all__ = ["CheckedProject", "build_site", "check_project", "load_project", "make_site"]

# Told each stage as it starts and how far it has got ("Parsing pages: 3/12", "Running Python cells (6 pages): 3 run"): commands/progress.py shows it.
Progress = Callable[[str], None]
CELL_PROGRESS_SECONDS = 0.25  # how often the count of cells run is looked at


@dataclass(frozen=True, eq=False)
class CheckedProject:
    """A parsed project, its rendered math, and every problem found (errors and warnings)."""

    project: Project
    parsed: ParsedProject
    math: dict[tuple[str, bool], MathResult]
    diagnostics: tuple[Diagnostic, ...]
    cells: dict[Location, CellOutput] = field(default_factory=dict)
    # How many of `cells` node ran in this check; the others came from .cache/cells.
    cells_run: int = 0

    def has_errors(self, strict: bool = False) -> bool:
        """Say whether the build must stop: any error, or any warning when strict."""
        return any(strict or not d.is_warning for d in self.diagnostics)

    @property
    def warnings(self) -> tuple[Diagnostic, ...]:
        """Return only the warnings."""
        return tuple(d for d in self.diagnostics if d.is_warning)


def ignore_progress(_text: str) -> None:
    """Report nothing: for callers with nobody watching a terminal (the dev server, check, tests)."""


def check_project(
    project: Project,
    katex: MathRenderer | None = None,
    parse: PageParser | None = None,
    cells: CellRunner | None = None,
    progress: Progress = ignore_progress,
    parse_svg: FigureParser = parse_figure,
) -> CheckedProject:
    """Parse every source, render all math in one KaTeX round trip, run the Python cells, and validate; write nothing.

    Pass a KaTeX process started earlier (see build_command) to overlap node's
    start-up with Python's; otherwise one is started and stopped here. `parse`
    replaces `parse.parse_page` (the dev server reuses unchanged pages);
    `cells` is a kept-alive cell runner (the dev server's), else one is made
    here and stopped at the end (it starts node only for cells not cached);
    `parse_svg` replaces `parse_figure` (a copy of the build parses the figures).
    """
    if katex is None:
        cached = project.math_cache is not None and project.math_cache.is_file()
        with KatexProcess(project.katex_script, project.math_cache, start_now=not cached) as own_katex:
            return check_project(project, own_katex, parse, cells, progress, parse_svg)
    parsed = parse_project(project, count_parsed_pages(parse or parse_page, project, progress), parse_svg)
    progress("Rendering math")
    math = katex.render((f.tex, f.display) for page in parsed.pages for f in page.formulas if f.tex)
    pages_with_cells = [page.cells for page in parsed.pages if page.cells]
    outputs: dict[Location, CellOutput] = {}
    cell_problems: list[Diagnostic] = []
    ran = 0
    if pages_with_cells:
        if cells is None:
            with create_cell_runner(project) as own_cells:
                outputs, cell_problems, ran = run_cells(own_cells, pages_with_cells, progress)
        else:
            outputs, cell_problems, ran = run_cells(cells, pages_with_cells, progress)
    figure_files = {figure_name(source): source.path for source in project.figures}
    placed = {placement.name for page in parsed.pages for placement in page.figure_placements}
    generated = generate_figures(placed - set(figure_files))
    parsed = replace(parsed, figures=parsed.figures + generated)
    figure_files |= {figure.name: figure.location.path for figure in generated}
    problems = (
        list(project.file_problems)
        + list(parsed.problems)
        + cell_problems
        + validate_project(parsed, math, figure_files, project.content_label)
    )
    return CheckedProject(project, parsed, math, sort_diagnostics(problems), outputs, ran)


def count_parsed_pages(parse: PageParser, project: Project, progress: Progress) -> PageParser:
    """Return `parse`, telling `progress` how many of the project's Markdown sources are parsed after each one."""
    total = len(project.chapters) + sum(
        1 for kind in PAGE_KINDS.values() if kind is not CHAPTERS and project.source_of(kind.name) is not None
    )
    done = 0
    progress(f"Parsing pages: 0/{total}")

    def parse_and_count(source: Source, kind: str, chapter_count: int, core: dict[str, str]) -> Page:
        nonlocal done
        page = parse(source, kind, chapter_count, core)
        done += 1
        progress(f"Parsing pages: {done}/{total}")
        return page

    return parse_and_count


def run_cells(
    cells: CellRunner, pages_with_cells: list[tuple[Cell, ...]], progress: Progress = ignore_progress
) -> tuple[dict[Location, CellOutput], list[Diagnostic], int]:
    """Run the pages' cells; return their outputs and problems, and how many ran (the others came from the cache)."""
    ran_before = cells.ran
    with report_cells_run(cells, len(pages_with_cells), progress):
        outputs, problems = cells.run(pages_with_cells)
    return outputs, problems, cells.ran - ran_before


@contextmanager
def report_cells_run(cells: CellRunner, pages: int, progress: Progress) -> Iterator[None]:
    """While the block runs, tell `progress` how many cells node has run so far ("Running Python cells (6 pages): 3 run").

    The runner reads the whole cache before it runs a page, and says only how
    many cells it ran (`ran`), so that count is watched, a few times a second.
    """
    before = cells.ran
    label = f"Running Python cells ({pages} page{'s' if pages != 1 else ''})"
    progress(f"{label}: 0 run")
    done = threading.Event()

    def watch() -> None:
        shown = 0
        while not done.wait(CELL_PROGRESS_SECONDS):
            if cells.ran - before != shown:
                shown = cells.ran - before
                progress(f"{label}: {shown} run")

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield
    finally:
        done.set()
        watcher.join()


def create_cell_runner(project: Project) -> CellRunner:
    """Return a runner for the project's cells: the kernel the pages ship, the core's zip, the cache under .cache/cells/.

    Its first start makes the memory snapshot the pages' Python starts from
    (the assets stage ships it), restored by every later start.
    """
    kernel = next((f.data for f in project.static_files if f.name == KERNEL_ASSET), b"")
    pyodide_folder = project.pyodide_files[0].parent if project.pyodide_files else project.root / "node_modules/pyodide"
    # The standard library as the pages get it, so the snapshot the runner makes is made with their layout.
    stdlib_zip = next((path for path in project.pyodide_files if path.name == "python_stdlib.zip"), None)
    stdlib = read_stdlib_parts(stdlib_zip, project.stdlib_cache) if stdlib_zip is not None else None
    parts = (stdlib.directory, stdlib.parts) if stdlib is not None else (b"", {})
    core = archive_core(project.core_modules)
    return CellRunner(pyodide_folder, kernel, core, project.root / CELL_CACHE, parts, project.root / SNAPSHOT_RECORD)


def build_site(
    project: Project,
    out_dir: Path,
    strict: bool = False,
    katex: MathRenderer | None = None,
    progress: Progress = ignore_progress,
    free_cores: float | None = None,
    recorded_files: Mapping[str, RecordedFile] | None = None,
) -> BuildResult:
    """Check the project, then make the site and write it atomically; raise BuildFailed on any error.

    The stages are the story; what only makes them faster (speed/head_start.py: a forked copy of the build, when
    `free_cores` leave a core) is handed to them and changes no byte. `recorded_files`: what the manifest records
    of out_dir (write_site).
    """
    kept = remember_core_results(core_caches(project))
    with start_head_start(project, free_cores, meanwhile=lambda: prepare_runtime(project)) as head_start:
        checked = check_project(project, katex, head_start.parse, progress=progress, parse_svg=head_start.parse_figure)
        if checked.has_errors(strict):
            raise BuildFailed(checked.diagnostics)
        render = count_rendered_pages(head_start.renderer(render_page), len(checked.parsed.pages), progress)
        files = make_site(checked, render, progress=progress, beside=head_start.beside)
    progress(f"Writing {len(files)} files")
    # Taken from what is written, for its marker and the manifest (the runtime's 14 MB were hashed already).
    digests = {name: hash_file(data) if isinstance(data, Path) else hash_bytes(data) for name, data in files.items()}
    write_site(files, out_dir, digests, recorded_files)
    keep_core_results(core_caches(project), kept)
    return BuildResult(
        out_dir=out_dir,
        files=tuple(sorted(files)),
        digests=digests,
        warnings=checked.warnings,
        cells_run=checked.cells_run,
        cells_cached=len(checked.cells) - checked.cells_run,
    )


def prepare_runtime(project: Project) -> None:
    """Read the runtime the pages ship and key the cell runner by it now: both are remembered, so the stages that
    need them later find them done (read and hashed: the standard library's parts, the runtime's files ≈ 14 MB)."""
    read_runtime(project)
    create_cell_runner(project).close()


def make_site(
    checked: CheckedProject,
    render: PageRenderer = render_page,
    static: dict[str, tuple[str, bytes]] | None = None,
    cells: CellRunner | None = None,
    progress: Progress = ignore_progress,
    beside: Beside | None = None,
) -> dict[str, bytes | Path]:
    """Return every file of a checked site: {path under dist/: bytes, or a runtime file to copy}.

    `render` replaces `render.pages.render_page` (the dev server passes one
    that reuses the HTML of pages whose inputs did not change); `static` is
    plan_static_files' answer for this project, when the caller has it;
    `cells` is a kept-alive cell runner (the dev server's), asked for the
    Python snapshot; `beside`: the copy that renders some of the pages (beside.py), sent the search documents (it
    makes the index while the assets are planned) and handed the site context.
    """
    if beside is not None:
        beside.send_documents(checked.parsed)
    assets = plan_assets(checked, static, cells, progress)
    site = create_site_context(checked, assets)
    if beside is not None:
        beside.hand_over(site)
    pages = render_site(
        checked.parsed,
        site,
        render,
        with_offline_page=assets.offline,
        rendered_last=beside.output_names if beside is not None else frozenset(),
        write_index=beside.index_writer() if beside is not None else write_search_index,
    )
    return finish_site({**assets.files, **pages}, assets)


def plan_assets(
    checked: CheckedProject,
    static: dict[str, tuple[str, bytes]] | None = None,
    cells: CellRunner | None = None,
    progress: Progress = ignore_progress,
) -> SiteAssets:
    """Return every file the pages point at, planned before any page is rendered (the Python snapshot among them)."""
    snapshot = make_python_snapshot(checked, cells, progress)
    return plan_site_assets(checked.project, checked.math, snapshot, bool(checked.cells), static)


def make_python_snapshot(checked: CheckedProject, cells: CellRunner | None, progress: Progress) -> bytes | None:
    """Return the memory snapshot the pages' Python starts from, when some page has Python (a cell or a lab); else None."""
    first = next((page for page in checked.parsed.pages if page.cells or page.has_lab), None)
    if first is None:
        return None
    progress("Making the pages' Python snapshot")  # instant when cached; else node starts Pyodide once
    if cells is None:
        with create_cell_runner(checked.project) as own_cells:
            return read_python_snapshot(own_cells, first.source.at(1))
    return read_python_snapshot(cells, first.source.at(1))


def count_rendered_pages(render: PageRenderer, total: int, progress: Progress) -> PageRenderer:
    """Return `render`, telling `progress` how many of the `total` pages are rendered after each one."""
    done = 0
    progress(f"Rendering pages: 0/{total}")

    def render_and_count(page: Page, site: SiteContext) -> str:
        nonlocal done
        html = render(page, site)
        done += 1
        progress(f"Rendering pages: {done}/{total}")
        return html

    return render_and_count


def create_site_context(checked: CheckedProject, assets: SiteAssets) -> SiteContext:
    """Return what rendering any one page needs to know about the whole site."""
    project, parsed = checked.project, checked.parsed
    return SiteContext(
        chapters=parsed.chapters,
        references=parsed.references,
        figures={figure.name: figure for figure in parsed.figures},
        figure_numbers=number_figures(parsed.chapters),
        math=checked.math,
        term_users=find_term_users(parsed.chapters),
        assets=assets.urls,
        lab=assets.lab,
        templates=project.templates,
        template_cache=project.template_cache,
        glossary=parsed.glossary,
        cells=checked.cells,
        cell_assets=assets.cells,
        search_index=SEARCH_INDEX,
        has_notation=parsed.notation is not None,
        base_url=project.base_url,
        site_config=project.site_config,
        last_updated=project.last_updated,
        head_script=assets.head_script,
    )
