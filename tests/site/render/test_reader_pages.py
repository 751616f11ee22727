"""What the build writes for readers beyond the prose: head tags, sitemap, search index, previews, printed answers.

The sample content is rendered once without a base URL (the default: relative
links only, hostable anywhere) and once with `base_url` as site.yaml would give it.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace

import pytest

from site_testing import PROJECT_ROOT, SAMPLE_CONTENT
from sitegen.diagnostics import BuildFailed
from sitegen.pipeline import check_project, make_site
from sitegen.read.load import load_project
from sitegen.read.site_config import parse_base_url, read_base_url

BASE_URL = "https://example.org/rollouts/"
PAGES = ["index.html", "01-rollout.html", "02-possibilities.html", "03-scoring.html", "glossary.html", "references.html"]


@pytest.fixture(scope="module")
def checked():
    """The sample project, parsed and validated once."""
    project = load_project(PROJECT_ROOT, SAMPLE_CONTENT)
    return check_project(project)


@pytest.fixture(scope="module")
def relative_site(checked) -> dict[str, str | bytes]:
    """Every output file of the sample site without a base URL (text pages decoded)."""
    return decode_pages(make_site(checked))


@pytest.fixture(scope="module")
def published_site(checked) -> dict[str, str | bytes]:
    """Every output file of the sample site published at BASE_URL."""
    return decode_pages(make_site(replace(checked, project=replace(checked.project, base_url=BASE_URL))))


def decode_pages(files: dict) -> dict:
    """Decode the HTML and XML files; keep the rest as they are."""
    return {name: data.decode() if name.endswith((".html", ".xml")) else data for name, data in files.items()}


def read_search_index(files: dict) -> list[dict]:
    """Return the documents stored in the search index the pages link to, in MiniSearch's order."""
    url = re.search(r'data-index="(search-index\.json)"', files["index.html"]).group(1)
    stored = json.loads(files[url])["storedFields"]
    return [stored[str(short_id)] for short_id in range(len(stored))]


# --- head ---------------------------------------------------------------------


def test_without_a_base_url_no_page_has_a_canonical_url_and_there_is_no_sitemap(relative_site):
    for name in PAGES + ["404.html"]:
        assert 'rel="canonical"' not in relative_site[name], name
        assert "og:url" not in relative_site[name], name
    assert "sitemap.xml" not in relative_site


def test_with_a_base_url_each_page_names_its_canonical_url(published_site):
    assert '<link rel="canonical" href="https://example.org/rollouts/">' in published_site["index.html"]
    assert '<meta property="og:url" content="https://example.org/rollouts/">' in published_site["index.html"]
    for name in PAGES[1:]:
        assert f'<link rel="canonical" href="https://example.org/rollouts/{name}">' in published_site[name]
    assert 'rel="canonical"' not in published_site["404.html"]


def test_sitemap_lists_every_page_but_the_404_with_absolute_urls(published_site):
    assert published_site["sitemap.xml"] == (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "  <url><loc>https://example.org/rollouts/</loc></url>\n"
        "  <url><loc>https://example.org/rollouts/01-rollout.html</loc></url>\n"
        "  <url><loc>https://example.org/rollouts/02-possibilities.html</loc></url>\n"
        "  <url><loc>https://example.org/rollouts/03-scoring.html</loc></url>\n"
        "  <url><loc>https://example.org/rollouts/glossary.html</loc></url>\n"
        "  <url><loc>https://example.org/rollouts/references.html</loc></url>\n"
        "</urlset>\n"
    )


def test_chapter_head_has_title_description_and_open_graph_tags(relative_site):
    page = relative_site["03-scoring.html"]
    assert "<title>Start with a scoring rule · Rollouts</title>" in page
    assert '<meta name="description" content="A verifier’s three scores, and what a group mean does to them.">' in page
    assert '<meta property="og:title" content="Start with a scoring rule · Rollouts">' in page
    assert '<meta property="og:description" content="A verifier’s three scores, and what a group mean does to them.">' in page
    assert '<meta property="og:type" content="article">' in page
    assert '<meta property="og:site_name" content="Rollouts">' in page
    assert re.search(r'<link rel="icon" href="assets/favicon\.[0-9a-f]{8}\.svg" type="image/svg\+xml">', page)


