"""Previews of glossary terms and sources: hover, keyboard focus and touch open them; Escape closes them.

Expected texts are read from the glossary and references pages themselves, so
a preview must say exactly what the entry it leads to says.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from browser_testing import AXE_SCRIPT, paused_clock

pytestmark = pytest.mark.browser

CHAPTER = "01-rollout.html"
TERM = "main a.term[href='glossary.html#rollout']"
SOURCE = "main .sources a[href^='references.html#']"
PREVIEW = "#reader-preview"


@pytest.fixture(scope="module")
def glossary_rollout(reader_page: Page, site_url: str) -> dict[str, str]:
    """The glossary's entry for "rollout": its term and its definition's text (without "Used in")."""
    reader_page.goto(site_url + "glossary.html")
    return reader_page.evaluate(
        """() => {
          const term = document.getElementById("rollout");
          const definition = term.nextElementSibling.cloneNode(true);
          definition.querySelector(".used-in")?.remove();
          return { title: term.textContent.trim(), text: definition.textContent.trim() };
        }"""
    )


def read_preview(page: Page) -> dict[str, str]:
    """Return the open preview's title, body text and "Go to entry" link target."""
    return page.evaluate(
        """() => {
          const preview = document.getElementById("reader-preview");
          return {
            title: preview.querySelector(".preview-title").textContent,
            text: preview.querySelector(".preview-body").textContent.trim(),
            go: preview.querySelector(".preview-go").getAttribute("href"),
          };
        }"""
    )


def test_hovering_a_term_shows_its_definition_without_moving_the_page(reader_page: Page, site_url: str, glossary_rollout):
    reader_page.goto(site_url + CHAPTER)
    main_box = reader_page.locator("main").bounding_box()
    reader_page.locator(TERM).first.hover()

    expect(reader_page.locator(PREVIEW)).to_be_visible()
    assert read_preview(reader_page) == {**glossary_rollout, "go": "glossary.html#rollout"}
    assert reader_page.locator("main").bounding_box() == main_box
    assert reader_page.locator(TERM).first.get_attribute("aria-describedby") == "reader-preview-content"

    reader_page.mouse.move(5, 880)
    expect(reader_page.locator(PREVIEW)).to_be_hidden()


def test_hovering_a_source_shows_the_full_reference(reader_page: Page, site_url: str):
    reader_page.goto(site_url + CHAPTER)
    target = reader_page.locator(SOURCE).first.get_attribute("href")
    reader_page.goto(site_url + target)
    reference = reader_page.locator(f"[id='{target.partition('#')[2]}'] .reference-entry").inner_text()
    reader_page.goto(site_url + CHAPTER)
    reader_page.locator(SOURCE).first.hover()

    expect(reader_page.locator(PREVIEW)).to_be_visible()
    preview = read_preview(reader_page)
    # The references page writes the URL after the entry; the preview stops before it.
    assert reference.startswith(preview["text"] + " http")
    assert preview["go"] == target


def test_keyboard_focus_shows_the_preview_and_escape_closes_it(reader_page: Page, site_url: str, glossary_rollout):
    reader_page.goto(site_url + CHAPTER)
    for _ in range(80):
        reader_page.keyboard.press("Tab")
        if reader_page.evaluate("document.activeElement.matches(\"a.term[href='glossary.html#rollout']\")"):
            break
    else:
        pytest.fail("Tab never reached the first term link")

    expect(reader_page.locator(PREVIEW)).to_be_visible()
    assert read_preview(reader_page)["title"] == glossary_rollout["title"]

    reader_page.keyboard.press("Escape")
    expect(reader_page.locator(PREVIEW)).to_be_hidden()
    assert reader_page.evaluate("document.activeElement.getAttribute('href')") == "glossary.html#rollout"

    reader_page.keyboard.press("Enter")
    expect(reader_page).to_have_url(site_url + "glossary.html#rollout")


def test_first_tap_shows_the_preview_and_a_second_tap_follows_the_link(open_reader_context, site_url: str, glossary_rollout):
    page = open_reader_context(viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True).new_page()
    page.goto(site_url + CHAPTER)
    term = page.locator(TERM).first

    term.tap()
    expect(page.locator(PREVIEW)).to_be_visible()
    assert read_preview(page) == {**glossary_rollout, "go": "glossary.html#rollout"}
    assert page.url == site_url + CHAPTER
    box = page.locator(PREVIEW).bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 375

    # A tap elsewhere closes it; the next tap opens it again, and a second one follows the link.
    page.locator("h1").tap()
    expect(page.locator(PREVIEW)).to_be_hidden()
    term.tap()
    expect(page.locator(PREVIEW)).to_be_visible()
    term.tap()
    expect(page).to_have_url(site_url + "glossary.html#rollout")


def test_the_go_to_entry_link_follows_on_touch(open_reader_context, site_url: str):
    page = open_reader_context(viewport={"width": 375, "height": 740}, has_touch=True, is_mobile=True).new_page()
    page.goto(site_url + CHAPTER)
    page.locator(SOURCE).first.tap()
    go = page.locator(f"{PREVIEW} .preview-go")
    expect(go).to_have_text("Go to entry")
    target = go.get_attribute("href")
    go.tap()
    expect(page).to_have_url(site_url + target)


def test_without_javascript_a_term_link_goes_to_the_glossary(open_reader_context, site_url: str):
    page = open_reader_context(java_script_enabled=False).new_page()
    page.goto(site_url + CHAPTER)
    page.locator(TERM).first.click()
    expect(page).to_have_url(site_url + "glossary.html#rollout")


def test_arriving_at_a_terms_use_does_not_pop_its_preview_over_the_sentence(reader_page: Page, site_url: str):
    reader_page.goto(site_url + CHAPTER + "#use-rollout")
    arrived = reader_page.locator("#use-rollout")
    with paused_clock(reader_page):  # the hover delay passes in the page's time, however loaded the machine
        arrived.hover()
        reader_page.clock.run_for(800)  # past the hover delay (300 ms, client/reader/previews.mjs)
        expect(reader_page.locator(PREVIEW)).to_be_hidden()
    # Once the reader leaves it and comes back, it previews as any term does.
    reader_page.mouse.move(5, 880)
    arrived.hover()
    expect(reader_page.locator(PREVIEW)).to_be_visible()
    # Never under the sticky header.
    header = reader_page.locator(".site-header").bounding_box()
    assert reader_page.locator(PREVIEW).bounding_box()["y"] >= header["y"] + header["height"]


def test_an_open_preview_is_inside_a_landmark(reader_page: Page, site_url: str):
    reader_page.goto(site_url + CHAPTER)
    reader_page.locator(TERM).first.hover()
    expect(reader_page.locator(PREVIEW)).to_be_visible()
    assert reader_page.locator(f"main {PREVIEW}").count() == 1
    if not reader_page.evaluate("typeof axe !== 'undefined'"):
        reader_page.evaluate(AXE_SCRIPT.read_text(encoding="utf-8"))
    violations = reader_page.evaluate(
        "async () => (await axe.run(document, { runOnly: ['region', 'landmark-unique'] })).violations.map((v) => v.id)"
    )
    assert violations == []
