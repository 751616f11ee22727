"""The shipped scripts and stylesheets: bundled or minified by esbuild once, then answered from the cache without starting it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from site_testing import PROJECT_ROOT
from sitegen.assets.plan import HEAD_SCRIPT
from sitegen.assets.scripts import CLASSIC_SCRIPTS, minify_scripts
from sitegen.diagnostics import BuildFailed
from sitegen.model import StaticFile
from sitegen.read.load import load_project

SCRIPT = b"""// A comment esbuild drops.
const greeting = "caf\\u00e9 \xe2\x80\x94 ok";
export function greet(name) {
  return greeting + " " + name;
}
"""


def test_scripts_are_minified_other_files_left_alone_and_the_result_cached(tmp_path):
    project = load_project(PROJECT_ROOT)
    files = (
        StaticFile("js/greet.js", SCRIPT),
        StaticFile("css/site.css", b"body { margin: 0 }\n"),
        StaticFile("a.svg", b"<svg/> \n"),
    )
    minified = minify_scripts(files, project.esbuild, project.esbuild_version, tmp_path)
    # A module's private top-level names are shortened; its exports keep theirs.
    expected = 'const t="caf\xe9 \u2014 ok";export function greet(e){return t+" "+e}\n'.encode()
    assert minified == (StaticFile("js/greet.js", expected), StaticFile("css/site.css", b"body{margin:0}\n"), files[2])

    # A warm build reads the cache: with no esbuild at all the answer is the same.
    assert minify_scripts(files, Path("/nonexistent/esbuild"), project.esbuild_version, tmp_path) == minified


def test_a_changed_script_or_a_damaged_cache_entry_runs_esbuild_again(tmp_path):
    project = load_project(PROJECT_ROOT)
    script = StaticFile("js/greet.js", SCRIPT)
    [minified] = minify_scripts((script,), project.esbuild, project.esbuild_version, tmp_path)
    no_esbuild = Path("/nonexistent/esbuild")

    # Changed input: never answered from the old entry (without esbuild, the build cannot make it).
    edited = StaticFile("js/greet.js", SCRIPT.replace(b"ok", b"fine"))
    with pytest.raises(FileNotFoundError):
        minify_scripts((edited,), no_esbuild, project.esbuild_version, tmp_path)
    with pytest.raises(FileNotFoundError):
        minify_scripts((script,), no_esbuild, "0.0.0-another-esbuild", tmp_path)

    # A flipped byte in the entry: made again with esbuild, never shipped, and the entry repaired.
    [entry] = tmp_path.glob("*.js")
    damaged = bytearray(entry.read_bytes())
    damaged[-3] ^= 1
    entry.write_bytes(bytes(damaged))
    with pytest.raises(FileNotFoundError):
        minify_scripts((script,), no_esbuild, project.esbuild_version, tmp_path)
    assert minify_scripts((script,), project.esbuild, project.esbuild_version, tmp_path) == (minified,)
    assert minify_scripts((script,), no_esbuild, project.esbuild_version, tmp_path) == (minified,)


def test_a_classic_script_keeps_its_top_level_names_other_scripts_may_use():
    project = load_project(PROJECT_ROOT)
    script = StaticFile("js/theme.js", b"var scheme = 1;\nfunction pickScheme(saved) { return saved || scheme; }\n")
    minified = minify_scripts((script,), project.esbuild, project.esbuild_version, None)
    assert minified[0].data == b"var scheme=1;function pickScheme(e){return e||scheme}\n"


def test_a_script_esbuild_cannot_parse_fails_the_build_in_one_line():
    project = load_project(PROJECT_ROOT)
    with pytest.raises(BuildFailed) as failure:
        minify_scripts((StaticFile("js/broken.js", b"let = ;\n"),), project.esbuild, project.esbuild_version, None)
    assert [d.format() for d in failure.value.diagnostics] == ['client/broken.js:1: Unexpected ";" (esbuild, column 6)']


def test_a_missing_esbuild_is_a_line_per_missing_file_saying_how_to_install_it(tmp_path):
    # A project root with everything but esbuild (the rest linked from this one).
    (tmp_path / "node_modules").mkdir()
    for folder in ("node_modules/katex", "node_modules/pyodide", "node_modules/minisearch", "content", "site_templates"):
        (tmp_path / folder).symlink_to(PROJECT_ROOT / folder)
    with pytest.raises(BuildFailed) as failure:
        load_project(tmp_path)
    assert [d.format() for d in failure.value.diagnostics] == [
        "node_modules/esbuild/bin/esbuild: missing; run `npm ci` (see the Makefile)",
        "node_modules/esbuild/package.json: missing; run `npm ci` (see the Makefile)",
    ]


def test_a_script_that_imports_is_bundled_a_module_as_a_module_a_classic_script_as_one_function(tmp_path):
    project = load_project(PROJECT_ROOT)
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "names.mjs").write_text('export const KEY = "k";\nexport const UNUSED = "u";\n')
    source = b'import { KEY } from "./common/names.mjs";\nconsole.log(KEY);\n'
    scripts = (StaticFile("js/theme.js", source), StaticFile("js/lab.js", source))
    classic, module = minify_scripts(scripts, project.esbuild, project.esbuild_version, None, tmp_path)
    assert classic.data == b'"use strict";\n(()=>{console.log("k");})();\n'
    assert module.data == b'console.log("k");\n'


def test_the_classic_scripts_are_the_ones_the_templates_load_with_a_plain_script_element():
    base = (PROJECT_ROOT / "site_templates/base.html").read_text(encoding="utf-8")
    plain = set(re.findall(r"<script (?:defer )?src=\"\{\{ root \}\}\{\{ assets\['([^']+)'\] \}\}\"></script>", base))
    # theme.js is written inline (plan.py's head_script): a plain script too.
    assert "<script>{{ head_script }}</script>" in base
    assert plain | {HEAD_SCRIPT} == CLASSIC_SCRIPTS
