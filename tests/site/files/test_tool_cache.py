"""The tool's own cache (sitegen/files/tool_cache.py): checked on every read, and never needed for a build to succeed."""

from __future__ import annotations

from pathlib import Path

from site_testing import give_own_node_modules, make_scratch_project, run_build_py
from sitegen.files.tool_cache import find_writable, read_verified, write_verified


def test_an_entry_reads_back_only_while_its_bytes_match_their_hash(tmp_path: Path):
    entry = tmp_path / "deep" / "entry.js"
    assert read_verified(entry) is None
    write_verified(entry, b"const a = 1;\n")
    assert read_verified(entry) == b"const a = 1;\n"
    stored = entry.read_bytes()
    for damaged in (stored[:-1], stored.replace(b"1", b"2"), stored.split(b"\n", 1)[1], b""):
        entry.write_bytes(damaged)
        assert read_verified(entry) is None, damaged


def test_a_cache_that_cannot_be_written_is_skipped(tmp_path: Path):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache would go\n")
    write_verified(blocked / "entry.js", b"data")  # no error: nothing stored
    assert read_verified(blocked / "entry.js") is None
    assert find_writable(blocked / "jinja") is None
    assert find_writable(tmp_path / "fresh" / "jinja") == tmp_path / "fresh" / "jinja"


def test_a_build_succeeds_when_the_tools_cache_cannot_be_made(tmp_path: Path):
    project = make_scratch_project(tmp_path / "project")
    # Its own node_modules, and a file where the tool's cache folder would be.
    tool_cache = give_own_node_modules(project)
    tool_cache.parent.mkdir()
    tool_cache.write_text("not a folder\n")
    result = run_build_py(project, "build", "--quiet")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert (project / "dist" / "index.html").is_file()
