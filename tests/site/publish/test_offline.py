"""Offline reading's build side (publish/offline.py): sw.js and its manifest cover every file a reader needs, sorted and versioned."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from sitegen.model import SiteConfig
from sitegen.publish.host_headers import read_headers
from sitegen.publish.offline import plan_offline_manifest, write_service_worker
from sitegen.read.site_config import parse_site_config


def named(stem: str, extension: str, data: bytes) -> str:
    """A content-named file's path: its stem, the start of its bytes' SHA-256, its extension (as the assets name them)."""
    return f"{stem}.{hashlib.sha256(data).hexdigest()[:8]}.{extension}"


SITE_CSS = named("assets/site", "css", b"body{}")
CORE = named("lab/core", "zip", b"PK")
WASM_GZ = named("pyodide/1-abc/pyodide.asm.wasm.gz", "bin", b"\x1f\x8b" + bytes(37))
IMMUTABLE = ("assets/*", "pyodide/1-abc/*", CORE)
RUNTIME = ("pyodide/1-abc/*", CORE)
FILES: dict[str, bytes] = {
    "index.html": b"<h1>Contents</h1>",
    "01-a.html": b"<h1>A</h1>",
    "offline.html": b"<h1>Offline</h1>",
    "search-index.json": b"{}",
    SITE_CSS: b"body{}",
    "pyodide/1-abc/pyodide.asm.wasm": b"\0asm" + bytes(96),  # the plain fallback: never needed offline
    WASM_GZ: b"\x1f\x8b" + bytes(37),  # what the pages compile
    "pyodide/1-abc/pyodide-lock.json": b"{}",  # the full lock file: never loaded by the pages
    CORE: b"PK",
    "pyodide/1-abc/pyodide.mjs": b"export {};",  # under an immutable pattern, but its name does not carry its hash
    "_headers": b"/*\n",
    "sitemap.xml": b"<urlset/>",
}


def manifest_of(files: dict[str, bytes]):
    return plan_offline_manifest(files, IMMUTABLE, RUNTIME)


def test_files_are_sorted_into_shell_and_runtime_and_only_names_carrying_their_hash_go_without_a_revision():
    manifest = manifest_of(FILES)
    assert [(e.path, e.revision, e.size) for e in manifest.shell] == [
        ("01-a.html", hashlib.sha256(b"<h1>A</h1>").hexdigest()[:16], 10),
        (SITE_CSS, None, 6),
        ("index.html", hashlib.sha256(b"<h1>Contents</h1>").hexdigest()[:16], 17),
        ("offline.html", hashlib.sha256(b"<h1>Offline</h1>").hexdigest()[:16], 16),
        ("search-index.json", hashlib.sha256(b"{}").hexdigest()[:16], 2),
    ]
    assert [(e.path, e.revision, e.size) for e in manifest.runtime] == [
        (CORE, None, 2),
        (WASM_GZ, None, 39),
        ("pyodide/1-abc/pyodide.mjs", hashlib.sha256(b"export {};").hexdigest()[:16], 10),
    ]
    assert (manifest.shell_bytes, manifest.runtime_bytes) == (51, 51)


@pytest.mark.parametrize(
    ("change", "new_version"),
    [
        ({"01-a.html": b"<h1>A, edited</h1>"}, True),  # a page's bytes
        ({"assets/site.4567cdef.css": b"body{}"}, True),  # a new hashed name
        ({"sitemap.xml": b"<urlset><url/></urlset>"}, False),  # not kept offline
    ],
)
def test_the_version_changes_exactly_when_what_is_kept_changes(change, new_version):
    assert (manifest_of({**FILES, **change}).version != manifest_of(FILES).version) is new_version


def test_the_worker_script_starts_with_its_manifest():
    manifest = manifest_of(FILES)
    script = write_service_worker(manifest, b"self.addEventListener('fetch', () => {});\n").decode()
    first, second, rest = script.split("\n", 2)
    data = json.loads(re.fullmatch(r"const MANIFEST = (.*);", second).group(1))
    assert first.startswith("// Written by the build")
    assert data["version"] == manifest.version and data["offline"] == "offline.html"
    assert data["runtime"] == [
        [CORE, None, 2],
        [WASM_GZ, None, 39],
        ["pyodide/1-abc/pyodide.mjs", hashlib.sha256(b"export {};").hexdigest()[:16], 10],
    ]
    assert data["runtimeBytes"] == 51
    assert rest == "self.addEventListener('fetch', () => {});\n"


def read_manifest(site: Path) -> dict:
    return json.loads(re.search(r"^const MANIFEST = (.*);$", (site / "sw.js").read_text(encoding="utf-8"), re.M).group(1))


def test_the_built_site_keeps_every_file_a_reader_needs(built_sample: Path):
    data = read_manifest(built_sample)
    kept = {path for path, _revision, _size in data["shell"] + data["runtime"]}
    written = {p.relative_to(built_sample).as_posix() for p in built_sample.rglob("*") if p.is_file()}
    left_out = {"_headers", "sw.js", "offline.json", ".rollouts-build"}
    left_out |= {n for n in written if n.endswith(("/pyodide-lock.json", "/pyodide.asm.wasm"))}
    assert kept == written - left_out
    for path, revision, size in data["shell"] + data["runtime"]:
        contents = (built_sample / path).read_bytes()
        assert len(contents) == size, path
        assert revision is None or hashlib.sha256(contents).hexdigest()[:16] == revision, path
    runtime = {path for path, _revision, _size in data["runtime"]}
    assert any(re.search(r"/pyodide\.asm\.wasm\.gz\.[0-9a-f]{8}\.bin$", path) for path in runtime)
    assert not any(path.endswith("/pyodide.asm.wasm") for path in runtime)
    assert any(path.startswith("lab/python-snapshot.") for path in runtime)
    assert not any(path.endswith(".html") for path in runtime)
    sizes = json.loads((built_sample / "offline.json").read_text(encoding="utf-8"))
    assert sizes == {
        "version": data["version"],
        "runtimeBytes": data["runtimeBytes"],
        "shellBytes": sum(size for _path, _revision, size in data["shell"]),
    }
    [worker_rule] = [
        rule for rule in read_headers((built_sample / "_headers").read_text(encoding="utf-8")) if rule.pattern == "/sw.js"
    ]
    assert worker_rule.headers == (("Cache-Control", "no-cache"),)
    for page in ("index.html", "01-rollout.html", "offline.html"):
        assert re.search(
            r'<script type="module" src="assets/offline\.[0-9a-f]{8}\.js"></script>',
            (built_sample / page).read_text(encoding="utf-8"),
        )


def test_offline_false_in_site_yaml_leaves_offline_reading_out(tmp_path: Path):
    from site_testing import PROJECT_ROOT, SAMPLE_CONTENT
    from sitegen.pipeline import build_site
    from sitegen.read.load import load_project

    project = load_project(PROJECT_ROOT, SAMPLE_CONTENT)
    build_site(replace(project, site_config=SiteConfig(offline=False)), tmp_path / "dist")
    written = {p.name for p in (tmp_path / "dist").rglob("*")}
    assert not written & {"sw.js", "offline.html", "offline.json"}
    assert not any(name.startswith("offline.") for name in written)
    assert "data-offline" not in (tmp_path / "dist/index.html").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("text", "offline", "problem"),
    [
        ("", True, ""),
        ("offline: false\n", False, ""),
        ("offline: true\n", True, ""),
        ('offline: "no"\n', None, "offline must be true or false, got 'no'"),
    ],
)
def test_site_yaml_offline_is_a_switch(text, offline, problem):
    from sitegen.diagnostics import BuildFailed

    try:
        config = parse_site_config(text, "site.yaml")
    except BuildFailed as failed:
        assert [d.message for d in failed.diagnostics] == [problem]
    else:
        assert (config.offline, problem) == (offline, "")
