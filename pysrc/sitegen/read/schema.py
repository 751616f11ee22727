"""The fields authors write in YAML, declared once: front matter, references.yaml and site.yaml share these rules.

In the spirit of MkDocs' `config/config_options.py`: each field is a small
object that checks one value and returns it cleaned (text stripped, a list
made a tuple), or raises `FieldError` saying what the value must be. Each
reader keeps its own words around that phrase (`front matter field 'title'
must be …`, `reference field 'year' must be …`, `year must be …`), so one
rule reads the same wherever it applies: a year is a whole number from 1900
to 2200 in site.yaml and in a reference; a web address is one rule for a
reference's url and site.yaml's base_url (which also takes no query or
fragment, being a base).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol, TypeVar
from urllib.parse import urlsplit

from sitegen.diagnostics import quote

FIRST_YEAR, LAST_YEAR = 1900, 2200
Value = TypeVar("Value", covariant=True)
# Only characters a URL may hold as they are: the value goes into attributes and sitemap.xml.
_URL_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")


class FieldError(Exception):
    """A value is not what its field takes.

    The message follows the field's name ("must be a list of names"); the
    reader adds ", got VALUE" when `echo` (not for a password).
    """

    def __init__(self, message: str, echo: bool = True) -> None:
        super().__init__(message)
        self.echo = echo

    def describe(self, value: object) -> str:
        """Return the rule's phrase for the value, "must be …, got 'value'", which a message puts after the field's name."""
        return f"{self}, got {quote(value)}" if self.echo else str(self)


class Field(Protocol[Value]):
    """A field's rule: `check` returns the value cleaned, or raises FieldError."""

    def check(self, value: object) -> Value: ...


@dataclass(frozen=True)
class Text:
    """A line of text; stripped. `allow_empty`: "" (or only spaces) is a value too."""

    allow_empty: bool = False

    def check(self, value: object) -> str:
        if not isinstance(value, str) or not (self.allow_empty or value.strip()):
            raise FieldError("must be text" if self.allow_empty else "must be non-empty text")
        return value.strip()


@dataclass(frozen=True)
class Switch:
    """true or false: YAML's own booleans ("yes" in quotes is text, and 1 a number)."""

    def check(self, value: object) -> bool:
        if not isinstance(value, bool):
            raise FieldError("must be true or false")
        return value


@dataclass(frozen=True)
class Names:
    """A non-empty list of names (each a line of text); stripped."""

    def check(self, value: object) -> tuple[str, ...]:
        if not isinstance(value, list) or not value or not all(isinstance(name, str) and name.strip() for name in value):
            raise FieldError("must be a list of names, like [Ada Lovelace, Alan Turing]")
        return tuple(name.strip() for name in value)


@dataclass(frozen=True)
class WholeNumber:
    """A whole number from `low` to `high` (YAML's true and false are not numbers)."""

    low: int
    high: int

    def check(self, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not self.low <= value <= self.high:
            raise FieldError(f"must be a whole number from {self.low} to {self.high}")
        return value


@dataclass(frozen=True)
class Year:
    """A year: a whole number from 1900 to 2200."""

    def check(self, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not FIRST_YEAR <= value <= LAST_YEAR:
            raise FieldError(f"must be a whole number from {FIRST_YEAR} to {LAST_YEAR}, like 2026")
        return value


@dataclass(frozen=True)
class WebAddress:
    """An absolute http(s) address with a host, written with URL characters only, and no user name or password.

    `expected` is what the message says the value must be; `base`: the
    address is a base for others (site.yaml's base_url), so it takes no query
    and no fragment.
    """

    expected: str = "an http:// or https:// address"
    base: bool = False

    def check(self, value: object) -> str:
        expected = FieldError(f"must be {self.expected}")
        if not isinstance(value, str) or not _URL_CHARACTERS.fullmatch(value):
            raise expected
        try:
            parts = urlsplit(value)
            _ = parts.port  # reading it checks the port: ValueError unless a number from 0 to 65535
        except ValueError:  # e.g. an unclosed IPv6 bracket
            raise expected from None
        if parts.scheme not in ("http", "https") or not parts.hostname or (self.base and (parts.query or parts.fragment)):
            raise expected
        if parts.username is not None or parts.password is not None:
            # It would be published (in every page, for site.yaml's base_url); and the message does not repeat it.
            raise FieldError(
                "must not contain a user name or password (user:password@); it is published in every page", echo=False
            )
        return value


BASE_URL = WebAddress(expected="an absolute http(s) address like https://example.org/rollouts/", base=True)