def test_theme_script_comes_before_the_stylesheets_and_the_404_page_is_not_indexed(relative_site):
    page = relative_site["index.html"]
    theme = page.index("<script>")
    assert theme < page.index('<link rel="stylesheet"')
    assert '<meta name="robots" content="noindex">' in relative_site["404.html"]
    assert "noindex" not in page


# --- site.yaml -----------------------------------------------------------------


def test_base_url_gets_a_trailing_slash_and_no_file_means_no_base_url(tmp_path):
    assert parse_base_url("base_url: https://example.org/rollouts\n", "site.yaml") == "https://example.org/rollouts/"
    assert parse_base_url("# only a comment\n", "site.yaml") == ""
    assert read_base_url(tmp_path) == ""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "base_url: example.org/rollouts/\n",
            "site.yaml:1: base_url must be an absolute http(s) address like https://example.org/rollouts/, got 'example.org/rollouts/'",
        ),
        (
            "\nbase_uri: https://example.org/\n",
            "site.yaml:2: unknown setting 'base_uri' (known: base_url, title, authors, year, offline)",
        ),
        ("base_url: [1\n", "site.yaml:2: not valid YAML: did not find expected ',' or ']'"),
        ("- base_url: https://example.org/\n", "site.yaml:1: site.yaml must be 'name: value' lines"),
    ],
)
def test_a_bad_site_yaml_is_one_line_naming_the_file_and_line(text, message):
    with pytest.raises(BuildFailed) as failure:
        parse_base_url(text, "site.yaml")
    assert [d.format() for d in failure.value.diagnostics] == [message]


# --- search index -----------------------------------------------------------------


def test_search_index_holds_every_section_with_its_text_then_glossary_terms_and_references(relative_site):
    entries = read_search_index(relative_site)
    assert [(e["kind"], e["title"], e["context"], e["url"]) for e in entries] == [
        ("chapter", "What was the rollout?", "Chapter 1", "01-rollout.html"),
        ("section", "The context grows", "Chapter 1 · What was the rollout?", "01-rollout.html#the-context-grows"),
        ("chapter", "Possibilities are not counts", "Chapter 2", "02-possibilities.html"),
        ("section", "The toy world", "Chapter 2 · Possibilities are not counts", "02-possibilities.html#the-toy-world"),
        ("chapter", "Start with a scoring rule", "Chapter 3", "03-scoring.html"),
        ("section", "One group", "Chapter 3 · Start with a scoring rule", "03-scoring.html#one-group"),
        ("term", "Centred signal (group-relative signal)", "Glossary", "glossary.html#centred-signal"),
        ("term", "Prompt", "Glossary", "glossary.html#prompt"),
        ("term", "Reward", "Glossary", "glossary.html#reward"),
        ("term", "Rollout", "Glossary", "glossary.html#rollout"),
        ("term", "Softmax", "Glossary", "glossary.html#softmax"),
        ("term", "Stochastic policy", "Glossary", "glossary.html#stochastic-policy"),
        ("term", "Temperature", "Glossary", "glossary.html#temperature"),
        ("term", "Verifier", "Glossary", "glossary.html#verifier"),
        (
            "reference",
            "DeepSeekMath: Pushing the Limits of Mathematical Reasoning in Open Language Models",
            "References · DeepSeekMath",
            "references.html#deepseekmath",
        ),
        (
            "reference",
            "Training language models to follow instructions with human feedback",
            "References · InstructGPT",
            "references.html#instructgpt",
        ),
        ("reference", "Spinning Up in Deep RL", "References · Spinning Up", "references.html#spinning-up"),
    ]
    toy_world = next(e for e in entries if e["title"] == "The toy world")
    # The body text, with computed values filled in and the table's cells in reading order.
    assert "At temperature 1 the probability of 5 is 58.96 %; the three shown percentages add up to 99.99 %." in toy_world["text"]
    temperature = next(e for e in entries if e["title"] == "Temperature")
    assert temperature["text"] == "Divides the logits before the softmax; higher flattens the distribution."


