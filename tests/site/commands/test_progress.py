"""What `build.py build` says: the summary line, `--quiet`, and the progress line on a terminal only."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest

from site_testing import make_scratch_project, run_build_py
from sitegen.commands.progress import ERASE_LINE, format_summary, format_up_to_date, label_folder

# The duration is the one thing that changes from run to run.
SECONDS = r"[0-9]+\.[0-9]{2} s"
STAGES = re.compile(
    r"Reading content|Parsing pages: [0-5]/5|Rendering math|Running Python cells \(1 page\): [01] run|"
    r"Making the pages' Python snapshot|Rendering pages: [0-5]/5|Writing [0-9]+ files"
)
# A cell that runs for 1.5 s, whatever the machine: Python now starts from the snapshot in well under the second
# after which progress shows, so a quick cell could finish before its stage was ever on the terminal.
CELL = "```{python}\nimport time\nend = time.monotonic() + 1.5\nwhile time.monotonic() < end:\n    pass\nprint(6 * 7)\n```\n\n"


def test_the_summary_counts_pages_and_cells_run_and_cached():
    assert format_summary(12, 0.624, "dist/", 0, 5) == "Built 12 pages in 0.62 s → dist/ (5 cells cached)"
    assert format_summary(12, 3.0, "dist/", 2, 3) == "Built 12 pages in 3.00 s → dist/ (2 cells run, 3 cached)"
    assert format_summary(1, 1.5, "www/", 1, 0) == "Built 1 page in 1.50 s → www/ (1 cell run)"
    assert format_summary(8, 0.5, "dist/", 0, 1) == "Built 8 pages in 0.50 s → dist/ (1 cell cached)"
    assert format_summary(8, 0.5, "dist/", 0, 0) == "Built 8 pages in 0.50 s → dist/"
    assert format_up_to_date(0.031, "dist/") == "Nothing changed since the last build: dist/ is up to date (0.03 s)"


def test_the_folder_is_named_as_typed_with_a_slash():
    assert [label_folder(None), label_folder("www"), label_folder("out/site/"), label_folder("/tmp/x")] == [
        "dist/",
        "www/",
        "out/site/",
        "/tmp/x/",
    ]


def test_a_build_prints_one_line_and_quiet_prints_nothing(tmp_path):
    project = make_scratch_project(tmp_path / "project")
    first = run_build_py(project, "build")
    assert (first.returncode, first.stderr) == (0, "")
    assert re.fullmatch(f"Built 8 pages in {SECONDS} → dist/\n", first.stdout), first.stdout
    again = run_build_py(project, "build")
    assert re.fullmatch(f"Nothing changed since the last build: dist/ is up to date \\({SECONDS}\\)\n", again.stdout)
    chapter = project / "content" / "01-rollout.md"
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    quiet = run_build_py(project, "build", "--quiet", "--out", "www")
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
    assert (project / "www" / "index.html").is_file()
    quiet_again = run_build_py(project, "build", "--quiet", "--out", "www")
    assert (quiet_again.returncode, quiet_again.stdout, quiet_again.stderr) == (0, "", "")


def test_warnings_stay_on_stderr_and_the_summary_on_stdout(tmp_path):
    project = make_scratch_project(tmp_path / "project")
    glossary = project / "content" / "glossary.md"
    glossary.write_text(glossary.read_text(encoding="utf-8") + "\nZebra\n: Not a term the chapters use.\n", encoding="utf-8")
    run = run_build_py(project, "build")
    assert (run.returncode, run.stderr) == (
        0,
        "content/glossary.md:30: warning: glossary term 'zebra' is not used in any chapter\n",
    )
    assert re.fullmatch(f"Built 8 pages in {SECONDS} → dist/\n", run.stdout), run.stdout


def run_on_terminal(project: Path, *arguments: str) -> tuple[int, str, str]:
    """Run the project's `build.py ARGUMENTS` with its stdout on a pseudo-terminal; return status, what the terminal got, stderr."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, str(project / "build.py"), *arguments], cwd=project, stdout=terminal, stderr=subprocess.PIPE, text=True
    )
    os.close(terminal)
    received = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO: the child closed the terminal's last descriptor
            break
        if not chunk:
            break
        received += chunk
    os.close(controller)
    assert process.stderr is not None
    errors = process.stderr.read()
    return process.wait(timeout=120), received.decode(), errors


@pytest.mark.pyodide
def test_a_slow_build_shows_its_stages_on_a_terminal_and_never_in_a_pipe(tmp_path):
    project = make_scratch_project(tmp_path / "project")
    chapter = project / "content" / "02-possibilities.md"
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\n" + CELL, encoding="utf-8")
    # The cell is not cached, and runs for longer than the second before progress shows.
    status, shown, errors = run_on_terminal(project, "build")
    assert (status, errors) == (0, "")
    *stages, summary = shown.split(ERASE_LINE)[1:]
    assert stages and all(STAGES.fullmatch(stage) for stage in stages), stages
    assert "Running Python cells (1 page): 0 run" in stages
    assert re.fullmatch(f"Built 8 pages in {SECONDS} → dist/ \\(1 cell run\\)\r\n", summary), summary
    # The same slow build in a pipe (a CI log): the summary alone.
    chapter.write_text(chapter.read_text(encoding="utf-8").replace("6 * 7", "6 * 8"), encoding="utf-8")
    piped = run_build_py(project, "build")
    assert (piped.returncode, piped.stderr) == (0, "")
    assert re.fullmatch(f"Built 8 pages in {SECONDS} → dist/ \\(1 cell run\\)\n", piped.stdout), piped.stdout
    # A prose edit: the cell's output comes from .cache/cells.
    chapter.write_text(chapter.read_text(encoding="utf-8") + "\nOne more sentence.\n", encoding="utf-8")
    cached = run_build_py(project, "build")
    assert re.fullmatch(f"Built 8 pages in {SECONDS} → dist/ \\(1 cell cached\\)\n", cached.stdout), cached.stdout
