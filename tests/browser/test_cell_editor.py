"""The cells' editor writes Python as Python is written: four-space blocks, line numbers that hide what scrolls under
them, and "Wrap lines" that wraps the editor's lines too, on a phone and on a desktop."""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from browser_testing import PROBABILITIES_PAGE

pytestmark = pytest.mark.browser

CELL = "[data-cell]"
EDITOR_TIMEOUT_MS = 60_000
SCREENS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}
LONG_LINE = "total = " + " + ".join(f"value_{n}" for n in range(40))


@pytest.fixture(scope="module")
def cell_page(open_context, site_url: str) -> Page:
    """Chapter 2, whose first cell each test edits: one page for the module, the editor loaded once."""
    page = open_context().new_page()
    page.goto(site_url + PROBABILITIES_PAGE)
    return page


def open_editor(page: Page, screen: str, scheme: str = "light") -> tuple[Page, Locator]:
    """Give the shared page the test's window and scheme, bring its first cell back as built (Reset, checked), then open
    its editor and put a long line and a new line in it."""
    page.set_viewport_size(SCREENS[screen])
    page.emulate_media(color_scheme=scheme)
    cell = page.locator(CELL).first
    reset = cell.get_by_role("button", name="Reset")
    if reset.is_enabled():
        reset.click()
    assert page.evaluate("() => Object.keys(localStorage).filter((key) => key.startsWith('rollouts-cell:'))") == []
    cell.get_by_role("button", name="Edit").click()
    editor = cell.get_by_role("textbox", name="Python code")
    expect(editor).to_be_focused(timeout=EDITOR_TIMEOUT_MS)
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(LONG_LINE + "\n")
    return page, cell


def line_boxes(cell: Locator) -> list[float]:
    """The height of each of the editor's lines, in pixels (a wrapped line is several rows high)."""
    return cell.locator(".cm-host").evaluate(
        "(host) => Array.from(host.shadowRoot.querySelectorAll('.cm-line'), (line) => line.getBoundingClientRect().height)"
    )


def test_a_new_block_is_indented_four_spaces(cell_page: Page):
    page, cell = open_editor(cell_page, "desktop")
    page.keyboard.type("for n in range(3):")
    page.keyboard.press("Enter")
    page.keyboard.type("print(n)")
    code = cell.locator(".cm-host").evaluate(
        "(host) => Array.from(host.shadowRoot.querySelectorAll('.cm-line'), (line) => line.textContent).join('\\n')"
    )
    assert code.endswith("for n in range(3):\n    print(n)"), code


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_line_numbers_are_opaque_so_code_scrolled_sideways_does_not_show_through(cell_page: Page, scheme: str):
    _page, cell = open_editor(cell_page, "desktop", scheme)
    if cell.get_by_role("button", name="Wrap lines").get_attribute("aria-pressed") == "true":
        cell.get_by_role("button", name="Wrap lines").click()
    gutter, cell_background = cell.locator(".cm-host").evaluate(
        "(host) => [getComputedStyle(host.shadowRoot.querySelector('.cm-gutters')).backgroundColor,"
        " getComputedStyle(host.closest('[data-cell]')).backgroundColor]"
    )
    assert gutter == cell_background, (gutter, cell_background)
    assert gutter not in ("transparent", "rgba(0, 0, 0, 0)"), gutter


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_wrap_lines_wraps_the_editors_lines_and_unpressed_they_scroll(cell_page: Page, screen: str):
    _page, cell = open_editor(cell_page, screen)
    wrap = cell.get_by_role("button", name="Wrap lines")
    one_row = min(line_boxes(cell))
    if wrap.get_attribute("aria-pressed") == "true":
        wrap.click()
    expect(wrap).to_have_attribute("aria-pressed", "false")
    assert max(line_boxes(cell)) == one_row

    wrap.click()

    expect(wrap).to_have_attribute("aria-pressed", "true")
    assert max(line_boxes(cell)) >= 2 * one_row, line_boxes(cell)
    scroller = cell.locator(".cm-host").evaluate(
        "(host) => { const s = host.shadowRoot.querySelector('.cm-scroller'); return s.scrollWidth - s.clientWidth; }"
    )
    assert scroller <= 1, scroller
