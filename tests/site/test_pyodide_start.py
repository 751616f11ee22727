"""One Pyodide start-up: the lab's worker, the cells' worker and the build's cell runner share one module."""

from __future__ import annotations

from site_testing import PROJECT_ROOT

START_MODULE = "client/python/pyodide-start.mjs"


def test_load_pyodide_is_called_in_exactly_one_source_file():
    # Tests and the benchmarks' bare-boot baseline start their own Pyodide; the site's sources do not.
    callers = sorted(
        path.relative_to(PROJECT_ROOT).as_posix()
        for folder in ("pysrc", "site_templates", "client")
        for path in (PROJECT_ROOT / folder).rglob("*")
        if path.is_file()
        and path.suffix in {".js", ".mjs", ".cjs", ".py", ".html"}
        and "loadPyodide(" in path.read_text(encoding="utf-8")
    )
    assert callers == [START_MODULE]


def test_every_runtime_imports_the_start_module():
    runtimes = (
        "client/lab-worker.js",
        "client/cell-worker.js",
        "pysrc/sitegen/check/cell_runner.mjs",
    )
    for runtime in runtimes:
        text = (PROJECT_ROOT / runtime).read_text(encoding="utf-8")
        assert '"../../../client/python/pyodide-start.mjs";' in text or '"./python/pyodide-start.mjs";' in text, runtime
