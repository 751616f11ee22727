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
# The templates' static files (css/, js/, py/, ...), each shipped under assets/ with a hash in its name.
STATIC_FOLDER = "static"
# The modules the site's scripts import (esbuild bundles them in) and the build's cell runner imports under Node.
SCRIPT_MODULES_FOLDER = TEMPLATES_FOLDER / "modules"
CORE_FOLDER = Path("pysrc/rollout_lab")
# The caches, all under .cache/ (git-ignored): they only make builds faster, and deleting any of them is
# always safe. Each is written through atomic.write_atomically, as a build and the dev server may share it.
# Jinja's compiled templates, keyed by each template's checksum (like .pyc files).
TEMPLATE_CACHE = Path(".cache/jinja")
# esbuild's minified scripts and the editor bundle, keyed by each script's checksum and the esbuild version.
SCRIPT_CACHE = Path(".cache/scripts")
# Pyodide's WebAssembly, gzip-compressed, keyed by its SHA-256 (assets/compressed_wasm.py).
RUNTIME_CACHE = Path(".cache/runtime")
# KaTeX's results, keyed by the KaTeX build and the server script (check/formulas.py).
MATH_CACHE = Path(".cache/math.json")
# The Python cells' outputs, keyed by the page's cells up to each one and the runtime's fingerprint (check/cell_cache.py).
CELL_CACHE = Path(".cache/cells")
# What the last builds wrote, so an unchanged build is skipped (publish/up_to_date.py).
BUILD_MANIFEST = Path(".cache/build-manifest.json")


def find_project_root() -> Path:
    """Return the project root: the folder holding pysrc/ (this file is pysrc/sitegen/paths.py)."""
    return Path(__file__).resolve().parents[2]
