"""Code that fits: long lines wrap on narrow screens, a remembered "Wrap lines" toggle, Copy never over code."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.browser

CODE_WRAP_KEY = "rollouts-code-wrap"
LISTING_PAGE = "04-follow-draw-3.html"  # the core's listing, with lines longer than the desktop column
CELL_PAGE = "02-possibilities.html"  # a Python cell
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}

# The code boxes whose lines are cut off (scroll sideways): each one's first characters.
CUT_OFF_CODE = """
() => [...document.querySelectorAll('.code-block pre, .cell-code pre, .cell-output')]
  .filter((box) => box.getClientRects().length && box.scrollWidth > box.clientWidth + 1)
  .map((box) => box.textContent.trim().slice(0, 30))
"""

# Each visible copy or wrap button that covers a character of code: the button's text and the code's line.
BUTTONS_OVER_CODE = """
() => {
  const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  const covered = [];
  const buttons = [...document.querySelectorAll('.copy-code, .wrap-code, [data-cell-toolbar] button')]
    .filter((button) => button.getClientRects().length);
  for (const box of document.querySelectorAll('.code-block pre, .cell-code pre')) {
    const bounds = box.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(box);
    const visible = [...range.getClientRects()].filter((rect) => rect.width && overlaps(rect, bounds));
    for (const button of buttons) {
      const place = button.getBoundingClientRect();
      if (visible.some((rect) => overlaps(rect, place))) covered.push(button.textContent + ' over ' + box.textContent.slice(0, 30));
    }
  }
  return covered;
}
"""


@pytest.fixture
def phone(open_reader_context) -> Page:
    return open_reader_context(viewport=PHONE, color_scheme="light").new_page()


@pytest.fixture
def desktop(open_reader_context) -> Page:
    return open_reader_context(viewport=DESKTOP, color_scheme="dark").new_page()


def wrap_buttons(page: Page):
    return page.get_by_role("button", name="Wrap lines")


@pytest.mark.parametrize("name", [LISTING_PAGE, CELL_PAGE])
def test_on_a_phone_code_wraps_until_the_reader_chooses_to_scroll(phone: Page, site_url: str, name: str):
    phone.goto(site_url + name)
    expect(wrap_buttons(phone).first).to_have_attribute("aria-pressed", "true")
    assert phone.evaluate(CUT_OFF_CODE) == []
    wrap_buttons(phone).first.click()
    for button in wrap_buttons(phone).all():  # one choice for every block on the page
        expect(button).to_have_attribute("aria-pressed", "false")
    assert phone.evaluate(CUT_OFF_CODE) != [], "scrolling keeps each line whole, so a long one is cut off"
    assert phone.evaluate(f"localStorage.getItem('{CODE_WRAP_KEY}')") == "scroll"
    phone.reload()
    expect(wrap_buttons(phone).first).to_have_attribute("aria-pressed", "false")
    assert phone.evaluate(CUT_OFF_CODE) != []


def test_on_a_desktop_long_lines_scroll_until_the_reader_wraps_them_and_the_choice_lasts(desktop: Page, site_url: str):
    desktop.goto(site_url + LISTING_PAGE)
    expect(wrap_buttons(desktop).first).to_have_attribute("aria-pressed", "false")
    assert desktop.evaluate(CUT_OFF_CODE) != [], "chapter 4's listing has lines wider than the column"
    wrap_buttons(desktop).first.click()
    expect(wrap_buttons(desktop).first).to_have_attribute("aria-pressed", "true")
    assert desktop.evaluate(CUT_OFF_CODE) == []
    desktop.goto(site_url + CELL_PAGE)  # remembered on the next page, from its first paint
    assert desktop.evaluate("document.documentElement.dataset.codeWrap") == "wrap"
    expect(wrap_buttons(desktop).first).to_have_attribute("aria-pressed", "true")
    assert desktop.evaluate(CUT_OFF_CODE) == []


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["390px", "1280px"])
@pytest.mark.parametrize("name", [LISTING_PAGE, CELL_PAGE])
def test_no_button_covers_code_wrapped_or_not(open_reader_context, site_url: str, viewport: dict, name: str):
    page = open_reader_context(viewport=viewport, color_scheme="light").new_page()
    page.goto(site_url + name)
    expect(page.get_by_role("button", name="Copy").first).to_be_visible()
    for _ in range(2):
        assert page.evaluate(BUTTONS_OVER_CODE) == []
        # Scrolled to its end, a long line still runs under no button.
        page.evaluate("document.querySelectorAll('pre').forEach((box) => { box.scrollLeft = box.scrollWidth; })")
        assert page.evaluate(BUTTONS_OVER_CODE) == []
        wrap_buttons(page).first.click()
    page.close()


# Each wrapped code line (of a block or a cell): where its first character starts and where its continuation rows start.
WRAPPED_LINES = """
() => [...document.querySelectorAll('.code-block .code-text, .cell-code .code-text')]
  .filter((text) => text.getClientRects().length && text.textContent.trim())
  .map((text) => {
    const range = document.createRange();
    range.selectNodeContents(text);
    const rows = new Map();
    for (const rect of range.getClientRects()) {
      if (!rect.width) continue;
      const top = Math.round(rect.top);
      rows.set(top, Math.min(rows.get(top) ?? Infinity, rect.left));
    }
    const lefts = [...rows.entries()].sort(([a], [b]) => a - b).map(([, left]) => left);
    return { line: text.closest('.code-line').textContent.slice(0, 40), lefts };
  })
  .filter(({ lefts }) => lefts.length > 1)
"""


@pytest.mark.parametrize("name", [LISTING_PAGE, CELL_PAGE])
def test_a_wrapped_line_continues_right_of_its_own_first_character(phone: Page, site_url: str, name: str):
    phone.goto(site_url + name)
    expect(wrap_buttons(phone).first).to_have_attribute("aria-pressed", "true")
    wrapped = phone.evaluate(WRAPPED_LINES)
    assert wrapped, "some line of this page wraps on a phone"
    indented = [line for line in wrapped if line["line"].startswith(" ")]
    assert indented or name == CELL_PAGE, wrapped
    for line in wrapped:
        first, *continuations = line["lefts"]
        assert all(left > first + 4 for left in continuations), line
