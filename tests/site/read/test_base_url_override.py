"""ROLLOUTS_BASE_URL: the deploy job's address wins over site.yaml's base_url."""

from __future__ import annotations

import pytest

from site_testing import PROJECT_ROOT, SAMPLE_CONTENT
from sitegen.diagnostics import BuildFailed
from sitegen.pipeline import build_site
from sitegen.read.base_url_override import override_base_url
from sitegen.read.load import load_project


@pytest.mark.parametrize(
    ("configured", "variable", "expected"),
    [
        ("", None, ""),
        ("https://example.org/site/", None, "https://example.org/site/"),
        ("https://example.org/site/", "", "https://example.org/site/"),
        ("https://example.org/site/", "  ", "https://example.org/site/"),
        ("", "https://user.github.io/rollouts", "https://user.github.io/rollouts/"),
        ("https://example.org/site/", "https://user.github.io/rollouts/", "https://user.github.io/rollouts/"),
        ("", "http://127.0.0.1:8000", "http://127.0.0.1:8000/"),
    ],
)
def test_the_variable_overrides_site_yaml_and_gets_a_trailing_slash(configured, variable, expected):
    environment = {} if variable is None else {"ROLLOUTS_BASE_URL": variable}
    assert override_base_url(configured, environment) == expected


@pytest.mark.parametrize("variable", ["user.github.io/rollouts", "ftp://example.org/", "https://example.org/?a=1", "/rollouts/"])
def test_a_bad_value_fails_the_build_naming_the_variable(variable):
    with pytest.raises(BuildFailed) as failure:
        override_base_url("", {"ROLLOUTS_BASE_URL": variable})
    assert [d.format() for d in failure.value.diagnostics] == [
        f"ROLLOUTS_BASE_URL: must be an absolute http(s) address like https://example.org/rollouts/, got {variable!r}"
    ]


def test_a_build_with_the_variable_has_canonical_urls_a_sitemap_and_a_404_linked_from_its_path(tmp_path, monkeypatch):
    monkeypatch.setenv("ROLLOUTS_BASE_URL", "https://user.github.io/rollouts")
    out_dir = tmp_path / "dist"
    build_site(load_project(PROJECT_ROOT, SAMPLE_CONTENT), out_dir)
    assert "<loc>https://user.github.io/rollouts/</loc>" in (out_dir / "sitemap.xml").read_text(encoding="utf-8")
    assert '<link rel="canonical" href="https://user.github.io/rollouts/">' in (out_dir / "index.html").read_text(
        encoding="utf-8"
    )
    not_found = (out_dir / "404.html").read_text(encoding="utf-8")
    assert 'href="/rollouts/index.html"' in not_found and "data-marker" not in not_found
