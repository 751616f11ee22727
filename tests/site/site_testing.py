"""Helpers shared by the pipeline's tests (fixtures live in conftest.py)."""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path

from sitegen.check.formulas import KatexProcess
from sitegen.check.parse import parse_page
from sitegen.commands.cli import main
from sitegen.diagnostics import Location
from sitegen.files.paths import SNAPSHOT_RECORD, TOOL_CACHE, find_project_root
from sitegen.kinds.blocks.figure import number_figures
from sitegen.kinds.links.term import find_term_users
from sitegen.model import Source
from sitegen.pipeline import CheckedProject, create_cell_runner, create_site_context, plan_assets
from sitegen.read.load import load_project
from sitegen.render.pages import render_markdown

SITE_TESTS = Path(__file__).parent
SAMPLE_CONTENT = SITE_TESTS / "sample_content"
RENDER_FIXTURES = SITE_TESTS / "render_fixtures"
PROJECT_ROOT = find_project_root()
FIXTURE_FRONT_MATTER = "---\ntitle: Fixture\nlede: A fixture page.\nchapter: 1\n---\n"


@cache
def find_python_snapshot() -> Path | None:
    """Return the project's memory snapshot for this runtime, core and kernel, made once (one Pyodide start) if missing."""
    runner = create_cell_runner(load_project(PROJECT_ROOT, SAMPLE_CONTENT))
    try:
        runner.make_snapshot(Location(str(SAMPLE_CONTENT), 1))
    finally:
        runner.close()
    path = runner.snapshot_path
    return path if path is not None and path.is_file() else None


def share_python_snapshot(root: Path) -> None:
    """Give a scratch project root the project's snapshot under the name its builds look for.

    A build of a project with a lab makes the snapshot when its `.cache/cells/`
    lacks it: one Pyodide start under Node (about 4 s). Scratch roots share
    the real core, kernel and runtime, so the snapshot's name (their
    fingerprint) is the same and each build restores it instead.
    """
    snapshot = find_python_snapshot()
    if snapshot is not None:
        (root / ".cache" / "cells").mkdir(parents=True, exist_ok=True)
        shutil.copy(snapshot, root / ".cache" / "cells" / snapshot.name)
        shutil.copy(PROJECT_ROOT / SNAPSHOT_RECORD, root / SNAPSHOT_RECORD)  # what vouches for it


def make_scratch_project(project: Path) -> Path:
    """Make a scratch copy of the project at `project` (build.py, code, templates, the sample content; node_modules
    linked) whose builds are real `build.py` runs with their own .cache/, and return it."""
    project.mkdir(parents=True)
    shutil.copy(PROJECT_ROOT / "build.py", project)
    shutil.copytree(PROJECT_ROOT / "pysrc", project / "pysrc", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copytree(PROJECT_ROOT / "site_templates", project / "site_templates")
    shutil.copytree(PROJECT_ROOT / "client", project / "client")
    shutil.copytree(SAMPLE_CONTENT, project / "content")
    (project / "node_modules").symlink_to(PROJECT_ROOT / "node_modules")
    share_python_snapshot(project)
    return project


def give_own_node_modules(project: Path) -> Path:
    """Give a scratch project a node_modules folder of its own (each package linked, no tool's cache yet), so what a
    test plants in its tool's cache stays there; return the folder where that cache goes (empty, not made)."""
    (project / "node_modules").unlink()
    (project / "node_modules").mkdir()
    for package in (PROJECT_ROOT / "node_modules").iterdir():
        if package.name != ".cache":
            (project / "node_modules" / package.name).symlink_to(package)
    return project / "node_modules" / ".cache" / "rollouts"


def share_tool_cache(tool_cache: Path, leaving_out: str) -> None:
    """Copy the project's tool cache, all but the folder `leaving_out`, into a scratch project's own (from
    give_own_node_modules), so its cold build makes only what the test is about: the rest (the compressed runtime
    alone is about 20 s of CPU) is what any earlier build of the same tool left. `built_sample` has filled it."""
    for folder in (PROJECT_ROOT / TOOL_CACHE).iterdir():
        if folder.is_dir() and folder.name != leaving_out:
            shutil.copytree(folder, tool_cache / folder.name)


def run_build_py(project: Path, *arguments: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run a scratch project's own `build.py ARGUMENTS` in its folder; return what it printed and its status."""
    return subprocess.run(
        [sys.executable, str(project / "build.py"), *arguments], cwd=project, capture_output=True, text=True, timeout=timeout
    )


# A sitecustomize module for a child Python that tells the test when build.py first imports sitegen: inside
# build.py's Ctrl-C guard, so from then on a Ctrl-C is the build's to handle (before, it is Python's own start-up's).
# It writes one byte to the pipe named by READY_PIPE, once, and takes the name out of the environment so the
# child's own children (the dev server's build process) do not write too.
READY_PIPE = "ROLLOUTS_TEST_READY_PIPE"
READY_HOOK = f"""
import os, sys

_pipe = os.environ.pop({READY_PIPE!r}, None)


class _ReportSitegen:
    def find_spec(self, name, path=None, target=None):
        if name == "sitegen":
            sys.meta_path.remove(self)
            os.write(int(_pipe), b"1")
            os.close(int(_pipe))
        return None


if _pipe is not None:
    sys.meta_path.insert(0, _ReportSitegen())
"""
READY_TIMEOUT = 120  # seconds for Python to start and reach build.py's imports, on a machine as busy as can be


def start_build_py(folder: Path, *arguments: str, **options: object) -> subprocess.Popen[str]:
    """Start the project's `build.py ARGUMENTS` in `folder`; return once it has begun importing sitegen.

    The wait is for that event, not for a guess of how long Python takes to
    start: a guess made on a quiet machine is too short on a busy one.
    `options` go to Popen (stdout, stderr, start_new_session, ...).
    """
    hook = folder / ".ready-hook"
    hook.mkdir(exist_ok=True)
    (hook / "sitecustomize.py").write_text(READY_HOOK, encoding="utf-8")
    ready, ready_to_write = os.pipe()
    paths = [str(hook), *filter(None, [os.environ.get("PYTHONPATH")])]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), READY_PIPE: str(ready_to_write)}
    try:
        process: subprocess.Popen[str] = subprocess.Popen(
            [sys.executable, str(PROJECT_ROOT / "build.py"), *arguments],
            cwd=folder,
            env=environment,
            pass_fds=(ready_to_write,),
            text=True,
            **options,
        )
    finally:
        os.close(ready_to_write)
    try:
        readable, _, _ = select.select([ready], [], [], READY_TIMEOUT)
        if not readable or os.read(ready, 1) != b"1":
            process.kill()
            raise AssertionError(f"build.py did not begin importing sitegen within {READY_TIMEOUT} s")
    finally:
        os.close(ready)
    return process


