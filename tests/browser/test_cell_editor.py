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


def open_editor(open_context, site_url: str, screen: str, scheme: str = "light") -> tuple[Page, Locator]:
    page = open_context(viewport=SCREENS[screen], color_scheme=scheme).new_page()
    page.goto(site_url + PROBABILITIES_PAGE)
    cell = page.locator(CELL).first
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


def test_a_new_block_is_indented_four_spaces(open_context, site_url: str):
    page, cell = open_editor(open_context, site_url, "desktop")
    page.keyboard.type("for n in range(3):")
    page.keyboard.press("Enter")
    page.keyboard.type("print(n)")
    code = cell.locator(".cm-host").evaluate(
        "(host) => Array.from(host.shadowRoot.querySelectorAll('.cm-line'), (line) => line.textContent).join('\\n')"
    )
    assert code.endswith("for n in range(3):\n    print(n)"), code


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_line_numbers_are_opaque_so_code_scrolled_sideways_does_not_show_through(open_context, site_url: str, scheme: str):
    _page, cell = open_editor(open_context, site_url, "desktop", scheme)
    if cell.get_by_role("button", name="Wrap lines").get_attribute("aria-pressed") == "true":
        cell.get_by_role("button", name="Wrap lines").click()
    gutter, cell_background = cell.locator(".cm-host").evaluate(
        "(host) => [getComputedStyle(host.shadowRoot.querySelector('.cm-gutters')).backgroundColor,"
        " getComputedStyle(host.closest('[data-cell]')).backgroundColor]"
    )
    assert gutter == cell_background, (gutter, cell_background)
    assert gutter not in ("transparent", "rgba(0, 0, 0, 0)"), gutter


@pytest.mark.parametrize("screen", sorted(SCREENS))
def test_wrap_lines_wraps_the_editors_lines_and_unpressed_they_scroll(open_context, site_url: str, screen: str):
    _page, cell = open_editor(open_context, site_url, screen)
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
