"""A big book's chapters parsed on both cores: a second Python process parses the later ones while this one parses the first.

`parse_page` is a pure function of its arguments (parse.py), so a page parsed
in the worker is the page this process would have parsed; the pages come back
pickled. The worker can only save time, never change a result or an error:
whenever it fails (it could not start, died, answered nonsense, or its parse
raised), this process parses that page itself, and any exception rises from
here with its usual traceback.

What it costs, measured on the 2-core machine this was written on (see
docs/benchmarks.md): a chapter parses in ~33 ms; a parsed page pickles to
80–290 KB, ~8 ms each way; the worker needs ~0.3 s to import the parser. So a
book of fewer than PARALLEL_FROM chapters parses here alone, and the worker
takes a bit under half the chapters (WORKER_SHARE), since this process also
spends time unpickling the worker's pages.

Run as `python -m sitegen.check.parse_worker`: it reads pickles from stdin
(the core's source, then `(index, source, kind, chapter_count)` jobs, then
None) and writes `(index, page or None)` pickles to stdout.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from sitegen.check.parse import PageParser, parse_page
from sitegen.kinds.pages.chapter import KIND as CHAPTERS
from sitegen.model import Page, Project, Source

PARALLEL_FROM = 24
WORKER_SHARE = 0.45
# How long a worker may take to leave once told there is no more work, before it is killed.
_EXIT_WAIT = 5.0


@contextmanager
def parse_on_two_cores(project: Project) -> Iterator[PageParser]:
    """Yield a page parser that has the worker parse the project's later chapters, when the book is big enough."""
    worker = ParseWorker.start(project) if _worth_a_worker(len(project.chapters)) else None
    if worker is None:
        yield parse_page
        return
    try:
        yield worker.parse
    finally:
        worker.close()


def _worth_a_worker(chapters: int) -> bool:
    return chapters >= PARALLEL_FROM and (os.cpu_count() or 1) >= 2


class ParseWorker:
    """The worker process, the chapters it was given, and the pages it has sent back so far."""

    def __init__(self, process: subprocess.Popen[bytes], given: dict[Source, int]) -> None:
        self.process = process
        self._given = given
        self._received: dict[int, Page | None] = {}
        self._failed = False
        self.pages_used = 0  # how many of its pages were used (the others were parsed here)

    @classmethod
    def start(cls, project: Project) -> ParseWorker | None:
        """Start the worker and send it the later chapters; None when it cannot start (this process parses them all)."""
        chapters = project.chapters
        first_given = len(chapters) - int(len(chapters) * WORKER_SHARE)
        given = {source: index for index, source in enumerate(chapters) if index >= first_given}
        pysrc = str(Path(__file__).resolve().parents[2])
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [pysrc, os.environ.get("PYTHONPATH")]))}
        try:
            process = subprocess.Popen(
                [sys.executable, "-m", "sitegen.check.parse_worker"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                # Its own errors are never shown: a failed page is parsed again here, where an error is reported.
                stderr=subprocess.DEVNULL,
                env=environment,
            )
        except OSError:
            return None
        jobs = [(index, source, CHAPTERS.name, max(len(chapters), 1)) for source, index in given.items()]
        # Written from a thread: the worker answers while jobs are still being sent, and a pipe holds only 64 KB.
        threading.Thread(target=_send_jobs, args=(process.stdin, dict(project.core_modules), jobs), daemon=True).start()
        return cls(process, given)

    def parse(self, source: Source, kind: str, chapter_count: int, core_modules: dict[str, str]) -> Page:
        """Return the worker's page for a chapter it was given, else (or when it failed) parse it here."""
        index = self._given.get(source) if kind == CHAPTERS.name else None
        page = self._wait_for(index) if index is not None else None
        if page is None:
            return parse_page(source, kind, chapter_count, core_modules)
        self.pages_used += 1
        return page

    def _wait_for(self, index: int) -> Page | None:
        stdout = self.process.stdout
        while index not in self._received and not self._failed and stdout is not None:
            try:
                answered, page = pickle.load(stdout)
                if not isinstance(answered, int) or not (page is None or isinstance(page, Page)):
                    raise ValueError("not an answer")
                self._received[answered] = page
            except Exception:  # noqa: BLE001 - whatever went wrong, the page is parsed here instead
                self._failed = True
        return self._received.pop(index, None)

    def close(self) -> None:
        """Let the worker go (it stops at the end of its jobs, or at once when its pipes close)."""
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()
        try:
            self.process.wait(timeout=_EXIT_WAIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _send_jobs(stdin: BinaryIO | None, core: dict[str, str], jobs: list[tuple[int, Source, str, int]]) -> None:
    if stdin is None:
        return
    try:
        pickle.dump(core, stdin, protocol=pickle.HIGHEST_PROTOCOL)
        for job in jobs:
            pickle.dump(job, stdin, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.dump(None, stdin)
        stdin.flush()
    except (OSError, ValueError):
        pass  # the worker died or was let go: its chapters are parsed by the main process


def serve_jobs(requests: BinaryIO, answers: BinaryIO) -> None:
    """The worker's loop: parse each job and answer with its page (None when parsing it raised)."""
    core = pickle.load(requests)
    while (job := pickle.load(requests)) is not None:
        index, source, kind, chapter_count = job
        try:
            page: Page | None = parse_page(source, kind, chapter_count, core)
        except Exception:  # noqa: BLE001 - the main process parses it again and reports the error itself
            page = None
        pickle.dump((index, page), answers, protocol=pickle.HIGHEST_PROTOCOL)
        answers.flush()


if __name__ == "__main__":
    # Ctrl-C reaches the whole process group: the build reports it, not this worker; a closed pipe means "stop".
    with contextlib.suppress(KeyboardInterrupt, EOFError, BrokenPipeError):
        serve_jobs(sys.stdin.buffer, sys.stdout.buffer)
