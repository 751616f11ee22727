"""The Python cells' editor (CodeMirror 6 and its Python support, from npm) bundled by esbuild into one module.

The entry is client/editor/cell-editor.js; the bundle ships as
assets/cell-editor.HASH.js and is loaded only when a reader first edits a
cell. It is kept in the tool's cache (tool_cache.py) by the entry's text, package-lock.json
(which pins every CodeMirror package) and the esbuild version, so only a
build after one of those changed runs esbuild.
"""

from __future__ import annotations

import hashlib
import subprocess

from sitegen.diagnostics import BuildFailed, Location, report
from sitegen.files.paths import CLIENT_FOLDER
from sitegen.files.tool_cache import read_verified, write_verified
from sitegen.messages import (
    EDITOR_NOT_BUNDLED,
)
from sitegen.model import Project, StaticFile

EDITOR_ENTRY = CLIENT_FOLDER / "editor" / "cell-editor.js"
EDITOR_ASSET = "js/cell-editor.js"
BUNDLE_OPTIONS = ("--bundle", "--format=esm", "--minify", "--legal-comments=none", "--charset=utf8", "--log-level=warning")


def bundle_editor(project: Project) -> StaticFile:
    """Return the editor bundle, from the cache when its inputs are unchanged."""
    entry = project.root / EDITOR_ENTRY
    lock = project.root / "package-lock.json"
    digest = hashlib.sha256(repr((project.esbuild_version, BUNDLE_OPTIONS)).encode())
    for path in (entry, lock):
        digest.update(path.read_bytes() if path.is_file() else b"")
    cached = project.script_cache / f"editor-{digest.hexdigest()[:32]}.js" if project.script_cache else None
    bundle = read_verified(cached) if cached is not None else None
    if bundle is not None:
        return StaticFile(EDITOR_ASSET, bundle)
    completed = subprocess.run(
        [str(project.esbuild), str(EDITOR_ENTRY), *BUNDLE_OPTIONS, "--color=false"],
        cwd=project.root,
        capture_output=True,
    )
    if completed.returncode != 0:
        output = " ".join(completed.stderr.decode(errors="replace").split()) or "esbuild failed"
        raise BuildFailed([report(Location(EDITOR_ENTRY.as_posix(), 0), EDITOR_NOT_BUNDLED, output=output)])
    if cached is not None:
        write_verified(cached, completed.stdout)
    return StaticFile(EDITOR_ASSET, completed.stdout)
