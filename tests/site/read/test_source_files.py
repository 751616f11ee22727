"""Source files are read again only when they changed (the dev server reads every source after each edit)."""

from __future__ import annotations

import os

from sitegen.read import source_files
from sitegen.read.source_files import read_source_text

HOUR_NS = 3600 * 10**9


def count_reads(monkeypatch) -> list[str]:
    reads: list[str] = []
    real = source_files.read_changed_text

    def counted(path, shown_as):
        reads.append(shown_as)
        return real(path, shown_as)

    monkeypatch.setattr(source_files, "read_changed_text", counted)
    return reads


def test_an_unchanged_file_is_not_read_again(tmp_path, monkeypatch):
    reads = count_reads(monkeypatch)
    path = tmp_path / "01-a.md"
    path.write_text("first\n", encoding="utf-8")
    old = os.stat(path).st_mtime_ns - HOUR_NS
    os.utime(path, ns=(old, old))  # the change time stays now: remembered only once it is older than RACY_NS
    monkeypatch.setattr(source_files.time, "time_ns", lambda: os.stat(path).st_ctime_ns + 2 * source_files.RACY_NS)
    assert read_source_text(path, "content/01-a.md") == "first\n"
    assert read_source_text(path, "content/01-a.md") == "first\n"
    assert reads == ["content/01-a.md"]


def test_an_edit_of_the_same_size_and_time_is_seen(tmp_path, monkeypatch):
    reads = count_reads(monkeypatch)
    path = tmp_path / "01-a.md"
    path.write_text("first\n", encoding="utf-8")
    stamp = os.stat(path).st_mtime_ns - HOUR_NS
    os.utime(path, ns=(stamp, stamp))
    monkeypatch.setattr(source_files.time, "time_ns", lambda: os.stat(path).st_ctime_ns + 2 * source_files.RACY_NS)
    assert read_source_text(path, "content/01-a.md") == "first\n"
    path.write_text("other\n", encoding="utf-8")
    os.utime(path, ns=(stamp, stamp))  # same size, same modification time: the change time tells
    assert read_source_text(path, "content/01-a.md") == "other\n"
    assert len(reads) == 2


def test_a_file_written_just_before_its_reading_is_read_again(tmp_path, monkeypatch):
    reads = count_reads(monkeypatch)
    path = tmp_path / "01-a.md"
    path.write_text("first\n", encoding="utf-8")
    # Read within the clock tick of its writing: a second write in that tick could keep the same signature.
    monkeypatch.setattr(source_files.time, "time_ns", lambda: os.stat(path).st_ctime_ns + source_files.RACY_NS // 2)
    assert read_source_text(path, "content/01-a.md") == "first\n"
    assert read_source_text(path, "content/01-a.md") == "first\n"
    assert len(reads) == 2
