"""Search: a combobox over chapters, section headings and glossary terms, from the index written at build time."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from reader_fixtures import PAGES

pytestmark = pytest.mark.browser

SEARCH = "#site-search-input"
OPTIONS = "#site-search-results [role='option']"


def read_options(page: Page) -> list[dict[str, str]]:
    """Return each result's title and context as displayed, and whether it is selected."""
    return page.evaluate(
        """() => [...document.querySelectorAll("#site-search-results [role='option']")].map((option) => ({
          title: option.querySelector(".site-search-title")?.textContent ?? option.textContent,
          context: option.querySelector(".site-search-context")?.textContent ?? "",
          selected: option.getAttribute("aria-selected"),
        }))"""
    )


def test_search_finds_temperature_and_jumps_to_its_heading_with_the_keyboard(reader_page: Page, site_url: str):
    reader_page.goto(site_url + "02-possibilities.html")
    chapter_title = reader_page.locator("h1").inner_text()
    reader_page.goto(site_url + "index.html")

    reader_page.locator(SEARCH).fill("temperature")
    expect(reader_page.locator(OPTIONS).first).to_be_visible()
    options = read_options(reader_page)
    assert options[0] == {"title": "Temperature", "context": f"Chapter 2 · {chapter_title}", "selected": "false"}
    assert {"title": "Temperature", "context": "Glossary", "selected": "false"} in options
    # Full text: every result shows the word it matched, marked in its title or its snippet.
    marked = reader_page.evaluate(
        """() => [...document.querySelectorAll("#site-search-results [role='option']")].map(
          (option) => [...option.querySelectorAll("mark")].map((mark) => mark.textContent.toLowerCase()))"""
    )
    assert all(any(word.startswith("temperature") for word in words) for words in marked), marked
    search = reader_page.locator(SEARCH)
    assert search.get_attribute("aria-expanded") == "true"

    search.press("ArrowDown")
    assert read_options(reader_page)[0]["selected"] == "true"
    assert search.get_attribute("aria-activedescendant") == "site-search-result-0"
    search.press("Enter")

    expect(reader_page).to_have_url(site_url + "02-possibilities.html#temperature")
    heading = reader_page.locator("h2#temperature")
    expect(heading).to_be_in_viewport()


def test_arrow_keys_wrap_around_and_escape_closes_then_clears(reader_page: Page, site_url: str):
    reader_page.goto(site_url + "glossary.html")
    search = reader_page.locator(SEARCH)
    search.fill("rollout")
    expect(reader_page.locator(OPTIONS).first).to_be_visible()
    count = reader_page.locator(OPTIONS).count()

    search.press("ArrowUp")
    assert search.get_attribute("aria-activedescendant") == f"site-search-result-{count - 1}"
    search.press("ArrowDown")
    assert search.get_attribute("aria-activedescendant") == "site-search-result-0"

    search.press("Escape")
    expect(reader_page.locator("#site-search-results")).to_be_hidden()
    assert search.get_attribute("aria-expanded") == "false"
    assert search.input_value() == "rollout"
    search.press("Escape")
    assert search.input_value() == ""


def test_a_search_with_no_match_says_so(reader_page: Page, site_url: str):
    reader_page.goto(site_url + "index.html")
    reader_page.locator(SEARCH).fill("zzzqx")
    expect(reader_page.locator(OPTIONS)).to_have_text(["No results for “zzzqx”"])
    expect(reader_page.locator("[data-search-status]")).to_have_text("No results for “zzzqx”")


def test_clicking_a_result_on_the_same_page_moves_focus_to_the_heading(reader_page: Page, site_url: str):
    reader_page.goto(site_url + "04-follow-draw-3.html")
    reader_page.locator(SEARCH).fill("change only the temperature")
    reader_page.locator(OPTIONS).first.click()
    expect(reader_page).to_have_url(site_url + "04-follow-draw-3.html#change-only-the-temperature")
    assert reader_page.evaluate("document.activeElement.id") == "change-only-the-temperature"


def test_every_page_has_the_search_box_and_without_javascript_it_is_absent(open_reader_context, reader_page: Page, site_url: str):
    for name in PAGES:
        reader_page.goto(site_url + name)
        expect(reader_page.get_by_role("combobox", name="Search the tutorial")).to_be_visible()
    page = open_reader_context(java_script_enabled=False).new_page()
    page.goto(site_url + "index.html")
    expect(page.locator(SEARCH)).to_be_hidden()
    expect(page.locator("[data-theme-toggle]")).to_be_hidden()
    expect(page.get_by_role("navigation", name="Site").get_by_role("link", name="Contents")).to_be_visible()


