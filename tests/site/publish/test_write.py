"""Writing the output folder: its marker lists every file in it, at every moment a build can be stopped."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import threading
from pathlib import Path

import pytest

import sitegen.publish.write as write_module
from sitegen.publish.output_folder import BUILD_MARKER, OutputFolderRefused, adopt_folder, find_replace_problem, write_marker
from sitegen.publish.write import update_site, write_site


def listed_files(folder: Path) -> list[str]:
    return json.loads((folder / BUILD_MARKER).read_text(encoding="utf-8"))["files"]


def test_an_update_stopped_half_way_leaves_only_files_its_marker_lists(tmp_path, monkeypatch):
    out = tmp_path / "dist"
    old = {"a.html": b"a", "b.html": b"b"}
    new = {"b.html": b"b2", "assets/c.css": b"c"}
    write_site(old, out)
    real_write = write_module.write_atomically

    def write_then_stop(target: Path, content: bytes | str | Path) -> None:
        real_write(target, content)
        if target.name == "c.css":  # a Ctrl-C after the new file, before the old one is deleted
            raise KeyboardInterrupt

    monkeypatch.setattr(write_module, "write_atomically", write_then_stop)
    with pytest.raises(KeyboardInterrupt):
        update_site(new, out, old)

    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == [
        BUILD_MARKER,
        "a.html",
        "assets/c.css",
        "b.html",
    ]
    assert listed_files(out) == ["a.html", "assets/c.css", "b.html"]
    assert find_replace_problem(out) == ("", False)

    monkeypatch.setattr(write_module, "write_atomically", real_write)
    assert update_site(new, out, old) == ["a.html", "assets/c.css", "b.html"]
    assert listed_files(out) == ["assets/c.css", "b.html"]
    assert not (out / "a.html").exists()


def test_a_fifo_in_place_of_an_output_file_is_refused_not_read(tmp_path):
    out = tmp_path / "dist"
    out.mkdir()
    (out / BUILD_MARKER).write_bytes(write_marker(["empty.txt"], hashes={"empty.txt": hashlib.sha256(b"").hexdigest()}))
    os.mkfifo(out / "empty.txt")  # reading it to compare would wait for a writer forever
    refused: list[OutputFolderRefused] = []

    def write() -> None:
        try:
            write_site({"empty.txt": b""}, out)
        except OutputFolderRefused as refusal:
            refused.append(refusal)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    writer.join(timeout=30)
    if writer.is_alive():
        with open(out / "empty.txt", "wb"):  # let the stuck read end, then fail
            pass
        pytest.fail("write_site read the FIFO")
    # Not what the build wrote there (a regular file with that hash): never replaced, never read.
    assert [str(refusal) for refusal in refused] == [
        f"will not build into '{out}': it holds files that differ from what the last build wrote there: 'empty.txt'; "
        "move them or choose another folder"
    ]
    assert stat.S_ISFIFO(os.lstat(out / "empty.txt").st_mode)


def test_a_marker_written_by_hand_vouches_for_no_file(tmp_path):
    """Issue 60: a hand-written marker listing notes.md let a build delete it. A name alone vouches for nothing: the
    file must hold the bytes the marker names (or the manifest must record the marker itself, as the build's own)."""
    folder = tmp_path / "www"
    folder.mkdir()
    (folder / "notes.md").write_text("my notes\n", encoding="utf-8")
    refusals = []
    for marker in (write_marker(["notes.md"]), write_marker(["notes.md"], hashes={"notes.md": "0" * 64})):
        (folder / BUILD_MARKER).write_bytes(marker)
        refusals.append(find_replace_problem(folder))
    assert refusals == [
        ("it holds files no earlier build wrote there: 'notes.md'; move them or choose another folder", False),
        (
            "it holds files that differ from what the last build wrote there: 'notes.md'; move them or choose another folder",
            False,
        ),
    ]
    adopt_folder(folder)  # as a build that wrote it marks it
    assert find_replace_problem(folder) == ("", False)
