"""Problems found in the sources, and the one exception a failed build raises.

Every problem names the file and line it came from, so an author can jump
straight to it; the build collects all of them and fails once. Each kind of
problem is one `Message` of the catalogue (messages.py), which
docs/diagnostics.md is generated from: `report(location, MESSAGE, field=...)`.
"""

from __future__ import annotations

import difflib
import re
import string
from collections.abc import Iterable, Mapping
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
class Message:
    """One kind of problem: a stable id (never renamed or reused), its text with named fields, and what to do.

    `template` is a `str.format` pattern (`{{` for a literal brace); `section`
    is where docs/diagnostics.md lists it. A message no content file can cause
    (the machine, the command line, the templates) names the test that
    asserts its exact text in `tested_by`, `path::test_name`.
    """

    id: str
    section: str
    template: str
    warning: bool = False
    advice: str = ""
    tested_by: str = ""

    def field_names(self) -> frozenset[str]:
        """Return the names of the template's fields."""
        return frozenset(name for _, name, _, _ in string.Formatter().parse(self.template) if name is not None)


@dataclass(frozen=True)
class Diagnostic:
    """One problem at one place, by its message's id; warnings do not stop a build unless it is strict."""

    location: Location
    message: str
    is_warning: bool
    id: str

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


def report(location: Location, message: Message, **fields: object) -> Diagnostic:
    """Return the problem at the location: the message's template filled with the fields, an error or a warning as it says."""
    return Diagnostic(location, message.template.format(**fields), message.warning, message.id)


@dataclass(frozen=True)
class Finding:
    """A message and its fields, found by a helper before the place to report it is known."""

    message: Message
    fields: Mapping[str, object]

    def at(self, location: Location) -> Diagnostic:
        """Return the problem at the location."""
        return report(location, self.message, **self.fields)

    def text(self) -> str:
        """Return the message's text, as `at` would print it."""
        return self.message.template.format(**self.fields)


def finding(message: Message, **fields: object) -> Finding:
    """Return the message with its fields, to report later with `Finding.at`."""
    return Finding(message, fields)


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
