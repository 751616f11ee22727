"""The core's results kept between builds (sitegen/render/core_results.py): figures in the tool's cache per version of
the code, values in the book's cache, checked on every read, and what a build then shows."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from site_testing import give_own_node_modules, make_scratch_project, run_build_py, share_tool_cache
from sitegen.files.tool_cache import write_verified
from sitegen.kinds.computed import compute_value
from sitegen.render.core_results import (
    KEPT_VERSIONS,
    CoreCaches,
    CoreResults,
    find_kept_figures,
    fingerprint_tool_code,
    keep_core_results,
    read_core_results,
)
from sitegen.render.generated_figures import generate_figures

NOTHING = CoreResults({}, {})


def test_results_are_kept_for_this_version_of_the_code_and_read_back_only_while_undamaged(tmp_path: Path):
    caches = CoreCaches(tmp_path / "tool" / "core", tmp_path / "book" / ".cache" / "computed-values.json")
    assert read_core_results(caches) == NOTHING
    prompt = compute_value("prompt")
    (figure,) = generate_figures({"draw-rule"})
    kept = keep_core_results(caches, NOTHING)
    assert kept.values["prompt"] == prompt
    assert kept.figures["draw-rule"] == (figure.description, figure.svg)
    assert find_kept_figures(caches.figures).name == f"figures-{fingerprint_tool_code()}.json"
    assert read_core_results(caches) == kept
    for path in (find_kept_figures(caches.figures), caches.values):
        stored = path.read_bytes()
        for damaged in (stored[:-1], stored.replace(b"draw", b"drew").replace(b"prompt", b"prompts"), b""):
            path.write_bytes(damaged)
            assert read_core_results(caches) != kept, (path, damaged)
        path.write_bytes(stored)
    # Values kept by another version of the code are not this version's.
    write_verified(caches.values, json.dumps({"code": "another version", "values": {"prompt": "old text"}}).encode())
    assert read_core_results(caches).values == {}


def test_nothing_new_writes_nothing_and_only_the_latest_versions_figures_stay(tmp_path: Path):
    caches = CoreCaches(tmp_path / "core", tmp_path / "computed-values.json")
    compute_value("prompt")
    generate_figures({"draw-rule"})
    kept = keep_core_results(caches, NOTHING)
    written = {path: path.stat().st_mtime_ns for path in (find_kept_figures(caches.figures), caches.values)}
    assert keep_core_results(caches, kept) == kept
    assert {path: path.stat().st_mtime_ns for path in written} == written
    # Other versions of the code (other checkouts sharing node_modules): the oldest go once there are too many.
    newest = min(written.values())
    for age in range(KEPT_VERSIONS + 2):
        other = caches.figures / f"figures-other{age}.json"
        write_verified(other, b"{}")
        os.utime(other, ns=(newest - (age + 1) * 10**9, newest - (age + 1) * 10**9))
    find_kept_figures(caches.figures).unlink()
    keep_core_results(caches, NOTHING)
    left = sorted(path.name for path in caches.figures.iterdir())
    assert len(left) == KEPT_VERSIONS
    assert find_kept_figures(caches.figures).name in left
    assert "figures-other0.json" in left and "figures-other9.json" not in left


def test_a_build_shows_the_values_kept_for_its_version_of_the_code_and_ignores_a_damaged_or_foreign_file(tmp_path: Path):
    project = make_scratch_project(tmp_path / "project")
    kept_values = project / ".cache" / "computed-values.json"
    # The scratch copy's code is byte for byte this checkout's, so its version is this process's.
    planted = json.dumps({"code": fingerprint_tool_code(), "values": {"prompt": "KEPT-PROMPT-TEXT"}}).encode()

    def build_shows_planted_text() -> bool:
        (project / ".cache" / "build-manifest.json").unlink(missing_ok=True)  # not "up to date": the cache is no input
        result = run_build_py(project, "build", "--quiet")
        assert (result.returncode, result.stderr) == (0, ""), result.stderr
        return "KEPT-PROMPT-TEXT" in (project / "dist" / "01-rollout.html").read_text(encoding="utf-8")

    write_verified(kept_values, planted)
    assert build_shows_planted_text()
    kept_values.write_bytes(hashlib.sha256(b"something else").hexdigest().encode() + b"\n" + planted)  # damaged
    assert not build_shows_planted_text()
    assert read_core_results(CoreCaches(None, kept_values)).values["prompt"] == compute_value("prompt")  # made again
    # Another version of the code (an edit under pysrc/) does not read this version's values.
    write_verified(kept_values, planted)
    core = project / "pysrc" / "rollout_lab" / "__init__.py"
    core.write_text(core.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert not build_shows_planted_text()


def test_a_cold_build_finds_the_figures_in_the_tools_cache(tmp_path: Path, built_sample: Path):
    project = make_scratch_project(tmp_path / "project")
    tool_cache = give_own_node_modules(project)  # what is planted in its tool's cache stays there
    share_tool_cache(tool_cache, leaving_out="core")  # the figures are this test's; the scripts and runtime are not
    chapter = project / "content" / "01-rollout.md"
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\n::: figure draw-rule\nThe draw rule.\n:::\n", encoding="utf-8")
    folder = tool_cache / "core"
    (figure,) = generate_figures({"draw-rule"})
    write_verified(
        find_kept_figures(folder),
        json.dumps({"draw-rule": [figure.description, "<svg><desc>d</desc>KEPT-DRAWING</svg>"]}).encode(),
    )
    result = run_build_py(project, "build", "--quiet")
    assert (result.returncode, result.stderr) == (0, ""), result.stderr
    assert "KEPT-DRAWING</svg>" in (project / "dist" / "01-rollout.html").read_text(encoding="utf-8")
