"""A copy of the build on the second core (sitegen/speed/beside.py): the same bytes whichever process made a page.

The tutorial's own content (six chapters) is built with and without the copy,
with the copy killed before it parsed, after it parsed and after it was sent
the search documents, with work done while waiting that fails, and with a fork
that fails: each time every file is the same, the build renders only the pages
the copy did not, and the search index is made once, by the copy when it can. Which chapters a
copy takes are read from data (how many cores are free: test_free_cores.py).
"""

from __future__ import annotations

import gc
import os
import signal
from collections.abc import Callable
from pathlib import Path

import pytest

import sitegen.speed.beside
from site_testing import PROJECT_ROOT, SAMPLE_CONTENT, snapshot_folder
from sitegen.check.formulas import KatexProcess
from sitegen.context import SiteContext
from sitegen.model import Page, Project
from sitegen.pipeline import build_site, check_project, make_site
from sitegen.read.load import load_project
from sitegen.render.pages import render_page
from sitegen.speed.beside import Beside, choose_copys_chapters, parse_and_render_beside

CONTENT = PROJECT_ROOT / "content"
COPYS_CHAPTERS = ["06-learning.html", "07-signal.html"]  # the last ones, about half of all the Markdown's text


@pytest.fixture(scope="module")
def project() -> Project:
    """The tutorial's own content, read once."""
    return load_project(PROJECT_ROOT, CONTENT)


@pytest.fixture(scope="module")
def katex(project):
    """One KaTeX process for the module's checks."""
    with KatexProcess(project.katex_script, project.math_cache) as process:
        yield process


@pytest.fixture(scope="module")
def files_built_here(project, katex) -> dict[str, object]:
    """Every file of the site made by this process alone."""
    return make_site(check_project(project, katex))


