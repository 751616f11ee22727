"""`build.py check [--strict] [--fetch-external]`: everything the build validates, writing nothing, plus an external-link report.

Problems go to stderr exactly as `build.py build` prints them (one
`path:line: message` each), so an editor or CI reads both the same way. The
external links (every link in the prose that leaves the site, and every
reference's url) are listed on stdout with the file and line they come from.
They are not fetched unless asked: the build machines have no internet, and a
check must not depend on other people's servers. With `--fetch-external`,
each http(s) link is requested once with a short timeout and its status is
listed; a link that fails is a warning (an error with --strict).
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

from sitegen.check.formulas import start_katex
from sitegen.diagnostics import BuildFailed, Location, report, sort_diagnostics
from sitegen.files.paths import find_project_root
from sitegen.messages import (
    EXTERNAL_LINK_FAILED,
)

if TYPE_CHECKING:
    from sitegen.pipeline import CheckedProject

FETCH_TIMEOUT_SECONDS = 5
FETCH_THREADS = 8


@dataclass(frozen=True, order=True)
class ExternalLink:
    """A link that leaves the site, where it is written."""

    location: Location
    url: str


def run_check(
    content: str | None,
    strict: bool = False,
    fetch_external: bool = False,
    stream: TextIO | None = None,
    errors: TextIO | None = None,
) -> int:
    """Check the content folder; print problems (stderr) and the external links (stdout); return the exit status."""
    stream = stream or sys.stdout
    errors = errors or sys.stderr
    root = find_project_root()
    try:
        with start_katex(root) as katex:
            from sitegen.pipeline import check_project
            from sitegen.read.load import load_project

            project = load_project(root, content)
            checked = check_project(project, katex)
            if not checked.has_errors(strict):
                render_in_memory(checked)
    except BuildFailed as failure:
        for diagnostic in failure.diagnostics:
            print(diagnostic.format(), file=errors)
        return 1
    links = list_external_links(checked)
    diagnostics = list(checked.diagnostics)
    if fetch_external:
        statuses = fetch_links(links)
        diagnostics += [
            report(link.location, EXTERNAL_LINK_FAILED, url=link.url, status=status)
            for link, (ok, status) in zip(links, statuses)
            if not ok
        ]
        report_links(links, stream, [status for _ok, status in statuses])
    else:
        report_links(links, stream)
    for diagnostic in sort_diagnostics(diagnostics):
        print(diagnostic.format(), file=errors)
    return 1 if any(strict or not d.is_warning for d in diagnostics) else 0


def render_in_memory(checked: CheckedProject) -> None:
    """Render every page without writing it, so a template error fails `check` as it would fail the build."""
    from sitegen.pipeline import make_site

    make_site(checked)


def list_external_links(checked: CheckedProject) -> list[ExternalLink]:
    """Return every external link in the pages and every reference's url, in file and line order."""
    from sitegen.markup.tokens import iterate_inline_children

    links = []
    for page in checked.parsed.pages:
        for _inline, child, line in iterate_inline_children(page.tokens):
            if child.type == "link_open" and child.meta.get("kind") == "external":
                links.append(ExternalLink(page.source.at(line), str(child.attrGet("href"))))
    # Split once: splitting per reference made `check` quadratic (10,000 references took 38 s).
    references_lines = checked.project.references.text.split("\n") if checked.project.references else []
    for reference in checked.parsed.references:
        line = find_url_line(references_lines, reference.location.line, reference.url)
        links.append(ExternalLink(Location(reference.location.path, line), reference.url))
    return sorted(links)


def find_url_line(lines: list[str], entry_line: int, url: str) -> int:
    """Return the line of an entry's `url:` field in references.yaml's lines (the entry's first line if not found).

    Only the entry's own lines are read, so finding every entry's reads the file once.
    """
    for number in range(entry_line, len(lines) + 1):
        line = lines[number - 1].strip()
        if number > entry_line and line.startswith("- "):
            break  # the next entry
        if line.lstrip("- ").startswith("url:") and url in line:
            return number
    return entry_line


def report_links(links: list[ExternalLink], stream: TextIO, statuses: Iterable[str] | None = None) -> None:
    """Print the external links, one `path:line: url` per line (with the fetched status when there is one)."""
    if statuses is None:
        print(f"External links: {len(links)} (listed, not fetched; --fetch-external fetches them)", file=stream)
        for link in links:
            print(f"{link.location}: {link.url}", file=stream)
        return
    print(f"External links: {len(links)} (fetched, {FETCH_TIMEOUT_SECONDS} s timeout)", file=stream)
    for link, status in zip(links, statuses):
        print(f"{link.location}: {link.url} ({status})", file=stream)


def fetch_links(links: list[ExternalLink]) -> list[tuple[bool, str]]:
    """Request each distinct http(s) URL once, a few at a time; return (ok, status text) per link."""
    urls = sorted({link.url for link in links})
    with ThreadPoolExecutor(max_workers=FETCH_THREADS) as pool:
        results = dict(zip(urls, pool.map(fetch_status, urls)))
    return [results[link.url] for link in links]


def fetch_status(url: str) -> tuple[bool, str]:
    """Fetch one URL (HEAD, then GET if the server refuses HEAD); return (ok, e.g. "200 OK" or "no answer: ...")."""
    if not url.lower().startswith(("http://", "https://")):
        return True, "not fetched: not an http(s) link"
    for method in ("HEAD", "GET"):
        request = urllib.request.Request(url, method=method, headers={"User-Agent": "rollouts-link-check/1"})
        try:
            with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT_SECONDS) as response:
                return True, f"{response.status} {response.reason}"
        except urllib.error.HTTPError as error:
            if method == "HEAD" and error.code in (403, 405, 501):
                continue  # some servers refuse HEAD but answer GET
            return False, f"{error.code} {error.reason}"
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            return False, f"no answer: {reason}"
    return False, "no answer"
