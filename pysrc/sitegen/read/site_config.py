"""The site's deployment settings, read from an optional `site.yaml` at the project root.

`base_url` is the absolute address the site is published at (e.g.
`https://example.org/rollouts/`). With it, pages carry a canonical URL and
Open Graph URL and the build writes sitemap.xml (a sitemap must list absolute
URLs). Without it, every link stays relative, so the same dist/ can be hosted
anywhere; that is the default. `title`, `authors` and `year` fill "cite this
page". `offline: false` leaves out offline reading (the service worker, its
offline page and the footer's note; publish/offline.py), which is on by default.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from sitegen.diagnostics import BuildFailed, Location, excerpt, report
from sitegen.messages import BAD_SETTING, SITE_CONFIG_NOT_MAPPING, SITE_CONFIG_NOT_YAML, UNKNOWN_SETTING
from sitegen.model import SiteConfig
from sitegen.read.schema import BASE_URL, Field, FieldError, Names, Switch, Text, Year
from sitegen.read.source_files import read_text
from sitegen.read.yaml_source import YamlProblem, key_lines, read_yaml

SITE_CONFIG = "site.yaml"
SETTINGS = ("base_url", "title", "authors", "year", "offline")
Value = TypeVar("Value")


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
        raise BuildFailed([report(Location(shown_as, error.line), SITE_CONFIG_NOT_YAML, problem=error)]) from None
    if document.data is None:
        return SiteConfig()
    if not isinstance(document.data, dict):
        raise BuildFailed([report(Location(shown_as, 1), SITE_CONFIG_NOT_MAPPING)])
    data = document.data
    lines = key_lines(document.node)
    problems = [
        report(Location(shown_as, lines.get(str(key), 1)), UNKNOWN_SETTING, name=excerpt(key), known=", ".join(SETTINGS))
        for key in data
        if key not in SETTINGS
    ]

    def read(key: str, field: Field[Value]) -> Value | None:
        """Return a setting checked by its rule (read/schema.py), None when absent or wrong (a problem then)."""
        value = data.get(key)
        if value is None:
            return None
        try:
            return field.check(value)
        except FieldError as error:
            problems.append(report(Location(shown_as, lines.get(key, 1)), BAD_SETTING, name=key, rule=error.describe(value)))
            return None

    base_url, title, authors, year, offline = (
        read("base_url", BASE_URL),
        read("title", Text()),
        read("authors", Names()),
        read("year", Year()),
        read("offline", Switch()),
    )
    if problems:
        raise BuildFailed(problems)
    url = base_url or ""
    return SiteConfig(
        base_url=url if not url or url.endswith("/") else url + "/",
        title=title or "",
        authors=authors or (),
        year=year,
        offline=offline is not False,
    )


def describe_base_url_problem(value: object) -> str:
    """Return what is wrong with a base_url value, "must …" (read/schema.py's web address rule, as a base), or "" when nothing is."""
    try:
        BASE_URL.check(value)
    except FieldError as error:
        return error.describe(value)
    return ""
