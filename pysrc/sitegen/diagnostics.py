"""Problems found in the sources, and the one exception a failed build raises.

Every problem names the file and line it came from, so an author can jump
straight to it; the build collects all of them and fails once.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass

MESSAGE_LIMIT = 1000
_LONG_QUOTE = re.compile(r"'([^'\s]{41,})'")


@dataclass(frozen=True, order=True)
class Location:
    """A line in a source file; `path` is written the way the author gave the content folder.

    Line 0 stands for the file as a whole (e.g. a missing file) and prints without a line.
    """

    path: str
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}" if self.line else self.path


@dataclass(frozen=True)
class Diagnostic:
    """One problem at one place; warnings do not stop a build unless it is strict."""

    location: Location
    message: str
    is_warning: bool = False

    def format(self) -> str:
        """Return the line printed for this problem: `path:line: message`.

        Any quoted name or value in the message is cut to a short excerpt (a
        100 KB key must not become a 100 KB line), and so is the message.
        """
        prefix = "warning: " if self.is_warning else ""
        message = _LONG_QUOTE.sub(lambda match: "'" + excerpt(match.group(1)) + "'", self.message)
        return f"{self.location}: {prefix}{excerpt(message, MESSAGE_LIMIT)}"


def excerpt(value: object, limit: int = 40) -> str:
    """Return a value as an author would recognise it, cut to `limit` characters: messages never echo a whole huge value."""
    try:
        text = value if isinstance(value, str) else repr(value)
    except ValueError:  # an int over Python's 4300-digit limit (YAML reads 0xfff… without one)
        text = f"a {type(value).__name__} too long to show"
    text = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quote(value: object) -> str:
    """Return a value as Python writes it ('text' quoted), cut to a short excerpt."""
    try:
        return excerpt(repr(value))
    except ValueError:  # an int over Python's 4300-digit limit (YAML reads 0xfff… without one)
        return f"a {type(value).__name__} too long to show"


def report_error(location: Location, message: str) -> Diagnostic:
    """Return an error at the location."""
    return Diagnostic(location, message)


def report_warning(location: Location, message: str) -> Diagnostic:
    """Return a warning at the location."""
    return Diagnostic(location, message, is_warning=True)


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> tuple[Diagnostic, ...]:
    """Order problems by file and line (then text), dropping exact repeats."""
    unique = {(d.location.path, d.location.line, d.is_warning, d.message): d for d in diagnostics}
    return tuple(unique[key] for key in sorted(unique))


def suggest_name(name: str, known: Iterable[str]) -> str:
    """Return " (did you mean 'x'?)" for the closest known name, or "" when nothing is close."""
    matches = difflib.get_close_matches(name, sorted(set(known)), n=1, cutoff=0.6)
    return f" (did you mean '{matches[0]}'?)" if matches else ""


class BuildFailed(Exception):
    """The sources have problems; nothing was written. Carries every problem found."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics = sort_diagnostics(diagnostics)
        errors = sum(1 for d in self.diagnostics if not d.is_warning)
        super().__init__(f"{errors} problem(s) in the sources")
