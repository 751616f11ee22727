"""Where the project's fixed files live, relative to the project root (a light module: the CLI imports it first)."""

from __future__ import annotations

from pathlib import Path

KATEX_DIST = Path("node_modules/katex/dist")
KATEX_SCRIPT = KATEX_DIST / "katex.js"
MINISEARCH_SCRIPT = Path("node_modules/minisearch/dist/es/index.js")
PYODIDE_PACKAGE = Path("node_modules/pyodide")
ESBUILD_PACKAGE = Path("node_modules/esbuild")
ESBUILD = ESBUILD_PACKAGE / "bin/esbuild"
TEMPLATES_FOLDER = Path("site_templates")
# The templates' static files (css/, py/, the icon), each shipped under assets/ with a hash in its name.
STATIC_FOLDER = "static"
# Every file the browser runs (docs/workers.md): at its top one script per page kind and worker, each shipped as
# assets/js/NAME.HASH.js (esbuild bundles in what it imports from the folders below); the folders by concern.
CLIENT_FOLDER = Path("client")
CLIENT_ASSET_FOLDER = "js"  # the name the client's entries ship under: client/lab.js is the static file js/lab.js
# Pyodide's start and the pages' Python workers: the build's cell runner imports them under Node too.
RUNTIME_MODULES_FOLDER = CLIENT_FOLDER / "python"
CORE_FOLDER = Path("pysrc/rollout_lab")
# The caches: they only make builds faster, and deleting any of them is always safe. Each is written through
# atomic.write_atomically, as a build and the dev server may share it.
# The tool's own (tool_cache.py): what depends only on the templates, node_modules and this code, never on a book's
# content, kept with the installed npm packages so that clearing a book's .cache/ (a cold build) keeps it.
TOOL_CACHE = Path("node_modules/.cache/rollouts")
# Jinja's compiled templates, keyed by each template's checksum (like .pyc files).
TEMPLATE_CACHE = TOOL_CACHE / "jinja"
# esbuild's minified scripts and the editor bundle, keyed by each script's checksum and the esbuild version.
SCRIPT_CACHE = TOOL_CACHE / "scripts"
# The standard library's parts and directory, keyed by Pyodide's python_stdlib.zip and the code that cuts it.
STDLIB_CACHE = TOOL_CACHE / "stdlib"
# Pyodide's WebAssembly (gzip) and the memory snapshot (zstd), compressed, keyed by their input's SHA-256 and the settings
# (assets/compressed_copy.py).
RUNTIME_CACHE = TOOL_CACHE / "runtime"
# The figures the core draws, keyed by every Python source of the tool (render/core_results.py).
CORE_CACHE = TOOL_CACHE / "core"
# The book's own, under .cache/ (git-ignored).
# KaTeX's results, keyed by the KaTeX build and the server script (check/formulas.py).
MATH_CACHE = Path(".cache/math.json")
# The Python cells' outputs, keyed by the page's cells up to each one and the runtime's fingerprint (check/cell_cache.py).
CELL_CACHE = Path(".cache/cells")
# The texts of the book's computed values, keyed by every Python source of the tool (render/core_results.py).
COMPUTED_VALUES_CACHE = Path(".cache/computed-values.json")
# What the last builds wrote, so an unchanged build is skipped (publish/up_to_date.py).
BUILD_MANIFEST = Path(".cache/build-manifest.json")

# The SHA-256 of the memory snapshot kept under CELL_CACHE, by the runtime's fingerprint: outside .cache/, so a
# damaged or altered snapshot there is made again, never published (check/cell_cache.py). The snapshot is made
# the same, byte for byte, by every build of the same inputs, so the record is committed like a lock file.
SNAPSHOT_RECORD = Path("python-snapshot.sha256")


def find_project_root() -> Path:
    """Return the project root: the folder holding pysrc/ (this file is pysrc/sitegen/files/paths.py)."""
    return Path(__file__).resolve().parents[3]
