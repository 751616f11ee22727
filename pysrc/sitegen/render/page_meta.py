"""What a page says about itself beyond its text: when it last changed, and how to cite it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from sitegen.model import Page, SiteConfig

_BIBTEX_SPECIAL = re.compile(r"([&%$#_{}])")
_KEY_CHARACTERS = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class LastUpdated:
    """A page's last change: ISO date for <time datetime>, and the date as a reader reads it."""

    iso: str
    text: str


@dataclass(frozen=True)
class Citation:
    """ "Cite this page" in plain text and as a BibTeX entry."""

    plain: str
    bibtex: str


def describe_last_updated(iso_date: str) -> LastUpdated | None:
    """Return "30 November 2026" for "2026-11-30"; None without a date."""
    if not iso_date:
        return None
    day = date.fromisoformat(iso_date)
    return LastUpdated(iso_date, f"{day.day} {day.strftime('%B')} {day.year}")


def join_authors_plain(authors: Sequence[str]) -> str:
    """Join names as "A", "A and B", "A, B and C"."""
    names = list(authors)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def escape_bibtex(text: str) -> str:
    """Escape the characters BibTeX and LaTeX treat specially in a field's text."""
    return _BIBTEX_SPECIAL.sub(r"\\\1", text)


def describe_citation(config: SiteConfig, page: Page, url: str) -> Citation | None:
    """Return how to cite this page, from site.yaml's title, authors and year; None unless title and authors are set."""
    if not config.title or not config.authors:
        return None
    year = str(config.year) if config.year else "n.d."
    part = f"Chapter {page.chapter.number} of " if page.chapter else ""
    plain = f"{join_authors_plain(config.authors)} ({year}). {page.title}. {part}{config.title}."
    if url:
        plain += f" {url}"
    key = _KEY_CHARACTERS.sub("-", f"{config.title} {config.year or ''} {page.output_name.removesuffix('.html')}".lower()).strip(
        "-"
    )
    fields = [
        ("author", " and ".join(escape_bibtex(name) for name in config.authors)),
        ("title", "{" + escape_bibtex(page.title) + "}"),
        ("howpublished", escape_bibtex(f"{part}{config.title}")),
    ]
    if config.year:
        fields.append(("year", str(config.year)))
    if url:
        fields.append(("url", url))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return Citation(plain, f"@misc{{{key},\n{body}\n}}")
