"""The session holds every memo a build process keeps between builds, and forgetting them changes no output.

Before, six module-level stores were spread over five modules, each with its
own `global` statements; now each module keeps its memo with the session, so
the list below is the whole of what outlives one build (sitegen/session.py).
"""

from __future__ import annotations

from pathlib import Path

from site_testing import PROJECT_ROOT, SAMPLE_CONTENT
from sitegen.pipeline import build_site
from sitegen.read.load import load_project
from sitegen.session import SESSION, Session, Slot

MEMOS = (
    "computed values",
    "drawn figures",
    "chapter summary",
    "search documents",
    "search index",
    "file digests",
    "lab settings checked",
)


def test_the_session_holds_every_memo_of_the_build():
    import sitegen.commands.cli  # noqa: F401  (the whole build, so every module that keeps a memo is imported)

    assert sorted(SESSION.names()) == sorted(MEMOS)


def test_forget_empties_each_kind_of_memo():
    session = Session()
    table: dict[str, str] = session.keep("table", {"a": "b"})
    last: Slot[int] = session.keep("last", Slot())
    last.value = 3
    session.forget()
    assert (table, last.value, session.names()) == ({}, None, ("table", "last"))


def test_a_build_after_forgetting_writes_the_same_bytes(tmp_path: Path):
    first, second = tmp_path / "first", tmp_path / "second"
    build_site(load_project(PROJECT_ROOT, SAMPLE_CONTENT), first)
    SESSION.forget()
    build_site(load_project(PROJECT_ROOT, SAMPLE_CONTENT), second)
    written = sorted(path.relative_to(first) for path in first.rglob("*") if path.is_file())
    assert written == sorted(path.relative_to(second) for path in second.rglob("*") if path.is_file())
    assert [path for path in written if (first / path).read_bytes() != (second / path).read_bytes()] == []