def communicate_or_kill(process: subprocess.Popen[str], timeout: float = 60) -> tuple[str, str]:
    """Return the process's stdout and stderr once it ends; past `timeout`, kill it (and its process group when it
    leads one) and fail, so that a test that failed leaves no server running."""
    try:
        return process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            if os.getpgid(process.pid) == process.pid:
                os.killpg(process.pid, signal.SIGKILL)
            else:
                process.kill()
        stdout, stderr = process.communicate()
        raise AssertionError(f"still running after {timeout} s, killed; stdout: {stdout!r}; stderr: {stderr!r}") from None


@dataclass(frozen=True)
class CliRun:
    """The exit status and the output of one in-process `build.py` run."""

    status: int
    stdout: str
    stderr: str


def run_cli(arguments: list[str], cwd: Path, capsys) -> CliRun:
    """Run `build.py ARGUMENTS` in-process from `cwd`, the way a shell in that folder would."""
    previous = Path.cwd()
    os.chdir(cwd)
    try:
        capsys.readouterr()
        status = main(arguments)
        captured = capsys.readouterr()
    finally:
        os.chdir(previous)
    return CliRun(status, captured.out, captured.err)


def snapshot_folder(folder: Path) -> dict[str, bytes]:
    """Return every file under a folder with its bytes, keyed by relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def copy_sample(destination: Path) -> Path:
    """Copy the sample content folder to destination/content and return it."""
    content = destination / "content"
    shutil.copytree(SAMPLE_CONTENT, content)
    return content


def render_fragment(
    markdown: str, checked: CheckedProject, katex: KatexProcess, templates: tuple[tuple[str, str], ...] = ()
) -> tuple[str, list[str]]:
    """Render Markdown as chapter 1's body of the checked sample site; return the HTML and the page's own problems.

    `templates` are added to the site's (a partial for a kind the test registers).
    """
    source = Source("content/01-fixture.md", "01-fixture.md", FIXTURE_FRONT_MATTER + markdown)
    page = parse_page(source, "chapter", 6, dict(checked.project.core_modules))
    math = katex.render((f.tex, f.display) for f in page.formulas)
    errors = [
        f"{f.location}: math error: {math[(f.tex, f.display)].error}" for f in page.formulas if math[(f.tex, f.display)].error
    ]
    outputs: dict = {}
    if page.cells:
        with create_cell_runner(checked.project) as runner:
            outputs, cell_problems = runner.run([page.cells])
        errors += [d.format() for d in cell_problems]
    site = create_site_context(checked, plan_assets(checked))
    site = replace(
        site,
        cells=outputs,
        chapters=(page,),
        figure_numbers=number_figures([page]),
        term_users=find_term_users([page]),
        math={**checked.math, **math},
        templates=site.templates + templates,
    )
    if page.problems:
        return "", [d.format() for d in page.problems] + errors
    return render_markdown(page.tokens, page, site), errors