def test_a_question_finds_pages_with_some_of_its_words_and_marks_only_the_words_that_carry_it(reader_page: Page, site_url: str):
    reader_page.goto(site_url + "index.html")
    reader_page.locator(SEARCH).fill("why subtract the mean")
    expect(reader_page.locator(OPTIONS).first).to_be_visible()
    options = read_options(reader_page)
    # Pages with every carrying word come first; then pages with only some of them (tests/content/test_search.py
    # checks the whole list, where the glossary's Baseline is found too).
    assert options[0]["title"] == "A group and its mean", options
    marks_per_option = [
        {word.lower() for word in option.locator("mark").all_text_contents()} for option in reader_page.locator(OPTIONS).all()
    ]
    stems = [
        {next((stem for stem in ("subtract", "mean") if word.startswith(stem)), word) for word in marks}
        for marks in marks_per_option
    ]
    assert stems[0] == {"subtract", "mean"}, marks_per_option
    assert any(marks == {"mean"} for marks in stems), marks_per_option
    marked = set(reader_page.locator(f"{OPTIONS} mark").all_text_contents())
    assert {word.lower() for word in marked} & {"mean", "subtract"}
    assert not {word.lower() for word in marked} & {"why", "the", "their"}, marked
    # Snippets keep math as text: no "clipped to ." holes.
    snippets = reader_page.locator(f"{OPTIONS} .site-search-snippet").all_text_contents()
    assert snippets and not any(" . " in snippet for snippet in snippets), snippets


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_notation_and_comparison_questions_rank_right_and_stay_readable_in_the_box(
    reader_page: Page, site_url: str, width: int, height: int
):
    reader_page.set_viewport_size({"width": width, "height": height})
    reader_page.goto(site_url + "index.html")
    search = reader_page.locator(SEARCH)
    search.fill("what is pi old")
    expect(reader_page.locator(OPTIONS).first).to_be_visible()
    titles = [option["title"] for option in read_options(reader_page)[:5]]
    assert "Behaviour policy" in titles and "Policies" in titles, titles
    snippets = " ".join(reader_page.locator(f"{OPTIONS} .site-search-snippet").all_text_contents())
    assert "π_old" in snippets and "\\" not in snippets, snippets

    question = "difference between rollout and trajectory"
    search.fill(question)
    expect(reader_page.locator(OPTIONS).first).to_contain_text("A rollout is a sampled trajectory")
    assert read_options(reader_page)[0]["title"] == "A rollout is a sampled trajectory"
    # The whole question shows in the box while the reader reads the results: nothing scrolled out of sight.
    assert search.input_value() == question
    fits = search.evaluate("(input) => input.scrollWidth <= input.clientWidth")
    assert fits, search.evaluate("(input) => [input.scrollWidth, input.clientWidth]")


@pytest.mark.parametrize(
    ("query", "first"),
    [
        ("pi old", ("Behaviour policy", "Glossary")),
        ("π_old", ("Behaviour policy", "Glossary")),
        ("what is a rollout", ("Rollout", "Glossary")),
    ],
)
def test_a_symbol_or_a_what_is_question_ranks_its_definition_first(reader_page: Page, site_url: str, query: str, first: tuple):
    """Issue 56: "pi old" ranked the KL section first, and "what is a rollout" a table of the notation page."""
    reader_page.set_viewport_size({"width": 1280, "height": 800})
    reader_page.goto(site_url + "index.html")
    reader_page.locator(SEARCH).fill(query)
    expect(reader_page.locator(OPTIONS).first).to_be_visible()
    option = read_options(reader_page)[0]
    assert (option["title"], option["context"]) == first, read_options(reader_page)[:3]


def test_a_snippet_from_a_table_keeps_its_cells_and_rows_apart(reader_page: Page, site_url: str):
    reader_page.set_viewport_size({"width": 1280, "height": 800})
    reader_page.goto(site_url + "index.html")
    reader_page.locator(SEARCH).fill("what is a rollout")
    one_rollout = reader_page.locator(OPTIONS).filter(has=reader_page.locator(".site-search-title", has_text="One rollout"))
    expect(one_rollout).to_have_count(1)
    snippet = one_rollout.locator(".site-search-snippet").text_content() or ""
    assert snippet.startswith(
        "Symbol \u00b7 Meaning \u00b7 First used \u2014 x \u00b7 The prompt a rollout starts from. \u00b7 Chapter 1 \u2014 "
    ), snippet
