"""The dev server's watcher (serve/watcher.py), on real folders: what it reports, and when."""

from __future__ import annotations

import os
import queue
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitegen.serve.watcher import WatchedFolders, watch_folders

TIMEOUT = 30  # seconds to wait for a report that must come (a loaded machine is slow, not wrong)


@pytest.fixture
def watching(tmp_path) -> Iterator[tuple[WatchedFolders, queue.Queue[set[str]]]]:
    """Folders being watched on a thread, and the queue of what it reports."""
    folders = WatchedFolders(tmp_path / "content", tmp_path / "site_templates", tmp_path / "client", tmp_path / "pysrc")
    for folder in (folders.content, folders.templates, folders.client, folders.code):
        folder.mkdir()
    changes: queue.Queue[set[str]] = queue.Queue()
    stop = threading.Event()
    thread = threading.Thread(target=watch_folders, args=(folders, changes, stop), daemon=True)
    thread.start()
    try:
        yield folders, changes
    finally:
        stop.set()
        thread.join(TIMEOUT)


def wait_for(changes: queue.Queue[set[str]], path: Path) -> None:
    """Take reports off the queue until one names `path` (fails after TIMEOUT seconds)."""
    while str(path) not in changes.get(timeout=TIMEOUT):
        pass


def write_until_reported(changes: queue.Queue[set[str]], path: Path) -> None:
    """Write a file again and again until a report names it: then the watch surely runs (it starts on its own time)."""
    for attempt in range(int(TIMEOUT / 0.2)):
        path.write_text(str(attempt), encoding="utf-8")
        try:
            while str(path) not in changes.get(timeout=0.2):
                pass
            return
        except queue.Empty:
            continue
    pytest.fail(f"no report of {path} in {TIMEOUT} s")


def drain(changes: queue.Queue[set[str]], quiet: float = 1.0) -> None:
    """Take reports off the queue until none has come for `quiet` seconds."""
    try:
        while True:
            changes.get(timeout=quiet)
    except queue.Empty:
        return


def watched_by_this_process(folder: Path) -> bool:
    """Whether an inotify instance of this process watches `folder` (its fdinfo lists one line per watched inode)."""
    inode = f" ino:{folder.stat().st_ino:x} "
    for fd in os.listdir("/proc/self/fdinfo"):
        try:
            info = Path(f"/proc/self/fdinfo/{fd}").read_text(encoding="utf-8")
        except OSError:  # closed since the listing
            continue
        if any(line.startswith("inotify wd:") and inode in line for line in info.splitlines()):
            return True
    return False


def wait_until_unwatched(folder: Path) -> None:
    """Wait until no watch of this process is on `folder` (fails after TIMEOUT seconds)."""
    for _ in range(int(TIMEOUT / 0.05)):
        if not watched_by_this_process(folder):
            return
        time.sleep(0.05)
    pytest.fail(f"{folder} still watched after {TIMEOUT} s")


def take_queued(changes: queue.Queue[set[str]]) -> None:
    """Take the reports already on the queue, waiting for none."""
    while not changes.empty():
        changes.get_nowait()


def test_a_file_written_into_a_content_folder_made_again_is_reported(watching):
    folders, changes = watching
    write_until_reported(changes, folders.content / "01-first.md")
    shutil.rmtree(folders.content)
    # The deletion ends the watch on all four folders; its reports (none, one or two: the watch may see the deletion
    # or only the folder gone) are all on the queue before that watch closes. Waiting a quiet second instead let a
    # loaded machine report the deletion later, and that report was then taken for the folder made again.
    wait_until_unwatched(folders.templates)
    take_queued(changes)
    folders.content.mkdir()
    wait_for(changes, folders.content)  # the folder made again counts as a change
    # Reported once the new watch runs: what is written from now on is seen (a copy still filling the folder when
    # the rebuild for it starts), every time.
    later = folders.content / "02-second.md"
    later.write_text("two", encoding="utf-8")
    wait_for(changes, later)


def test_a_file_name_that_is_not_utf8_is_reported_escaped_and_the_watch_goes_on(watching, capsys):
    """Issue 60: watchfiles cannot make a string of such a name; the watcher printed a traceback and stopped for good."""
    folders, changes = watching
    write_until_reported(changes, folders.content / "ready.md")
    drain(changes)
    with open(bytes(folders.content) + b"/notes\xff.md", "wb") as named_in_latin_1:
        named_in_latin_1.write(b"x")
    wait_for(changes, folders.content)
    write_until_reported(changes, folders.content / "after.md")
    assert capsys.readouterr().err == (
        f"build.py serve: a file name that is not UTF-8 changed: {folders.content}/notes\\xFF.md; rename it\n"
    )
