"""The site's settings, read from an optional `site.yaml` at the project root.

- `base_url`: the absolute address the site is published at (e.g.
  `https://example.org/rollouts/`). With it, pages carry a canonical URL and
  Open Graph URL, the build writes sitemap.xml (a sitemap must list absolute
  URLs), and "cite this page" gives each page's address. Without it, every
  link stays relative, so the same dist/ can be hosted anywhere; that is the
  default.
- `title`, `authors` (a list), `year`: the work as a whole, for "cite this
  page" (plain text and BibTeX under every chapter). Without `title` and
  `authors` no citation is shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from sitegen.diagnostics import BuildFailed, Diagnostic, Location
from sitegen.yaml_source import YamlProblem, key_lines, read_yaml

SITE_CONFIG = "site.yaml"
SETTINGS = ("base_url", "title", "authors", "year")


@dataclass(frozen=True)
class SiteConfig:
    """site.yaml's settings; every one optional."""

    base_url: str = ""
    title: str = ""
    authors: tuple[str, ...] = ()
    year: int | None = None


def read_site_config(root: Path) -> SiteConfig:
    """Return site.yaml's settings (all empty without the file); fail on a bad file."""
    path = root / SITE_CONFIG
    if not path.is_file():
        return SiteConfig()
    return parse_site_config(path.read_text(encoding="utf-8"), SITE_CONFIG)


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
    except YamlProblem as problem:
        raise BuildFailed([Diagnostic(Location(shown_as, problem.line), f"not valid YAML: {problem}")]) from None
    if document.data is None:
        return SiteConfig()
    if not isinstance(document.data, dict):
        raise BuildFailed([Diagnostic(Location(shown_as, 1), "site.yaml must be 'name: value' lines")])
    data = document.data
    lines = key_lines(document.node)
    problems = [
        Diagnostic(Location(shown_as, lines.get(str(key), 1)), f"unknown setting '{key}' (known: {', '.join(SETTINGS)})")
        for key in data
        if key not in SETTINGS
    ]

    def problem(key: str, message: str) -> None:
        problems.append(Diagnostic(Location(shown_as, lines.get(key, 1)), message))

    base_url = data.get("base_url")
    if base_url is not None:
        parts = urlsplit(str(base_url))
        if (
            not isinstance(base_url, str)
            or parts.scheme not in ("http", "https")
            or not parts.netloc
            or parts.query
            or parts.fragment
        ):
            problem(
                "base_url", f"base_url must be an absolute http(s) address like https://example.org/rollouts/, got {base_url!r}"
            )
    title = data.get("title")
    if title is not None and (not isinstance(title, str) or not title.strip()):
        problem("title", f"title must be a line of text, got {title!r}")
    authors = data.get("authors")
    if authors is not None and (
        not isinstance(authors, list) or not authors or not all(isinstance(a, str) and a.strip() for a in authors)
    ):
        problem("authors", f"authors must be a list of names, like [Ada Lovelace, Alan Turing], got {authors!r}")
    year = data.get("year")
    if year is not None and (not isinstance(year, int) or isinstance(year, bool) or not 1900 <= year <= 2200):
        problem("year", f"year must be a whole number like 2026, got {year!r}")
    if problems:
        raise BuildFailed(problems)
    url = str(base_url or "")
    return SiteConfig(
        base_url=url if not url or url.endswith("/") else url + "/",
        title=str(title or "").strip(),
        authors=tuple(a.strip() for a in authors or ()),
        year=year,
    )
