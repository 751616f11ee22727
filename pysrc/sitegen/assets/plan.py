"""The assets stage: every file the pages point at, planned under its hashed name before any page is rendered.

A page's HTML names its stylesheets, scripts, fonts, the core's zip, the
Pyodide runtime and the memory snapshot by URLs that carry their bytes' hash,
so all of them are planned first (`plan_site_assets`), and rendering only
looks the URLs up. This is also where the build reads the Pyodide runtime it
ships (runtime.py): the one read after `load_project`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from sitegen.assets.editor_bundle import EDITOR_ASSET, bundle_editor
from sitegen.assets.python_snapshot import compress_python_snapshot, name_python_snapshot
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
from sitegen.assets.stylesheets import shrink_stylesheets
from sitegen.check.cell_runner import KERNEL_ASSET
from sitegen.check.formulas import write_math_stylesheet
from sitegen.context import CellAssets, LabAssets, RuntimeUrls, SiteAssets
from sitegen.files.paths import CLIENT_FOLDER
from sitegen.model import MathResult, Project

LAB_SCRIPT = "js/lab.js"
LAB_WORKER = "js/lab-worker.js"
CELLS_SCRIPT = "js/cells.js"
CELL_WORKER = "js/cell-worker.js"
CELL_EDITOR = EDITOR_ASSET
OFFLINE_SCRIPT = "js/offline.js"
HEAD_SCRIPT = "js/theme.js"
RUNTIME_SCRIPTS = ("pyodide.mjs", "pyodide.asm.mjs")


def plan_static_files(project: Project, with_editor: bool = False) -> dict[str, tuple[str, bytes]]:
    """Return the templates' own static files, scripts minified, under their hashed URLs (and the cell editor's bundle)."""
    client_dir = project.root / CLIENT_FOLDER
    scripts = minify_scripts(project.static_files, project.esbuild, project.esbuild_version, project.script_cache, client_dir)
    if with_editor:
        scripts += (bundle_editor(project),)
    return plan_static_assets(scripts)


def plan_site_assets(
    project: Project,
    math: Mapping[tuple[str, bool], MathResult],
    snapshot: bytes | None,
    with_editor: bool,
    static: Mapping[str, tuple[str, bytes]] | None = None,
) -> SiteAssets:
    """Return every file the pages point at, with its URL, and what publishing must know of them.

    `math`: KaTeX's results (the math stylesheet holds their styles, and
    KaTeX's stylesheet keeps only the rules they use); `snapshot`: the memory
    snapshot the pages' Python starts from, as the runner keeps it (gzip; shipped as zstd), or None; `with_editor`: the pages
    have Python cells (their editor is bundled); `static`: plan_static_files'
    answer for this project, when the caller has it.
    """
    runtime = read_runtime(project)
    core_archive = archive_core(project.core_modules)
    core_path = f"lab/{hash_name('rollout_lab.zip', core_archive)}"
    static = dict(static) if static is not None else plan_static_files(project, with_editor)
    if not project.site_config.offline:
        # site.yaml's `offline: false`: no script, so no footer note, no worker, no offline page.
        static.pop(OFFLINE_SCRIPT, None)
    pyodide_folder, stdlib_name, lock_name = runtime.folder, runtime.stdlib_name, runtime.lock_name
    snapshot = compress_python_snapshot(snapshot, runtime.wasm, project.runtime_cache) if snapshot else None
    snapshot_path = name_python_snapshot(snapshot) if snapshot else ""
    # One set of runtime URLs for both workers.
    runtime_urls = RuntimeUrls(
        pyodide=f"{pyodide_folder}/",
        core=core_path,
        stdlib=f"{pyodide_folder}/{stdlib_name}",
        lock=f"{pyodide_folder}/{lock_name}",
        wasm=f"{pyodide_folder}/{runtime.wasm_name}",
        snapshot=snapshot_path,
    )
    start_bytes = count_start_bytes(runtime, core_archive, snapshot)
    lab = None
    if LAB_SCRIPT in static and LAB_WORKER in static:
        lab = LabAssets(
            script=static[LAB_SCRIPT][0],
            worker=static[LAB_WORKER][0],
            runtime=runtime_urls,
            start_bytes=start_bytes,
            download_bytes=start_bytes + count_script_bytes(runtime),
        )
    cells = None
    if all(name in static for name in (CELLS_SCRIPT, CELL_WORKER, KERNEL_ASSET)):
        cells = CellAssets(
            script=static[CELLS_SCRIPT][0],
            worker=static[CELL_WORKER][0],
            kernel=static[KERNEL_ASSET][0],
            editor=static[CELL_EDITOR][0] if CELL_EDITOR in static else "",
            runtime=runtime_urls,
            start_bytes=start_bytes + len(static[KERNEL_ASSET][1]),
        )
    used_styles = {style for result in math.values() for style in result.styles}
    planned = {**static, **plan_katex_assets(project), **plan_math_stylesheet(write_math_stylesheet(used_styles))}
    planned = shrink_stylesheets(planned, (result.html for result in math.values()))
    head_script = inline_script(planned.pop(HEAD_SCRIPT)[1]) if HEAD_SCRIPT in planned else ""
    files: dict[str, bytes | Path] = dict(planned.values())
    files[RECORDED_RUN] = write_recorded_run()
    files[core_path] = core_archive
    if snapshot:
        files[snapshot_path] = snapshot
    files.update(place_pyodide_files(runtime.files))
    files[ROOT_MARKER] = ROOT_MARKER_TEXT.encode()
    # Python's part, kept offline only when the reader asks (publish/offline.py): the runtime, and what only Python uses.
    python_only = [f"{pyodide_folder}/*", core_path, snapshot_path]
    python_only += [static[name][0] for name in (KERNEL_ASSET, CELL_EDITOR) if name in static]
    return SiteAssets(
        urls={name: url for name, (url, _data) in planned.items()},
        files=files,
        lab=lab,
        cells=cells,
        immutable=(f"{ASSETS_FOLDER}/*", f"{pyodide_folder}/*", core_path, *([snapshot_path] if snapshot_path else [])),
        python_only=tuple(pattern for pattern in python_only if pattern),
        # The lab's worker only: the cells' worker runs under the page's own policy (client/python/python-worker.mjs).
        workers=tuple(static[name][0] for name in (LAB_WORKER,) if name in static),
        offline=OFFLINE_SCRIPT in static,
        head_script=head_script,
    )


def inline_script(bundle: bytes) -> str:
    """Return a script's bundle as the text of an inline <script>, which must not hold its closing tag."""
    text = bundle.decode()
    if "</script" in text.lower():
        raise ValueError(f"a script to write inline holds '</script': {text[:80]!r}")
    return text


