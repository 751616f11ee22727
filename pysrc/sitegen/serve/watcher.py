"""The dev server's watcher: which folders hold content, templates, the client's scripts and code, and the thread that reports their changes."""

from __future__ import annotations

import queue
import re
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

# watchfiles looks for changes every STEP_MS and yields them once a look finds
# nothing new (an editor's save is a burst of events within a millisecond or
# two), so a change waits one to two steps: 5 ms keeps that a small part of
# edit → served (it was 20–40 ms with 20), for ~200 cheap wake-ups a second of
# its Rust thread. DEBOUNCE_MS caps the wait while changes keep coming.
STEP_MS = 5
DEBOUNCE_MS = 300
WATCH_RETRY_SECONDS = 0.2
# How watchfiles fails on a path that is not UTF-8 (its Rust side cannot make a string of it), the name escaped.
UNDECODABLE_PATH = re.compile(r'Unable to decode path "(.*)" to string')


@dataclass(frozen=True)
class WatchedFolders:
    """The folders a change in which means: new content, new templates or scripts (client/), or new code."""

    content: Path
    templates: Path
    client: Path
    code: Path

    def classify(self, paths: Iterable[str]) -> str:
        """Return "code", "all" or "content": what the changed paths require (the widest wins)."""
        kinds = set()
        for name in paths:
            path = Path(name)
            if self.code in path.parents:
                kinds.add("code")
            elif self.templates in path.parents or self.client in path.parents:
                kinds.add("all")
            else:
                kinds.add("content")
        for kind in ("code", "all", "content"):
            if kind in kinds:
                return kind
        return "content"


def watch_folders(folders: WatchedFolders, changes: queue.Queue[set[str]], stop: threading.Event) -> None:
    """Put each batch of changed paths on the queue until stopped (runs on its own thread).

    A watch follows the folder it started on: if the content folder is
    deleted (a `git checkout`, a script that recreates it), the watch is
    started again once the folder is back, and that counts as a change,
    reported once the new watch runs.
    The folders' identities are also looked at every WATCH_RETRY_SECONDS
    while nothing changes, not only after a reported change: a watch whose
    folder went away unreported would otherwise wait forever (seen once, in
    a loaded test run: a rebuild for the deletion, then none for the folder
    made again).
    A changed file whose name is not UTF-8 ends a watch with an error (it
    once printed a traceback and stopped the rebuilds for good): its name is
    reported, escaped, the change counts as one in the content folder (the
    build says what it makes of the name), and the watch starts again.
    """
    from watchfiles import watch

    paths = [folders.content, folders.templates, folders.client, folders.code]
    come_back = False  # a folder was made again: its change is reported once the new watch runs
    while not stop.is_set():
        watched = identify_folders(paths)
        if watched is None:
            stop.wait(WATCH_RETRY_SECONDS)
            continue
        try:
            for batch in watch(
                *paths,
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                stop_event=stop,
                rust_timeout=int(WATCH_RETRY_SECONDS * 1000),
                yield_on_timeout=True,
                raise_interrupt=False,
            ):
                # The first answer of a watch (a batch, or nothing within WATCH_RETRY_SECONDS) comes once it runs: a
                # folder made again is reported only then, so that what is written into it after the rebuild that
                # reading starts is seen by the watch. Reported before, a copy still filling the folder could end
                # while the watch was starting, and its last files start no rebuild (seen in loaded test runs).
                if batch or come_back:
                    changes.put({path for _change, path in batch} | ({str(folders.content)} if come_back else set()))
                    come_back = False
                if identify_folders(paths) != watched:
                    break
            else:
                return  # stopped
        except RuntimeError as error:  # watchfiles' WatchfilesRustInternalError
            name = UNDECODABLE_PATH.search(str(error))
            if name is None:
                raise
            print(
                f"build.py serve: a file name that is not UTF-8 changed: {name.group(1)}; rename it", file=sys.stderr, flush=True
            )
            changes.put({str(folders.content)})
            continue
        except FileNotFoundError:
            # A folder went away between the look above and the watch's start: wait for it as below. If all are
            # still there, the error is another one: raised, not retried in a loop of rebuilds.
            if identify_folders(paths) == watched:
                raise
        while not stop.is_set() and identify_folders(paths) is None:
            stop.wait(WATCH_RETRY_SECONDS)
        come_back = True


def identify_folders(paths: list[Path]) -> list[tuple[int, int]] | None:
    """Return each folder's (device, inode), or None if one is missing: a folder deleted and made again is another one."""
    try:
        return [(status.st_dev, status.st_ino) for status in (path.stat() for path in paths)]
    except OSError:
        return None
