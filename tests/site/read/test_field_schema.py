"""One rule per kind of field (read/schema.py): references.yaml and site.yaml accept and refuse the same years and addresses."""

from __future__ import annotations

import pytest

from sitegen.diagnostics import BuildFailed
from sitegen.model import Source
from sitegen.read.references import parse_references
from sitegen.read.site_config import parse_site_config

REFERENCE = "- key: ppo\n  short: PPO\n  authors: [John Schulman]\n  year: {year}\n  title: PPO\n  url: {url}\n"


def reference_problems(year: str = "2017", url: str = "https://arxiv.org/abs/1707.06347") -> list[str]:
    _references, problems = parse_references(Source("references.yaml", "references.yaml", REFERENCE.format(year=year, url=url)))
    return [problem.message for problem in problems]


def site_problems(text: str) -> list[str]:
    try:
        parse_site_config(text, "site.yaml")
    except BuildFailed as failed:
        return [problem.message for problem in failed.diagnostics]
    return []


@pytest.mark.parametrize(
    ("year", "echoed"),
    [("2026", ""), ("1900", ""), ("2200", ""), ("1899", "1899"), ("2201", "2201"), ("true", "True"), ('"2026"', "'2026'")],
)
def test_a_year_is_one_rule_in_references_and_site_yaml(year, echoed):
    rule = f"must be a whole number from 1900 to 2200, like 2026, got {echoed}"
    assert reference_problems(year=year) == ([f"reference field 'year' {rule}"] if echoed else [])
    assert site_problems(f"year: {year}\n") == ([f"year {rule}"] if echoed else [])


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://example.org/a/", ""),
        ("http://example.org:8080/a/", ""),
        ("ftp://example.org/a/", "must be"),
        ("https:///a/", "must be"),
        ("https://example.org:99999/a/", "must be"),
        ("https://example.org/a b/", "must be"),
        ("https://example.org/ä/", "must be"),
        ("https://reader:secret@example.org/a/", "must not contain a user name or password"),
    ],
)
def test_a_web_address_is_one_rule_in_references_and_site_yaml(url, problem):
    [reference] = reference_problems(url=f'"{url}"') or [""]
    [site] = site_problems(f'base_url: "{url}"\n') or [""]
    assert reference.startswith(f"reference field 'url' {problem}" if problem else "")
    assert site.startswith(f"base_url {problem}" if problem else "")
    assert bool(reference) == bool(site) == bool(problem)


def test_a_base_url_alone_takes_no_query_or_fragment():
    assert reference_problems(url='"https://example.org/a/?x=1#top"') == []
    assert site_problems('base_url: "https://example.org/a/#top"\n') == [
        "base_url must be an absolute http(s) address like https://example.org/rollouts/, got 'https://example.org/a/#top'"
    ]
