"""The site's deployment settings, read from an optional `site.yaml` at the project root.

Only one setting exists: `base_url`, the absolute address the site is
published at (e.g. `https://example.org/rollouts/`). With it, pages carry a
canonical URL and Open Graph URL and the build writes sitemap.xml (a sitemap
must list absolute URLs). Without it, every link stays relative, so the same
dist/ can be hosted anywhere; that is the default.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

from sitegen.diagnostics import BuildFailed, Diagnostic, Location, excerpt, quote
from sitegen.source_files import read_text
from sitegen.yaml_source import YamlProblem, key_lines, read_yaml

SITE_CONFIG = "site.yaml"
SETTINGS = ("base_url",)
_URL_CHARACTERS = re.compile(r"[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+")


def read_base_url(root: Path) -> str:
    """Return the configured base URL (ending in "/"), or "" without site.yaml or base_url; fail on a bad file."""
    path = root / SITE_CONFIG
    if not path.is_file() and not path.is_symlink() and not path.exists():
        return ""
    return parse_base_url(read_text(path, SITE_CONFIG), SITE_CONFIG)


def parse_base_url(text: str, shown_as: str) -> str:
    """Check site.yaml's text and return its base URL; report problems as `site.yaml:line: message`."""
    try:
        document = read_yaml(text)
    except YamlProblem as problem:
        raise BuildFailed([Diagnostic(Location(shown_as, problem.line), f"not valid YAML: {problem}")]) from None
    if document.data is None:
        return ""
    if not isinstance(document.data, dict):
        raise BuildFailed([Diagnostic(Location(shown_as, 1), "site.yaml must be 'name: value' lines")])
    lines = key_lines(document.node)
    problems = [
        Diagnostic(Location(shown_as, lines.get(str(key), 1)), f"unknown setting '{excerpt(key)}' (the only one is base_url)")
        for key in document.data
        if key not in SETTINGS
    ]
    value = document.data.get("base_url")
    if value is None:
        if problems:
            raise BuildFailed(problems)
        return ""
    line = lines.get("base_url", 1)
    problem = describe_base_url_problem(value)
    if problem:
        problems.append(Diagnostic(Location(shown_as, line), problem))
    if problems:
        raise BuildFailed(problems)
    return value if value.endswith("/") else value + "/"


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