class CountedRender:
    """A page renderer that remembers which pages this process rendered."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def __call__(self, page: Page, site: SiteContext) -> str:
        self.names.append(page.output_name)
        return render_page(page, site)


@pytest.mark.parametrize(
    ("content", "free_cores", "chosen"),
    [
        (CONTENT, 2.0, ["06-learning.md", "07-signal.md"]),
        (CONTENT, 0.5, ["06-learning.md", "07-signal.md"]),
        (CONTENT, 0.4, []),  # the load leaves less than half a core: no copy
        (SAMPLE_CONTENT, 2.0, []),  # three chapters: too few to pay for a fork
    ],
)
def test_the_copy_takes_the_last_chapters_only_with_a_core_free_and_enough_chapters(content, free_cores, chosen):
    project = load_project(PROJECT_ROOT, content)
    assert [source.name for source in choose_copys_chapters(project, free_cores)] == chosen


def test_a_build_with_the_copy_writes_the_same_bytes_as_one_without(project, tmp_path):
    build_site(project, tmp_path / "with", free_cores=2.0)
    build_site(project, tmp_path / "without", free_cores=0.0)
    assert snapshot_folder(tmp_path / "with") == snapshot_folder(tmp_path / "without")


def record_callers(monkeypatch, tmp_path: Path, name: str) -> Callable[[], list[int]]:
    """Make sitegen.speed.beside's function `name` record the process that calls it (the copy, forked after this, records
    its own); return a reader of their process ids, one per call."""
    record, function = tmp_path / f"{name}-callers", getattr(sitegen.speed.beside, name)

    def call_and_record(*args):
        with open(record, "a", encoding="utf-8") as lines:
            lines.write(f"{os.getpid()}\n")
        return function(*args)

    monkeypatch.setattr(sitegen.speed.beside, name, call_and_record)
    return lambda: [int(line) for line in record.read_text(encoding="utf-8").split()] if record.exists() else []


@pytest.fixture
def index_writers(monkeypatch, tmp_path) -> Callable[[], list[int]]:
    """The processes that write the search index, one per index."""
    return record_callers(monkeypatch, tmp_path, "write_search_index")


@pytest.fixture
def figure_parsers(monkeypatch, tmp_path) -> Callable[[], list[int]]:
    """The processes that parse a figure, one per figure."""
    return record_callers(monkeypatch, tmp_path, "parse_figure")


def make_site_beside(
    project: Project, katex: KatexProcess, break_copy: Callable[[int], None]
) -> tuple[dict, CountedRender, list[str]]:
    """Make the site with a copy; `break_copy(pid)` runs once the copy is started; return the files, the renders
    done here, and the chapters that came back from the copy without tokens."""
    render = CountedRender()
    with parse_and_render_beside(project, free_cores=2.0) as beside:
        assert beside is not None
        break_copy(beside.pid)
        checked = check_project(project, katex, beside.parse, parse_svg=beside.parse_figure)
        summarised = [page.output_name for page in checked.parsed.chapters if not page.tokens]
        files = make_site(checked, beside.renderer(render), beside=beside)
    return files, render, summarised


def test_the_copy_parses_and_renders_its_chapters_and_the_build_the_rest(project, katex, files_built_here):
    files, render, summarised = make_site_beside(project, katex, lambda _pid: None)
    assert summarised == COPYS_CHAPTERS
    assert sorted(set(render.names) & set(COPYS_CHAPTERS)) == []
    assert files == files_built_here


def test_the_copy_makes_the_search_index_and_the_build_takes_it(project, katex, files_built_here, index_writers):
    pids = []
    files, _render, _summarised = make_site_beside(project, katex, pids.append)
    assert index_writers() == pids  # once, in the copy
    assert files == files_built_here


def test_the_copy_parses_the_figures_and_the_build_takes_them(project, katex, files_built_here, figure_parsers):
    pids: list[int] = []
    files, _render, _summarised = make_site_beside(project, katex, pids.append)
    assert figure_parsers() == pids * len(project.figures)  # each once, in the copy
    assert files == files_built_here


def test_a_copy_killed_before_it_sends_anything_leaves_the_figures_to_the_build(project, katex, files_built_here, figure_parsers):
    files, _render, _summarised = make_site_beside(project, katex, lambda pid: os.kill(pid, signal.SIGKILL))
    assert figure_parsers().count(os.getpid()) == len(project.figures)
    assert files == files_built_here


def test_a_copy_killed_after_it_was_sent_the_documents_leaves_the_index_to_the_build(
    project, katex, files_built_here, index_writers, monkeypatch
):
    send_documents = Beside.send_documents

    def send_and_kill(beside: Beside, parsed) -> None:
        send_documents(beside, parsed)
        os.kill(beside.pid, signal.SIGKILL)
        os.waitpid(beside.pid, 0)

    monkeypatch.setattr(Beside, "send_documents", send_and_kill)
    files, render, summarised = make_site_beside(project, katex, lambda _pid: None)
    assert summarised == COPYS_CHAPTERS
    assert set(COPYS_CHAPTERS) <= set(render.names)
    # The copy may have made its index before it was killed; the build made the one written.
    assert index_writers().count(os.getpid()) == 1
    assert files == files_built_here


def test_work_done_while_waiting_that_fails_changes_nothing(project, katex, files_built_here):
    def failing() -> None:
        raise OSError("unreadable")

    render = CountedRender()
    with parse_and_render_beside(project, free_cores=2.0) as beside:
        assert beside is not None
        beside.meanwhile.append(failing)
        checked = check_project(project, katex, beside.parse, parse_svg=beside.parse_figure)
        files = make_site(checked, beside.renderer(render), beside=beside)
        assert beside.meanwhile == []
    assert sorted(set(render.names) & set(COPYS_CHAPTERS)) == []
    assert files == files_built_here


def test_a_fork_that_fails_leaves_every_page_to_the_build(project, tmp_path, monkeypatch):
    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    build_site(project, tmp_path / "without", free_cores=0.0)
    monkeypatch.setattr(os, "fork", no_fork)
    with parse_and_render_beside(project, free_cores=2.0) as beside:
        assert beside is None
        assert gc.get_freeze_count() == 0  # nothing left out of the collector's reach
    build_site(project, tmp_path / "with", free_cores=2.0)
    assert snapshot_folder(tmp_path / "with") == snapshot_folder(tmp_path / "without")


def test_a_copy_killed_before_it_sends_anything_leaves_its_chapters_to_the_build(project, katex, files_built_here):
    files, render, summarised = make_site_beside(project, katex, lambda pid: os.kill(pid, signal.SIGKILL))
    assert summarised == []
    assert set(COPYS_CHAPTERS) <= set(render.names)
    assert files == files_built_here


def test_a_copy_killed_after_it_parsed_has_its_chapters_parsed_again_and_rendered_by_the_build(project, katex, files_built_here):
    render = CountedRender()
    with parse_and_render_beside(project, free_cores=2.0) as beside:
        assert beside is not None
        checked = check_project(project, katex, beside.parse, parse_svg=beside.parse_figure)
        assert [page.output_name for page in checked.parsed.chapters if not page.tokens] == COPYS_CHAPTERS
        os.kill(beside.pid, signal.SIGKILL)
        os.waitpid(beside.pid, 0)
        files = make_site(checked, beside.renderer(render), beside=beside)
    assert set(COPYS_CHAPTERS) <= set(render.names)
    assert files == files_built_here