def count_script_bytes(runtime: Runtime) -> int:
    """The bytes of the runtime's scripts a start imports (pyodide.mjs, pyodide.asm.mjs), which count_start_bytes leaves out."""
    return sum(size_of_output(runtime.files[name]) for name in RUNTIME_SCRIPTS if name in runtime.files)


def count_start_bytes(runtime: Runtime, core_archive: bytes, snapshot: bytes | None) -> int:
    """The bytes a start fetches (and counts): the page's compressed wasm (client/python/python-worker.mjs), and in the worker
    the lock file, the stdlib's directory, the core and the snapshot (client/python/downloads.mjs's countDownloads sees
    exactly these; the scripts are imported, the stdlib's parts read by synchronous requests, and neither is counted);
    with the snapshot, its zstd decoder's WebAssembly."""
    counted = (runtime.wasm_name, runtime.lock_name, runtime.stdlib_name, *((runtime.decoder_name,) if snapshot else ()))
    sizes = [size_of_output(runtime.files[name]) for name in counted]
    return sum(sizes) + len(core_archive) + (len(snapshot) if snapshot else 0)


def size_of_output(item: bytes | Path) -> int:
    """Return the size of an output file: bytes made by the build, or a file (of the npm package) copied as it is."""
    return item.stat().st_size if isinstance(item, Path) else len(item)
