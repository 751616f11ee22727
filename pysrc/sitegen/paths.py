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
# The modules the site's scripts import (esbuild bundles them in) and the build's cell runner imports under Node.
SCRIPT_MODULES_FOLDER = TEMPLATES_FOLDER / "modules"
CORE_FOLDER = Path("pysrc/rollout_lab")
# Jinja's compiled templates, keyed by each template's checksum (like .pyc files); git-ignored.
TEMPLATE_CACHE = Path(".cache/jinja")
# esbuild's minified scripts, keyed by each script's checksum and the esbuild version; git-ignored.
SCRIPT_CACHE = Path(".cache/scripts")


def find_project_root() -> Path:
    """Return the project root: the folder holding pysrc/ (this file is pysrc/sitegen/paths.py)."""
    return Path(__file__).resolve().parents[2]
