"""One folder per kind of bad input: the build prints exactly the expected lines and leaves dist/ alone.

Each folder under bad_inputs/ holds `content/` files laid over a copy of the
sample content (and optionally `remove.txt`, sample files to delete), and
`expected.txt`: the exact stderr of `build.py build --content content --out dist`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from site_testing import SAMPLE_CONTENT, SITE_TESTS, copy_sample, run_cli, snapshot_folder
from sitegen.publish.output_folder import adopt_folder

CASES = sorted(p.name for p in (SITE_TESTS / "bad_inputs").iterdir() if p.is_dir())


def runs_cells(name: str) -> bool:
    """Whether a case holds a Python cell, whose build starts Pyodide under Node (when its output is not cached)."""
    files = (SITE_TESTS / "bad_inputs" / name / "content").rglob("*.md")
    return any("```{python}" in path.read_text(encoding="utf-8", errors="replace") for path in files if path.is_file())


# The cases as build and check tests take them: those with cells marked, so `make test-fast` leaves them out.
CASE_PARAMS = [pytest.param(name, marks=pytest.mark.pyodide) if runs_cells(name) else name for name in CASES]


def prepare_content(case: Path, workspace: Path) -> None:
    """Lay the case's files over a copy of the sample content."""
    content = copy_sample(workspace)
    removals = case / "remove.txt"
    if removals.exists():
        for name in removals.read_text(encoding="utf-8").split():
            (content / name).unlink()
    for path in sorted((case / "content").rglob("*")):
        if path.is_file():
            target = content / path.relative_to(case / "content")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())


def test_the_sample_alone_has_no_problem_so_each_case_s_lines_come_from_its_own_files(tmp_path, capsys):
    copy_sample(tmp_path)
    run = run_cli(["check", "--strict", "--content", "content"], tmp_path, capsys)
    assert (run.status, run.stderr) == (0, "")


@pytest.mark.parametrize("name", CASES)
def test_each_case_changes_the_sample(name):
    # A case whose files equal the sample's would test nothing but its own expected.txt.
    case = SITE_TESTS / "bad_inputs" / name
    removed = (case / "remove.txt").read_text(encoding="utf-8").split() if (case / "remove.txt").exists() else []
    changed = [
        path
        for path in (case / "content").rglob("*")
        if path.is_file()
        and not path.is_symlink()
        and (
            not (SAMPLE_CONTENT / path.relative_to(case / "content")).is_file()
            or (SAMPLE_CONTENT / path.relative_to(case / "content")).read_bytes() != path.read_bytes()
        )
    ]
    assert all((SAMPLE_CONTENT / name).is_file() for name in removed), "remove.txt names a file the sample does not have"
    assert changed or removed, f"{name} lays nothing new over the sample"


@pytest.mark.parametrize("name", CASE_PARAMS)
def test_bad_input_prints_exact_problems_and_leaves_dist_untouched(name, tmp_path, capsys, update_golden):
    case = SITE_TESTS / "bad_inputs" / name
    prepare_content(case, tmp_path)
    previous_site = tmp_path / "dist"
    previous_site.mkdir()
    (previous_site / "index.html").write_text("the previous build\n", encoding="utf-8")
    (previous_site / "assets").mkdir()
    (previous_site / "assets" / "site.00000000.css").write_bytes(b"body{}\n")
    adopt_folder(previous_site)  # marked as the build that wrote them marks them
    before = snapshot_folder(previous_site)

    run = run_cli(["build", "--content", "content", "--out", "dist"], tmp_path, capsys)

    expected_file = case / "expected.txt"
    if update_golden:
        expected_file.write_text(run.stderr, encoding="utf-8")
    assert run.stderr == expected_file.read_text(encoding="utf-8")
    assert run.status == 1
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    assert snapshot_folder(previous_site) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content", "dist"]
