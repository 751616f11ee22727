"""The build as a story: load, parse, validate, render, write (the folders: read/, check/, render/ and assets/, publish/).

Every stage looks kinds up in the registries of kinds/ (block kinds, page
kinds, link schemes, computed values); none names a particular kind.

Public entry points (for the CLI, and for `build.py serve` / `build.py check` later):

    project = load_project(root, content_dir)       # read everything (I/O)
    checked = check_project(project)                # parse + KaTeX + validate, writes nothing
    result  = build_site(project, out_dir)          # all of the above, then render and write

`check_project` returns every problem (errors and warnings); `build_site`
raises `BuildFailed` carrying them when any is an error (or any warning, when
strict), and leaves out_dir untouched. Parsing and rendering are per page
(`check.parse.parse_page`, `render.pages.render_page`), pure functions of a page's text
and the shared `SiteContext`, which is what an incremental rebuild needs.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path

from sitegen.assets.editor_bundle import EDITOR_ASSET, bundle_editor
from sitegen.assets.runtime import Runtime, read_runtime
from sitegen.assets.scripts import minify_scripts
from sitegen.assets.site_assets import (
    ASSETS_FOLDER,
    RECORDED_RUN,
    archive_core,
    hash_name,
    place_pyodide_files,
    plan_katex_assets,
    plan_math_stylesheet,
    plan_static_assets,
    write_recorded_run,
)
from sitegen.assets.site_root import ROOT_MARKER, ROOT_MARKER_TEXT
from sitegen.assets.stdlib_parts import read_stdlib_parts
from sitegen.assets.stylesheets import shrink_stylesheets
from sitegen.check.cells import KERNEL_ASSET, Cell, CellOutput, CellRunner
from sitegen.check.formulas import KatexProcess, MathRenderer, MathResult, write_math_stylesheet
from sitegen.check.parse import PageParser, parse_page, parse_project
from sitegen.check.validate import validate_project
from sitegen.context import CellAssets, LabAssets, RuntimeUrls, SiteContext
from sitegen.diagnostics import BuildFailed, Diagnostic, Location, sort_diagnostics
from sitegen.kinds.pages import PAGE_KINDS
from sitegen.kinds.pages.chapter import KIND as CHAPTERS
from sitegen.model import NOT_FOUND_PAGE, REFERENCES_PAGE, BuildResult, Page, ParsedProject, Project, Source
from sitegen.paths import CELL_CACHE, TEMPLATES_FOLDER
from sitegen.publish.host_headers import HEADERS_FILE, plan_header_rules, write_headers
from sitegen.publish.offline import (
    OFFLINE_PAGE,
    OFFLINE_SIZES,
    SERVICE_WORKER,
    SERVICE_WORKER_SOURCE,
    plan_offline_manifest,
    write_offline_sizes,
    write_service_worker,
)
from sitegen.publish.write import write_site
from sitegen.read.figures import figure_name
from sitegen.read.load import STATIC_FOLDER, load_project
from sitegen.render.generated_figures import generate_figures
from sitegen.render.pages import (
    find_term_users,
    number_figures,
    render_not_found_page,
    render_offline_page,
    render_page,
    render_references_page,
    report_template_errors,
)
from sitegen.render.search_index import SEARCH_INDEX, list_search_documents, write_search_index
from sitegen.render.sitemap import SITEMAP, write_sitemap

__all__ = ["CheckedProject", "build_site", "check_project", "load_project", "render_site"]

PageRenderer = Callable[[Page, SiteContext], str]
# Told each stage as it starts and how far it has got ("Parsing pages: 3/12", "Running Python cells (6 pages): 3 run"): commands/progress.py shows it.
Progress = Callable[[str], None]
CELL_PROGRESS_SECONDS = 0.25  # how often the count of cells run is looked at
LAB_SCRIPT = "js/lab.js"
LAB_WORKER = "js/lab-worker.js"
CELLS_SCRIPT = "js/cells.js"
CELL_WORKER = "js/cell-worker.js"
CELL_EDITOR = EDITOR_ASSET
OFFLINE_SCRIPT = "js/offline.js"


@dataclass(frozen=True, eq=False)
class CheckedProject:
    """A parsed project, its rendered math, and every problem found (errors and warnings)."""

    project: Project
    parsed: ParsedProject
    math: dict[tuple[str, bool], MathResult]
    diagnostics: tuple[Diagnostic, ...]
    cells: dict[Location, CellOutput] = field(default_factory=dict)
    # The gzip-compressed memory snapshot the pages' Python starts from (cells.py), or None: a plain start.
    snapshot: bytes | None = None
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
) -> CheckedProject:
    """Parse every source, render all math in one KaTeX round trip, run the Python cells, and validate; write nothing.

    Pass a KaTeX process started earlier (see build_command) to overlap node's
    start-up with Python's; otherwise one is started and stopped here. `parse`
    replaces `parse.parse_page` (the dev server reuses unchanged pages);
    `cells` is a kept-alive cell runner (the dev server's), else one is made
    here and stopped at the end (it starts node only for cells not cached).
    """
    if katex is None:
        cached = project.math_cache is not None and project.math_cache.is_file()
        with KatexProcess(project.katex_script, project.math_cache, start_now=not cached) as own_katex:
            return check_project(project, own_katex, parse, cells, progress)
    parsed = parse_project(project, count_parsed_pages(parse or parse_page, project, progress))
    progress("Rendering math")
    math = katex.render((f.tex, f.display) for page in parsed.pages for f in page.formulas if f.tex)
    pages_with_cells = [page.cells for page in parsed.pages if page.cells]
    outputs: dict[Location, CellOutput] = {}
    cell_problems: list[Diagnostic] = []
    snapshot: bytes | None = None
    ran = 0
    python_pages = [page for page in parsed.pages if page.cells or page.has_lab]
    if python_pages:
        if cells is None:
            with create_cell_runner(project) as own_cells:
                outputs, cell_problems, snapshot, ran = run_python(own_cells, pages_with_cells, python_pages[0], progress)
        else:
            outputs, cell_problems, snapshot, ran = run_python(cells, pages_with_cells, python_pages[0], progress)
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
    return CheckedProject(project, parsed, math, sort_diagnostics(problems), outputs, snapshot, ran)


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


def run_python(
    cells: CellRunner, pages_with_cells: list[tuple[Cell, ...]], first: Page, progress: Progress = ignore_progress
) -> tuple[dict[Location, CellOutput], list[Diagnostic], bytes | None, int]:
    """Run the pages' cells; return their outputs and problems, the snapshot the pages' Python starts from, and how many ran.

    A cell that did not run came from the cache.
    """
    ran_before = cells.ran
    if pages_with_cells:
        with report_cells_run(cells, len(pages_with_cells), progress):
            outputs, problems = cells.run(pages_with_cells)
    else:
        outputs, problems = {}, []
    progress("Making the pages' Python snapshot")  # instant when cached; else node starts Pyodide once
    return outputs, problems, cells.read_snapshot(first.source.at(1)), cells.ran - ran_before


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
    """Return a runner for the project's cells: the kernel the pages ship, the core's zip, the cache under .cache/cells/."""
    kernel = next((f.data for f in project.static_files if f.name == KERNEL_ASSET), b"")
    pyodide_folder = project.pyodide_files[0].parent if project.pyodide_files else project.root / "node_modules/pyodide"
    # The standard library as the pages get it, so the snapshot the runner makes is made with their layout.
    stdlib_zip = next((path for path in project.pyodide_files if path.name == "python_stdlib.zip"), None)
    stdlib = read_stdlib_parts(stdlib_zip) if stdlib_zip is not None else None
    parts = (stdlib.directory, stdlib.parts) if stdlib is not None else (b"", {})
    return CellRunner(pyodide_folder, kernel, archive_core(project.core_modules), project.root / CELL_CACHE, parts)


def build_site(
    project: Project,
    out_dir: Path,
    strict: bool = False,
    katex: MathRenderer | None = None,
    progress: Progress = ignore_progress,
) -> BuildResult:
    """Check the project, then render and atomically write the site; raise BuildFailed on any error."""
    # esbuild minifies the scripts on the other core while this one parses (it needs only the templates' files, and
    # whether any page has cells, guessed from the text: a wrong guess is only a lost head start).
    with_editor = mentions_cells(project)
    with ThreadPoolExecutor(max_workers=1) as early:
        static = early.submit(plan_site_static_assets, project, with_editor)
        checked = check_project(project, katex, progress=progress)
        if checked.has_errors(strict):
            raise BuildFailed(checked.diagnostics)
        guessed = static.result() if with_editor == bool(checked.cells) else None
    files = render_site(checked, count_rendered_pages(render_page, len(checked.parsed.pages), progress), guessed)
    progress(f"Writing {len(files)} files")
    write_site(files, out_dir)
    return BuildResult(
        out_dir=out_dir,
        files=tuple(sorted(files)),
        warnings=checked.warnings,
        cells_run=checked.cells_run,
        cells_cached=len(checked.cells) - checked.cells_run,
    )


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


def plan_site_static_assets(project: Project, with_editor: bool = False) -> dict[str, tuple[str, bytes]]:
    """Return the templates' own static files, scripts minified, under their hashed URLs (and the cell editor's bundle)."""
    static_dir = project.root / TEMPLATES_FOLDER / STATIC_FOLDER
    scripts = minify_scripts(project.static_files, project.esbuild, project.esbuild_version, project.script_cache, static_dir)
    if with_editor:
        scripts += (bundle_editor(project),)
    return plan_static_assets(scripts)


# A cell's opening fence (```{python}, ~~~~{python}, …) at the start of a line: check/parse.py decides what is one.
_CELL_FENCE = re.compile(r"^ {0,3}(?:`{3,}|~{3,})\s*\{python\}", re.MULTILINE)


def mentions_cells(project: Project) -> bool:
    """Guess, before parsing, whether any page has a Python cell (and so needs the cell editor's bundle)."""
    sources = [*project.chapters, *(source for _kind, source in project.page_sources)]
    return any(_CELL_FENCE.search(source.text) for source in sources)


def create_site_context(
    checked: CheckedProject,
    lab: LabAssets | None = None,
    static: dict[str, tuple[str, bytes]] | None = None,
    cells: CellAssets | None = None,
) -> SiteContext:
    """Return what rendering any one page needs to know about the whole site.

    `static`: plan_site_static_assets' result, when the caller has it already.
    """
    project, parsed = checked.project, checked.parsed
    static = static if static is not None else plan_site_static_assets(project, with_editor=bool(checked.cells))
    katex = plan_katex_assets(project)
    used_styles = {style for result in checked.math.values() for style in result.styles}
    planned = {
        **static,
        **katex,
        **plan_math_stylesheet(write_math_stylesheet(used_styles)),
    }
    planned = shrink_stylesheets(planned, (result.html for result in checked.math.values()))
    return SiteContext(
        chapters=parsed.chapters,
        references=parsed.references,
        figures={figure.name: figure for figure in parsed.figures},
        figure_numbers=number_figures(parsed.chapters),
        math=checked.math,
        term_users=find_term_users(parsed.chapters),
        assets={name: url for name, (url, _data) in planned.items()},
        files=dict(planned.values()),
        lab=lab,
        templates=project.templates,
        template_cache=project.template_cache,
        glossary=parsed.glossary,
        cells=checked.cells,
        cell_assets=cells,
        search_index=SEARCH_INDEX,
        has_notation=parsed.notation is not None,
        base_url=project.base_url,
        site_config=project.site_config,
        last_updated=project.last_updated,
    )


def render_site(
    checked: CheckedProject,
    render: PageRenderer = render_page,
    static: dict[str, tuple[str, bytes]] | None = None,
) -> dict[str, bytes | Path]:
    """Return every output file: {path under dist/: bytes, or a runtime file to copy}.

    `render` replaces `render.render_page` (the dev server passes one that
    reuses the HTML of pages whose inputs did not change); `static` is
    plan_site_static_assets' answer for this project, when the caller has it.
    """
    # The one read the render needs, here at its edge: the runtime the pages ship (the rest was read by load_project).
    runtime = read_runtime(checked.project)
    worker_source = SERVICE_WORKER_SOURCE.read_bytes()
    with report_template_errors():
        return _render_files(checked, runtime, worker_source, render, static)


# Remembered: the dev server reuses the HTML of every page an edit did not touch, and encoding 96 chapters' HTML
# again on every edit cost more than rendering the one that changed (a string keeps its own hash).
@lru_cache(maxsize=1024)
def encode_page(html: str) -> bytes:
    """Return a page's HTML as the bytes written."""
    return html.encode()


def _render_files(
    checked: CheckedProject,
    runtime: Runtime,
    worker_source: bytes,
    render: PageRenderer,
    static: dict[str, tuple[str, bytes]] | None,
) -> dict[str, bytes | Path]:
    project, parsed = checked.project, checked.parsed
    core_archive = archive_core(project.core_modules)
    core_path = f"lab/{hash_name('rollout_lab.zip', core_archive)}"
    static = dict(static) if static is not None else plan_site_static_assets(project, with_editor=bool(checked.cells))
    if not project.site_config.offline:
        # site.yaml's `offline: false`: no script, so no footer note, no worker, no offline page.
        static.pop(OFFLINE_SCRIPT, None)
    pyodide_folder, stdlib_name, lock_name = runtime.folder, runtime.stdlib_name, runtime.lock_name
    # Beside the core it holds (not in the runtime's folder, whose name would change with every edit of the core).
    snapshot_path = f"lab/{hash_name('python-snapshot.bin', checked.snapshot)}" if checked.snapshot else ""
    # One set of runtime URLs for both workers.
    runtime_urls = RuntimeUrls(
        pyodide=f"{pyodide_folder}/",
        core=core_path,
        stdlib=f"{pyodide_folder}/{stdlib_name}",
        lock=f"{pyodide_folder}/{lock_name}",
        snapshot=snapshot_path,
    )
    lab = None
    if LAB_SCRIPT in static and LAB_WORKER in static:
        lab = LabAssets(script=static[LAB_SCRIPT][0], worker=static[LAB_WORKER][0], runtime=runtime_urls)
    cells = None
    if all(name in static for name in (CELLS_SCRIPT, CELL_WORKER, KERNEL_ASSET)):
        cells = CellAssets(
            script=static[CELLS_SCRIPT][0],
            worker=static[CELL_WORKER][0],
            kernel=static[KERNEL_ASSET][0],
            editor=static[CELL_EDITOR][0] if CELL_EDITOR in static else "",
            runtime=runtime_urls,
        )
    site = create_site_context(checked, lab, static, cells)
    files: dict[str, bytes | Path] = dict(site.files)
    # A stable name, outside the hashed assets: pages do not change when the index does (search_index.py).
    files[SEARCH_INDEX] = write_search_index(
        list_search_documents(
            [page for page in parsed.pages if PAGE_KINDS[page.kind].searchable], parsed.glossary, parsed.references
        )
    )
    for page in parsed.pages:
        files[page.output_name] = encode_page(render(page, site))
    files[REFERENCES_PAGE] = render_references_page(site).encode()
    files[NOT_FOUND_PAGE] = render_not_found_page(site).encode()
    if site.base_url:
        page_names = [page.output_name for page in parsed.pages] + [REFERENCES_PAGE]
        files[SITEMAP] = write_sitemap(site.base_url, page_names)
    files[RECORDED_RUN] = write_recorded_run()
    files[core_path] = core_archive
    if checked.snapshot:
        files[snapshot_path] = checked.snapshot
    files.update(place_pyodide_files(runtime.files))
    files[ROOT_MARKER] = ROOT_MARKER_TEXT.encode()
    immutable = (f"{ASSETS_FOLDER}/*", f"{pyodide_folder}/*", core_path, *([snapshot_path] if snapshot_path else []))
    if OFFLINE_SCRIPT in static:
        files[OFFLINE_PAGE] = render_offline_page(site, OFFLINE_PAGE).encode()
        # Python's part, kept only when the reader asks (offline.py): the runtime, and what only Python uses.
        python_only = [f"{pyodide_folder}/*", core_path, snapshot_path]
        python_only += [static[name][0] for name in (KERNEL_ASSET, CELL_EDITOR) if name in static]
        manifest = plan_offline_manifest(files, immutable, [pattern for pattern in python_only if pattern])
        files[SERVICE_WORKER] = write_service_worker(manifest, worker_source)
        files[OFFLINE_SIZES] = write_offline_sizes(manifest)
    workers = [static[name][0] for name in (LAB_WORKER, CELL_WORKER) if name in static]
    uncached = [SERVICE_WORKER] if SERVICE_WORKER in files else []
    files[HEADERS_FILE] = write_headers(plan_header_rules(files, immutable, uncached, workers))
    return files
