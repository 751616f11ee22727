"""The core's results kept in the tool's cache (sitegen/render/core_results.py): per version of the code, checked on
every read, and what a build then shows."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from site_testing import PROJECT_ROOT, make_scratch_project, run_build_py
from sitegen.kinds.computed import compute_value
from sitegen.render.core_results import (
    KEPT_VERSIONS,
    CoreResults,
    find_core_results,
    fingerprint_tool_code,
    keep_core_results,
    read_core_results,
)
from sitegen.render.generated_figures import generate_figures
from sitegen.tool_cache import write_verified

NOTHING = CoreResults({}, {})


def test_results_are_kept_by_this_codes_fingerprint_and_read_back_only_while_undamaged(tmp_path: Path):
    folder = tmp_path / "core"
    assert read_core_results(folder) == NOTHING
    prompt = compute_value("prompt")
    (figure,) = generate_figures({"draw-rule"})
    kept = keep_core_results(folder, NOTHING)
    assert kept.values["prompt"] == prompt
    assert kept.figures["draw-rule"] == (figure.description, figure.svg)
    assert find_core_results(folder).name == f"core-results-{fingerprint_tool_code()}.json"
    assert read_core_results(folder) == kept
    stored = find_core_results(folder).read_bytes()
    for damaged in (stored[:-1], stored.replace(b"prompt", b"prompts"), b""):
        find_core_results(folder).write_bytes(damaged)
        assert read_core_results(folder) == NOTHING, damaged


def test_nothing_new_writes_nothing_and_only_the_latest_versions_files_stay(tmp_path: Path):
    folder = tmp_path / "core"
    compute_value("prompt")
    kept = keep_core_results(folder, NOTHING)
    written = find_core_results(folder).stat().st_mtime_ns
    assert keep_core_results(folder, kept) is kept
    assert find_core_results(folder).stat().st_mtime_ns == written
    # Other versions of the code (other checkouts sharing node_modules): the oldest go once there are too many.
    for age in range(KEPT_VERSIONS + 2):
        other = folder / f"core-results-other{age}.json"
        write_verified(other, b"{}")
        os.utime(other, ns=(written - (age + 1) * 10**9, written - (age + 1) * 10**9))
    find_core_results(folder).unlink()
    keep_core_results(folder, NOTHING)
    left = sorted(path.name for path in folder.iterdir())
    assert len(left) == KEPT_VERSIONS
    assert find_core_results(folder).name in left
    assert "core-results-other0.json" in left and "core-results-other9.json" not in left


def test_a_build_shows_the_kept_text_of_its_own_codes_version_and_ignores_a_damaged_or_foreign_file(tmp_path: Path):
    project = make_scratch_project(tmp_path / "project")
    # Its own node_modules (each package linked), so what is planted in its tool cache stays there.
    (project / "node_modules").unlink()
    (project / "node_modules").mkdir()
    for package in (PROJECT_ROOT / "node_modules").iterdir():
        if package.name != ".cache":
            (project / "node_modules" / package.name).symlink_to(package)
    folder = project / "node_modules" / ".cache" / "rollouts" / "core"
    # The scratch copy's code is byte for byte this checkout's, so its fingerprint is this process's.
    target = find_core_results(folder)
    planted = json.dumps({"values": {"prompt": "KEPT-PROMPT-TEXT"}, "figures": {}}).encode()

    def build_shows_planted_text() -> bool:
        result = run_build_py(project, "build", "--quiet")
        assert (result.returncode, result.stderr) == (0, ""), result.stderr
        return "KEPT-PROMPT-TEXT" in (project / "dist" / "01-rollout.html").read_text(encoding="utf-8")

    write_verified(target, planted)
    assert build_shows_planted_text()
    target.write_bytes(hashlib.sha256(b"something else").hexdigest().encode() + b"\n" + planted)  # damaged
    assert not build_shows_planted_text()
    assert read_core_results(folder).values["prompt"] == compute_value("prompt")  # made again, from the core
    # Another version of the code (an edit under pysrc/) does not read this version's file.
    write_verified(target, planted)
    core = project / "pysrc" / "rollout_lab" / "__init__.py"
    core.write_text(core.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert not build_shows_planted_text()
