"""The built `_headers`: long caching only for names that change with their content, and what every file gets."""

from __future__ import annotations

import hashlib
import re

import pytest

from sitegen.publish.host_headers import (
    IMMUTABLE,
    NO_CACHE,
    REVALIDATE,
    RULE_LIMIT,
    WORKER_CONTENT_SECURITY_POLICY,
    HeaderRule,
    find_headers,
    plan_header_rules,
    read_headers,
)

HASHED_NAME = re.compile(r"\.([0-9a-f]{8})\.\w+$")


@pytest.fixture(scope="module")
def rules(built_sample):
    return read_headers((built_sample / "_headers").read_text(encoding="utf-8"))


def served_files(built_sample):
    return sorted(
        p.relative_to(built_sample).as_posix()
        for p in built_sample.rglob("*")
        if p.is_file() and p.name != "_headers" and not p.name.startswith(".")
    )  # the build marker is not for readers


def test_immutable_caching_only_for_content_hashed_names(built_sample, rules):
    (pyodide,) = (built_sample / "pyodide").iterdir()  # its name is checked against its files in test_whole_site
    immutable = []
    for name in served_files(built_sample):
        headers = dict(find_headers(rules, f"/{name}"))
        if headers["Cache-Control"] == IMMUTABLE:
            immutable.append(name)
            hashed = HASHED_NAME.search(name)
            in_pyodide = name.startswith(f"pyodide/{pyodide.name}/")
            assert in_pyodide or (
                hashed and hashed.group(1) == hashlib.sha256((built_sample / name).read_bytes()).hexdigest()[:8]
            ), name
        elif name == "sw.js":
            assert headers["Cache-Control"] == "no-cache"  # a stale service worker would hold back every update
        else:
            assert headers["Cache-Control"] == REVALIDATE, name
            assert not HASHED_NAME.search(name), name
    assert any(name.endswith(".wasm") for name in immutable) and any(name.startswith("assets/") for name in immutable)


def test_every_file_gets_each_header_once_security_headers_and_wasm_its_type(built_sample, rules):
    # The lab's worker: the cells' runs under the page's own policy, whatever the host sends (python-worker.mjs).
    workers = sorted(p.relative_to(built_sample).as_posix() for p in (built_sample / "assets").glob("lab-worker.*.js"))
    assert [name.split(".")[0] for name in workers] == ["assets/lab-worker"]
    assert list((built_sample / "assets").glob("cell-worker.*.js"))
    for name in served_files(built_sample):
        names = [header for rule in rules if rule.matches(f"/{name}") for header, _ in rule.headers]
        headers = dict(find_headers(rules, f"/{name}"))
        assert headers["X-Content-Type-Options"] == "nosniff"
        if name in workers:
            # Set twice, joined by the hosts: two policies, both enforced; the worker's is what a <meta> cannot give it.
            assert names.count("Content-Security-Policy") == 2, name
            names.remove("Content-Security-Policy")
            assert headers["Content-Security-Policy"] == f"frame-ancestors 'none', {WORKER_CONTENT_SECURITY_POLICY}"
        else:
            assert headers["Content-Security-Policy"] == "frame-ancestors 'none'"
        assert len(names) == len(set(names)), name  # hosts would join a repeated header's values
        assert ("Content-Type" in headers) == name.endswith(".wasm")
        if name.endswith(".wasm"):
            assert headers["Content-Type"] == "application/wasm"
    for page in ("/", "/glossary", "/index.html", "/404.html"):
        assert dict(find_headers(rules, page))["Cache-Control"] == REVALIDATE, page


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("/*", "/", True),
        ("/assets/*", "/assets/katex/KaTeX_Main.12345678.woff2", True),
        ("/assets/*", "/assetsx/a.css", False),
        ("/index.html", "/index.html", True),
        ("/index.html", "/xindex.html", False),
        ("/a.b", "/aXb", False),
    ],
)
def test_patterns_match_as_netlify_and_cloudflare_pages_do(pattern, path, matches):
    assert HeaderRule(pattern, ()).matches(path) is matches


def test_reading_the_file_joins_a_repeated_header_as_the_hosts_do():
    rules = read_headers("# comment\n/*\n  Cache-Control: a\n\n/x\n  cache-control: b\n  X-One: 1\n")
    assert find_headers(rules, "/x") == [("Cache-Control", "a, b"), ("X-One", "1")]


def test_a_book_of_96_chapters_stays_within_cloudflare_pages_rule_limit(built_sample, rules):
    """Issue 60: a rule for each page and its address without .html made 144 rules at 60 chapters (the limit is 100)."""
    immutable = [rule.pattern[1:] for rule in rules if ("Cache-Control", IMMUTABLE) in rule.headers]
    uncached = [rule.pattern[1:] for rule in rules if ("Cache-Control", NO_CACHE) in rule.headers]
    workers = [rule.pattern[1:] for rule in rules if ("Content-Security-Policy", WORKER_CONTENT_SECURITY_POLICY) in rule.headers]
    chapters = [f"{number:02d}-chapter.html" for number in range(1, 97)]
    planned = plan_header_rules([*served_files(built_sample), *chapters], immutable, uncached, workers)
    assert len(planned) <= RULE_LIMIT
    for page in ("/96-chapter.html", "/96-chapter", "/"):
        assert dict(find_headers(planned, page))["Cache-Control"] == REVALIDATE, page
