"""A big book's later chapters parsed by a forked copy (sitegen/check/parse_beside.py): the same pages as parsed here."""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import fields
from pathlib import Path

from site_testing import PROJECT_ROOT, SAMPLE_CONTENT
from sitegen.check.parse import parse_page, parse_project
from sitegen.check.parse_beside import FORK_FROM, choose_copys_chapters, parse_beside
from sitegen.kinds.computed import list_computed_values
from sitegen.model import Page, ParsedProject, Project, Source
from sitegen.read.load import load_project

CHAPTER = re.compile(r"^0(\d)-(.+)\.md$")
# A computed value only the last chapter shows, so only the copy computes it (this process never saw it before).
LAST_CHAPTERS_VALUE = "{{ group-mean rewards=1,0.5,0.25,0.125,0.0625 }}"


def make_book(folder: Path, chapters: int) -> Project:
    """Return the project of the sample content with its chapters repeated until there are `chapters` of them."""
    shutil.copytree(SAMPLE_CONTENT, folder)
    originals = sorted(path for path in folder.glob("*.md") if CHAPTER.match(path.name))
    for number in range(len(originals) + 1, chapters + 1):
        source = originals[(number - 1) % len(originals)]
        text = re.sub(r"^chapter: \d+$", f"chapter: {number}", source.read_text(encoding="utf-8"), count=1, flags=re.M)
        (folder / f"{number:02d}-{CHAPTER.match(source.name).group(2)}-copy.md").write_text(text, encoding="utf-8")  # type: ignore[union-attr]
    last = sorted(folder.glob("*-copy.md"))[-1] if chapters > len(originals) else originals[-1]
    last.write_text(last.read_text(encoding="utf-8") + f"\nThe last chapter's mean: {LAST_CHAPTERS_VALUE}.\n", encoding="utf-8")
    return load_project(PROJECT_ROOT, folder)


def list_page_fields(parsed: ParsedProject) -> list[list[object]]:
    """Return every page's fields in order (a Page compares by identity; its fields, tokens included, by value)."""
    return [[getattr(page, field.name) for field in fields(page)] for page in parsed.pages]


def test_a_big_books_later_chapters_come_from_the_copy_and_equal_the_pages_parsed_here(tmp_path: Path):
    project = make_book(tmp_path / "content", FORK_FROM)
    copys = choose_copys_chapters(project.chapters)
    assert 0 < len(copys) < len(project.chapters) and copys == project.chapters[-len(copys) :]
    parsed_here: list[str] = []

    def parse_and_note(source: Source, kind: str, count: int, core: dict[str, str]) -> Page:
        parsed_here.append(source.path)  # the copy's calls land in the copy's own list, never seen here
        return parse_page(source, kind, count, core)

    assert LAST_CHAPTERS_VALUE.strip("{} ") not in list_computed_values()
    with parse_beside(project, parse_and_note) as parse:
        beside = parse_project(project, parse)
    assert LAST_CHAPTERS_VALUE.strip("{} ") in list_computed_values()  # the copy's computed values came back
    assert not {source.path for source in copys} & set(parsed_here)
    assert {source.path for source in project.chapters[: -len(copys)]} <= set(parsed_here)
    assert list_page_fields(beside) == list_page_fields(parse_project(project))


def test_a_copy_that_fails_leaves_its_chapters_to_this_process(tmp_path: Path):
    project = make_book(tmp_path / "content", FORK_FROM + 1)
    this_process = os.getpid()

    def parse_failing_in_a_copy(source: Source, kind: str, count: int, core: dict[str, str]) -> Page:
        if os.getpid() != this_process:
            raise RuntimeError("the copy fails")
        return parse_page(source, kind, count, core)

    with parse_beside(project, parse_failing_in_a_copy) as parse:
        beside = parse_project(project, parse)
    assert list_page_fields(beside) == list_page_fields(parse_project(project))


def test_a_small_book_is_parsed_here_alone(tmp_path: Path):
    project = make_book(tmp_path / "content", FORK_FROM - 1)
    assert choose_copys_chapters(project.chapters) == ()
    with parse_beside(project, parse_page) as parse:
        assert parse is parse_page


def test_a_copy_never_asked_for_its_pages_is_ended(tmp_path: Path):
    project = make_book(tmp_path / "content", FORK_FROM)
    with parse_beside(project) as parse:
        parse(project.chapters[0], "chapter", len(project.chapters), dict(project.core_modules))
    # Its pages were never asked for: the copy was ended and reaped, so this process has no child left.
    try:
        os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        pass
    else:
        raise AssertionError("a child of this process is still there")