# --- previews, contents, print -----------------------------------------------------


def test_a_chapter_carries_a_preview_for_each_term_and_source_it_links_once(relative_site):
    page = relative_site["03-scoring.html"]
    assert re.findall(r'<template data-preview="([^"]+)">', page) == [
        "glossary.html#reward",
        "glossary.html#verifier",
        "glossary.html#centred-signal",
        "references.html#instructgpt",
        "references.html#deepseekmath",
    ]
    assert (
        '<template data-preview="glossary.html#verifier">\n'
        '<p class="preview-kind">Glossary</p>\n'
        '<p class="preview-title">Verifier</p>\n'
        '<div class="preview-body">A rule written for the task that scores a completion.</div>\n'
        "</template>"
    ) in page
    assert (
        '<template data-preview="references.html#instructgpt">\n'
        '<p class="preview-kind">Source</p>\n'
        '<p class="preview-title">InstructGPT</p>\n'
        '<div class="preview-body"><p>Long Ouyang et al. (2022). <cite>Training language models to follow '
        "instructions with human feedback</cite>. arXiv preprint. arXiv:2203.02155.</p></div>\n"
        "</template>"
    ) in page


def test_a_chapter_lists_its_sections_and_prints_its_answers_and_source_urls(relative_site):
    page = relative_site["03-scoring.html"]
    assert (
        '<ol class="chapter-toc-list">\n'
        '<li class="chapter-toc-item chapter-toc-level-2"><a href="#one-group" data-toc-link>One group</a></li>\n'
        "</ol>"
    ) in page
    assert (
        '<li class="printed-answer">\n'
        '<p class="printed-answer-title">Your turn</p>\n'
        "<p>The mean is 0.65; the second rollout’s signal is\n"
        "−0.05, positive reward yet below the mean.</p>\n"
        "</li>"
    ) in page
    assert re.findall(r"<li><strong>(\w+)</strong>: .*? (https://\S+)</li>", page) == [
        ("InstructGPT", "https://arxiv.org/abs/2203.02155"),
        ("DeepSeekMath", "https://arxiv.org/abs/2402.03300"),
    ]


def test_with_a_base_url_the_404_page_links_from_the_site_root_so_it_works_at_any_depth(published_site, relative_site):
    page = published_site["404.html"]
    assert re.search(r'<link rel="stylesheet" href="/rollouts/assets/site\.[0-9a-f]{8}\.css">', page)
    assert '<a class="site-name" href="/rollouts/index.html">Rollouts</a>' in page
    assert '<li><a href="/rollouts/01-rollout.html">What was the rollout?</a></li>' in page
    assert 'data-index="/rollouts/search-index.json"' in page
    # Without a base URL, and on every other page, links stay relative.
    assert '<a class="site-name" href="index.html">Rollouts</a>' in relative_site["404.html"]
    assert '<a class="site-name" href="index.html">Rollouts</a>' in published_site["01-rollout.html"]


def test_only_pages_that_show_math_link_katex_stylesheets(relative_site):
    def links_katex(name: str) -> bool:
        return bool(re.search(r'<link rel="stylesheet" href="assets/katex\.[0-9a-f]{8}\.css">', relative_site[name]))

    assert {name: links_katex(name) for name in PAGES + ["404.html"]} == {
        "index.html": False,
        "01-rollout.html": True,
        "02-possibilities.html": True,
        "03-scoring.html": True,  # no formula of its own, but its centred-signal preview has one
        "glossary.html": True,
        "references.html": False,
        "404.html": False,
    }
