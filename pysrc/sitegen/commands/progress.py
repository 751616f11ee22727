"""What `build.py build` tells the person at the terminal: a progress line while it works, one line when it is done.

The progress line appears only on a terminal (never in CI logs or pipes) and
only once the build has taken a second, so a quick build prints one line.
"""

from __future__ import annotations

import threading
from typing import TextIO

# Wait this long before the first progress line: a build that is done by then needs none.
PROGRESS_DELAY = 1.0
# Move to the start of the line and erase it (every terminal since the VT100 knows both).
ERASE_LINE = "\r\x1b[K"


class ProgressLine:
    """One line on a terminal, rewritten in place with the latest stage; silent on anything else, or unless `shown`.

    `report` is called from the build's thread; the first line is written by a
    timer after PROGRESS_DELAY, later ones as they come. `close` erases it.
    """

    def __init__(self, stream: TextIO, shown: bool = True, delay: float = PROGRESS_DELAY) -> None:
        self._stream = stream if shown and stream.isatty() else None
        self._text = ""
        self._shown = False
        self._lock = threading.Lock()
        self._timer = threading.Timer(delay, self._show)
        self._timer.daemon = True
        if self._stream is not None:
            self._timer.start()

    def report(self, text: str) -> None:
        """Make `text` the current stage ("Running Python cells: 3/6 pages")."""
        with self._lock:
            self._text = text
            if self._shown:
                self._write()

    def close(self) -> None:
        """Erase the line, if one was written, so what follows starts at the left margin."""
        self._timer.cancel()
        with self._lock:
            if self._shown and self._stream is not None:
                self._stream.write(ERASE_LINE)
                self._stream.flush()
            self._shown = False
            self._stream = None

    def _show(self) -> None:
        with self._lock:
            if self._stream is not None:
                self._shown = True
                self._write()

    def _write(self) -> None:
        if self._stream is not None and self._text:
            self._stream.write(ERASE_LINE + self._text)
            self._stream.flush()


def format_summary(pages: int, seconds: float, out_label: str, cells_run: int, cells_cached: int) -> str:
    """Return the line a successful build ends with: `Built 12 pages in 0.62 s → dist/ (5 cells cached)`."""
    line = f"Built {count(pages, 'page')} in {seconds:.2f} s → {out_label}"
    if cells_run and cells_cached:
        return f"{line} ({count(cells_run, 'cell')} run, {cells_cached} cached)"
    if cells_run:
        return f"{line} ({count(cells_run, 'cell')} run)"
    if cells_cached:
        return f"{line} ({count(cells_cached, 'cell')} cached)"
    return line


def format_up_to_date(seconds: float, out_label: str) -> str:
    """Return the line of a build that found nothing changed since the last one."""
    return f"Nothing changed since the last build: {out_label} is up to date ({seconds:.2f} s)"


def label_folder(typed: str | None) -> str:
    """Return the output folder as the person typed it (default dist/), ending in a slash."""
    label = typed if typed is not None else "dist"
    return label if label.endswith("/") else label + "/"


def count(number: int, noun: str) -> str:
    """Return "1 page", "12 pages"."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
