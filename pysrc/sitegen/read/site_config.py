"""The site's deployment settings, read from an optional `site.yaml` at the project root.

Only one setting exists: `base_url`, the absolute address the site is
published at (e.g. `https://example.org/rollouts/`). With it, pages carry a
canonical URL and Open Graph URL and the build writes sitemap.xml (a sitemap
must list absolute URLs). Without it, every link stays relative, so the same
dist/ can be hosted anywhere; that is the default.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from sitegen.diagnostics import BuildFailed, Diagnostic, Location, excerpt, quote
from sitegen.read.source_files import read_text
from sitegen.read.yaml_source import YamlProblem, key_lines, read_yaml

SITE_CONFIG = "site.yaml"
SETTINGS = ("base_url", "title", "authors", "year")
_URL_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")


@dataclass(frozen=True)
class SiteConfig:
    """site.yaml's settings, every one optional: base_url; title, authors and year for "cite this page"."""

    base_url: str = ""
    title: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None


def read_site_config(root: Path) -> SiteConfig:
    """Return site.yaml's settings (all empty without the file); fail on a bad file."""
    path = root / SITE_CONFIG
    if not path.is_file() and not path.is_symlink() and not path.exists():
        return SiteConfig()
    return parse_site_config(read_text(path, SITE_CONFIG), SITE_CONFIG)


def read_base_url(root: Path) -> str:
    """Return the configured base URL (ending in "/"), or "" without site.yaml or base_url; fail on a bad file."""
    return read_site_config(root).base_url


def parse_base_url(text: str, shown_as: str) -> str:
    """Check site.yaml's text and return its base URL; report problems as `site.yaml:line: message`."""
    return parse_site_config(text, shown_as).base_url


def parse_site_config(text: str, shown_as: str) -> SiteConfig:
    """Check site.yaml's text and return its settings; report every problem as `site.yaml:line: message`."""
    try:
        document = read_yaml(text)
    except YamlProblem as error:
        raise BuildFailed([Diagnostic(Location(shown_as, error.line), f"not valid YAML: {error}")]) from None
    if document.data is None:
        return SiteConfig()
    if not isinstance(document.data, dict):
        raise BuildFailed([Diagnostic(Location(shown_as, 1), "site.yaml must be 'name: value' lines")])
    data = document.data
    lines = key_lines(document.node)
    problems = [
        Diagnostic(Location(shown_as, lines.get(str(key), 1)), f"unknown setting '{excerpt(key)}' (known: {', '.join(SETTINGS)})")
        for key in data
        if key not in SETTINGS
    ]

    def problem(key: str, message: str) -> None:
        problems.append(Diagnostic(Location(shown_as, lines.get(key, 1)), message))

    base_url = data.get("base_url")
    if base_url is not None:
        url_problem = describe_base_url_problem(base_url)
        if url_problem:
            problem("base_url", url_problem)
    title = data.get("title")
    if title is not None and (not isinstance(title, str) or not title.strip()):
        problem("title", f"title must be a line of text, got {quote(title)}")
    authors = data.get("authors")
    if authors is not None and (
        not isinstance(authors, list) or not authors or not all(isinstance(a, str) and a.strip() for a in authors)
    ):
        problem("authors", f"authors must be a list of names, like [Ada Lovelace, Alan Turing], got {quote(authors)}")
    year = data.get("year")
    if year is not None and (not isinstance(year, int) or isinstance(year, bool) or not 1900 <= year <= 2200):
        problem("year", f"year must be a whole number like 2026, got {quote(year)}")
    if problems:
        raise BuildFailed(problems)
    url = str(base_url or "")  # describe_base_url_problem found it to be text
    return SiteConfig(
        base_url=url if not url or url.endswith("/") else url + "/",
        title=str(title or "").strip(),
        authors=tuple(a.strip() for a in authors or ()),
        year=year,
    )


def describe_base_url_problem(value: object) -> str:
    """Return what is wrong with a base_url value, or "" when it is a plain absolute http(s) address."""
    expected = f"base_url must be an absolute http(s) address like https://example.org/rollouts/, got {quote(value)}"
    # Only characters a URL may hold as they are: the value goes into attributes and sitemap.xml.
    if not isinstance(value, str) or not _URL_CHARACTERS.fullmatch(value):
        return expected
    try:
        parts = urlsplit(value)
        _ = parts.port  # reading it checks the port: ValueError unless a number from 0 to 65535
    except ValueError:
        return expected
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        return expected
    if parts.username is not None or parts.password is not None:
        # It would be published in every page's canonical link and in sitemap.xml.
        return "base_url must not contain a user name or password (user:password@); it is published in every page"
    return ""
