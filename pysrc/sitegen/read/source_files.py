"""Read one author's file safely: a regular file of at most 1 MiB, valid UTF-8, no NUL bytes; anything else is a diagnostic.

The content folder is the author's, and anything can end up in it: a FIFO
(opening one blocks forever), a symbolic link (to a file anywhere: refused,
so nothing outside the project is read and published), a dangling one, a link loop, a folder
named `x.md`, a 4 GB file, a file saved in another encoding. Each is one
`path:line: message` line, and the build goes on reading the other files, so
every problem is reported at once. Nothing is read before its size is known
(limited_read.py).
"""

from __future__ import annotations

import errno
import os
import stat
import time
from pathlib import Path

from sitegen.diagnostics import BuildFailed, Diagnostic, Location, report
from sitegen.files.limited_read import FileTooLarge, NotARegularFile, read_limited
from sitegen.messages import (
    FILE_CHANGED_TO_NOT_REGULAR,
    FILE_CR_LINE_ENDINGS,
    FILE_NOT_REGULAR,
    FILE_NOT_UTF8,
    FILE_NUL_BYTE,
    FILE_TOO_LARGE,
    FILE_UNREADABLE,
)

# About 45 times the longest chapter (which parses in about a second at this size); site.yaml is held to it too.
SOURCE_LIMIT = 2**20


class UnreadableSource(Exception):
    """A source that cannot be read as text; carries the one diagnostic that says why."""

    def __init__(self, diagnostic: Diagnostic, text: str | None = None) -> None:
        super().__init__(diagnostic.format())
        self.diagnostic = diagnostic
        # For a bad byte: the text with it replaced by U+FFFD, so the file's
        # other problems are still found (and nothing follows from its absence).
        self.text = text


def describe_non_file(path: Path) -> str | None:
    """Return why `path` is not a regular file we can read ("" for a missing path), or None when it is one."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a symbolic link to a file that does not exist" if os.path.islink(path) else ""
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "a symbolic link loop"
        return f"cannot be read ({error.strerror or error})"
    if os.path.islink(path):
        # Its target may be anywhere (~/.ssh/id_rsa, /etc/shadow): read, it would be published. Refused as a FIFO is.
        return "a symbolic link, not a regular file"
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a folder, not a file"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO), not a regular file"
    return "not a regular file (a device or socket)"


# The text last read from each path, with the file's signature then (device, inode, size, modification and change
# times): the dev server reads every source after each edit, and an unchanged file is not read again. As in git's
# index, a file changed within RACY_NS of its reading is not remembered: a second write in the same clock tick would
# leave the same signature.
_texts: dict[Path, tuple[tuple[int, ...], str]] = {}
TEXTS_KEPT = 1024
RACY_NS = 100_000_000


def read_source_text(path: Path, shown_as: str) -> str:
    """Return a UTF-8 text file's text (newlines normalised, byte-order mark dropped), or raise UnreadableSource."""
    try:
        status = os.stat(path)
        signature = (status.st_dev, status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)
    except OSError:
        signature = None
    kept = _texts.get(path)
    if kept is not None and kept[0] == signature:
        return kept[1]
    text = read_changed_text(path, shown_as)
    if signature is not None and max(signature[3:]) < time.time_ns() - RACY_NS:
        if len(_texts) >= TEXTS_KEPT:
            del _texts[next(iter(_texts))]
        _texts[path] = (signature, text)
    return text


def read_changed_text(path: Path, shown_as: str) -> str:
    """Read the file for read_source_text: every check, every diagnostic."""
    problem = describe_non_file(path)
    if problem is not None:
        reason = problem or "not found"
        raise UnreadableSource(report(Location(shown_as, 0), FILE_NOT_REGULAR, reason=reason))
    try:
        data = read_limited(path, SOURCE_LIMIT, follow_links=False)
    except FileTooLarge as error:
        raise UnreadableSource(report(Location(shown_as, 0), FILE_TOO_LARGE, size=error.size, limit=SOURCE_LIMIT)) from None
    except NotARegularFile as error:  # it changed since describe_non_file looked
        raise UnreadableSource(report(Location(shown_as, 0), FILE_CHANGED_TO_NOT_REGULAR, kind=error.kind)) from None
    except OSError as error:
        raise UnreadableSource(report(Location(shown_as, 0), FILE_UNREADABLE, reason=error.strerror or error)) from None
    try:
        # utf-8-sig: an editor that writes a byte-order mark must not hide the front matter.
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        start = error.start + (3 if data.startswith(b"\xef\xbb\xbf") else 0)
        line, column = line_and_column(data, start)
        raise UnreadableSource(
            report(Location(shown_as, line), FILE_NOT_UTF8, byte=data[start], column=column),
            data.decode("utf-8-sig", errors="replace").replace("\0", "\ufffd").replace("\r\n", "\n"),
        ) from None
    if "\0" in text:
        line, column = line_and_column(data, data.index(b"\0"))
        raise UnreadableSource(
            report(Location(shown_as, line), FILE_NUL_BYTE, column=column),
            text.replace("\0", "\ufffd").replace("\r\n", "\n"),
        )
    text = text.replace("\r\n", "\n")
    if "\r" in text:
        # Old Mac line endings: Markdown would read one line where the author wrote many, and blame the wrong one.
        line = text.count("\n", 0, text.index("\r")) + 1
        raise UnreadableSource(report(Location(shown_as, line), FILE_CR_LINE_ENDINGS, line=line), text.replace("\r", "\n"))
    return text


def read_text(path: Path, shown_as: str) -> str:
    """Like read_source_text, for a file read on its own (site.yaml): its problem fails the build at once."""
    try:
        return read_source_text(path, shown_as)
    except UnreadableSource as unreadable:
        raise BuildFailed([unreadable.diagnostic]) from None


def line_and_column(data: bytes, offset: int) -> tuple[int, int]:
    """Return the 1-based line and byte column of a byte offset."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1
