"""The `_headers` file: HTTP headers for hosts that read it (Netlify, Cloudflare Pages), and for `build.py preview`.

Format (Netlify's, which Cloudflare Pages shares): a URL path pattern at the
start of a line, then its headers indented below it; `*` matches any
characters, `/` included. Paths are from the site's root. When several rules
match a URL, both hosts send every header of every rule, and a header named
twice gets its values joined with commas, so no two rules here ever set the
same header for the same file (test_host_headers checks it).

- Files whose name changes with their content (assets/*, the core's zip, the
  Pyodide folder, whose name carries the version and a hash of its files) are
  cached for a year, `immutable`: a browser never asks for them again.
- Every other file (pages, the recorded run, the sitemap) is revalidated on
  each use. A deploy removes the previous build's hashed files, so a page kept
  in a cache after a deploy could point at files that are gone; a revalidation
  costs one round trip and usually a 304. That is what both hosts send for a
  file no rule gives a Cache-Control (HOST_DEFAULTS), so no rule says it: a
  rule for each page (and its address without .html) made 144 rules at 60
  chapters, past Cloudflare Pages' limit of 100 (RULE_LIMIT).
- The service worker's script (sw.js) is sent `no-cache`: browsers already
  revalidate it at most daily, and a cached copy would delay every update.
- `.wasm` is sent as application/wasm (Pyodide compiles it while streaming
  only then), and every file gets the two security headers a <meta> tag
  cannot carry: X-Content-Type-Options and the CSP's frame-ancestors.
- The lab's worker's script gets a Content-Security-Policy of its own,
  WORKER_CONTENT_SECURITY_POLICY: a worker is governed by the policy its
  script is sent with, never by the page's <meta>. Code from strings, scripts
  and requests to another origin are refused there. The cells' worker gets
  none: it is started from a blob: URL that imports its script, so it follows
  the page's own policy on any host (client/python/python-worker.mjs). The one header set twice for one file: both
  hosts join the two values with a comma, which a browser reads as two
  policies, each enforced (CSP 3, "parse a serialized CSP list").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

HEADERS_FILE = "_headers"
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "public, max-age=0, must-revalidate"
NO_CACHE = "no-cache"
# What Netlify and Cloudflare Pages send for a file whose Cache-Control no rule sets (both document it).
HOST_DEFAULTS = (("Cache-Control", REVALIDATE),)
# Cloudflare Pages reads at most 100 rules of a `_headers` file.
RULE_LIMIT = 100
SECURITY_HEADERS = (("X-Content-Type-Options", "nosniff"), ("Content-Security-Policy", "frame-ancestors 'none'"))
# What Pyodide in a worker needs: its own files (module imports, fetches) and to compile WebAssembly; nothing else.
WORKER_CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'"


@dataclass(frozen=True)
class HeaderRule:
    """One rule: a path pattern ("/assets/*") and the headers sent for every URL it matches."""

    pattern: str
    headers: tuple[tuple[str, str], ...]

    def matches(self, path: str) -> bool:
        """Say whether a URL path (from the site's root, starting with "/") matches the pattern."""
        return compile_pattern(self.pattern).fullmatch(path) is not None


# Compiled once per pattern: the offline manifest and the headers test every output file against every pattern.
@lru_cache(maxsize=1024)
def compile_pattern(pattern: str) -> re.Pattern[str]:
    """Return the regular expression of a path pattern: `*` matches anything, every other character itself."""
    return re.compile(".*".join(map(re.escape, pattern.split("*"))))


def plan_header_rules(
    file_names: Iterable[str], immutable: Iterable[str], uncached: Iterable[str] = (), workers: Iterable[str] = ()
) -> tuple[HeaderRule, ...]:
    """Return the rules for a site: security headers for all, caching by whether a name changes with its content.

    `immutable`: patterns (paths from the root, without the leading "/") of the
    content-hashed files; `uncached`: files never to be taken from a cache
    (the service worker's script: a stale copy would hold back every update);
    every other file gets the hosts' own REVALIDATE (HOST_DEFAULTS), so the
    rules do not grow with the pages. `workers`: the Web Workers' scripts,
    which get WORKER_CONTENT_SECURITY_POLICY.
    """
    rules = [HeaderRule("/*", SECURITY_HEADERS)]
    rules += [HeaderRule(f"/{name}", (("Content-Security-Policy", WORKER_CONTENT_SECURITY_POLICY),)) for name in workers]
    rules += [HeaderRule(f"/{pattern}", (("Cache-Control", IMMUTABLE),)) for pattern in immutable]
    rules += [HeaderRule(f"/{name}", (("Cache-Control", NO_CACHE),)) for name in uncached]
    rules += [
        HeaderRule(f"/{name}", (("Content-Type", "application/wasm"),)) for name in sorted(file_names) if name.endswith(".wasm")
    ]
    return tuple(rules)


def write_headers(rules: Iterable[HeaderRule]) -> bytes:
    """Return the `_headers` file for the rules."""
    lines = [
        "# HTTP headers for Netlify and Cloudflare Pages (and `build.py preview`); written by the build, see host_headers.py."
    ]
    for rule in rules:
        lines.append(rule.pattern)
        lines += [f"  {name}: {value}" for name, value in rule.headers]
    return ("\n".join(lines) + "\n").encode()


def read_headers(text: str) -> tuple[HeaderRule, ...]:
    """Parse a `_headers` file (comments and blank lines skipped)."""
    rules: list[HeaderRule] = []
    for line in text.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not line[0].isspace():
            rules.append(HeaderRule(line.strip(), ()))
        elif rules:
            name, _, value = line.strip().partition(":")
            rules[-1] = HeaderRule(rules[-1].pattern, (*rules[-1].headers, (name.strip(), value.strip())))
    return tuple(rules)


def find_headers(rules: Iterable[HeaderRule], path: str) -> list[tuple[str, str]]:
    """Return the headers a host sends for a URL path: every matching rule's, in order, repeated names joined by ", ",
    then the hosts' defaults for a name no rule sets."""
    joined: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for rule in rules:
        if rule.matches(path):
            for name, value in rule.headers:
                names.setdefault(name.lower(), name)
                joined.setdefault(name.lower(), []).append(value)
    for name, value in HOST_DEFAULTS:
        if name.lower() not in joined:
            names[name.lower()] = name
            joined[name.lower()] = [value]
    return [(names[key], ", ".join(values)) for key, values in joined.items()]
