"""A big book's later chapters parsed by a second process (sitegen/check/parse_worker.py): the same pages, whatever happens to it."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from site_testing import PROJECT_ROOT
from sitegen.check.parse import parse_page, parse_project
from sitegen.check.parse_worker import PARALLEL_FROM, WORKER_SHARE, ParseWorker, parse_on_two_cores
from sitegen.model import Page, Project, Source
from sitegen.read.load import load_project


@pytest.fixture(scope="module")
def big_book() -> Project:
    """The tutorial with its six chapters copied to PARALLEL_FROM (renumbered), enough for the worker to start."""
    project = load_project(PROJECT_ROOT)
    chapters = list(project.chapters)
    for number in range(len(chapters) + 1, PARALLEL_FROM + 1):
        original = project.chapters[(number - 1) % len(project.chapters)]
        text = original.text.replace(f"chapter: {(number - 1) % 6 + 1}\n", f"chapter: {number}\n", 1)
        name = f"{number:02d}-{original.name[3:].removesuffix('.md')}-{number}.md"
        chapters.append(Source(path=f"content/{name}", name=name, text=text))
    return replace(project, chapters=tuple(chapters))


def parsed_pages(project: Project, parse) -> list[tuple[object, ...]]:
    """Each parsed page's fields (a Page compares by identity, so the dev server can tell reused pages)."""
    return [tuple(getattr(page, field.name) for field in fields(Page)) for page in parse_project(project, parse).pages]


def test_the_workers_pages_are_the_ones_parsed_here(big_book):
    worker = ParseWorker.start(big_book)
    assert worker is not None
    try:
        with_worker = parsed_pages(big_book, worker.parse)
        assert worker.pages_used == int(PARALLEL_FROM * WORKER_SHARE) > 0
    finally:
        worker.close()
    assert with_worker == parsed_pages(big_book, parse_page)


def test_a_worker_that_dies_leaves_its_chapters_to_this_process(big_book):
    worker = ParseWorker.start(big_book)
    assert worker is not None
    worker.process.kill()
    try:
        assert parsed_pages(big_book, worker.parse) == parsed_pages(big_book, parse_page)
        assert worker.pages_used == 0
    finally:
        worker.close()


def test_a_small_book_is_parsed_here_alone():
    with parse_on_two_cores(load_project(PROJECT_ROOT)) as parse:
        assert parse is parse_page
