"""Python cells in Chromium: the browser's output equals the build's, and readers can edit, run, stop and reset.

Every page is served under the real Content-Security-Policy; the session's
guard fails any test that logged a console error (a CSP violation is one),
raised an uncaught error or sent a request off 127.0.0.1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from browser_testing import (
    LIVE_STATUS,
    PROBABILITIES,
    PROBABILITIES_PAGE,
    expect_results,
    expected_probabilities,
    find_violations,
)

pytestmark = pytest.mark.browser

CELL = "[data-cell]"
# A cell's first run starts Pyodide in its own worker, beside the lab's on the same page: under a loaded
# machine that can take minutes, not seconds.
RUN_TIMEOUT_MS = 180_000
RAN = re.compile(r"^(Ran in your browser in \d+ ms\.|Raised an error \(\d+ ms\)\.)$")
# The cell's own page is what tests edit: chapter 2's cell, the first on its page.
EDIT_PAGE = PROBABILITIES_PAGE


def cell_pages(built_site: Path) -> list[str]:
    """Return the built pages that hold Python cells."""
    return sorted(p.name for p in built_site.glob("*.html") if "data-cell=" in p.read_text(encoding="utf-8"))


def open_cell_page(open_context, site_url: str, name: str) -> Page:
    page = open_context().new_page()
    page.goto(site_url + name)
    expect(page.locator(f"{CELL} [data-cell-toolbar]").first).to_be_visible()
    return page


def output_html(cell: Locator) -> str:
    return cell.locator("[data-cell-output]").inner_html()


@dataclass(frozen=True)
class SharedCellPage:
    """The module's shared EDIT_PAGE and what its first cell showed when it opened."""

    page: Page
    code: str
    output: str


@pytest.fixture(scope="module")
def shared_edit_page(open_context, site_url) -> SharedCellPage:
    """EDIT_PAGE for the tests that edit and run its first cell and need no start or storage of their own."""
    page = open_cell_page(open_context, site_url, EDIT_PAGE)
    cell = page.locator(CELL).first
    return SharedCellPage(page, cell.locator("pre code").text_content() or "", output_html(cell))


def restored_cell(shared: SharedCellPage) -> tuple[Page, Locator]:
    """Bring the shared page's first cell back as the page opened it, and check that: its Reset (when an edit is
    kept), the code and the recorded output shown, no edit saved, the editor closed, the light scheme, nothing focused."""
    page = shared.page
    page.emulate_media(color_scheme="light")
    cell = page.locator(CELL).first
    reset = cell.get_by_role("button", name="Reset")
    if reset.is_enabled():
        reset.click()
    expect(cell.locator("pre code")).to_have_text(shared.code)
    assert output_html(cell) == shared.output
    expect(cell.locator("[data-cell-status]")).to_have_text("Output recorded at build time.")
    expect(cell.get_by_role("button", name="Edit")).to_be_visible()
    assert page.evaluate("() => Object.keys(localStorage).filter((key) => key.startsWith('rollouts-cell:'))") == []
    page.evaluate("() => document.activeElement?.blur()")
    return page, cell


def editor_of(cell: Locator) -> Locator:
    return cell.get_by_role("textbox", name="Python code")


def replace_code(page: Page, cell: Locator, code: str) -> None:
    """Open the cell's editor (loaded on first use) and type `code` over what it holds."""
    cell.get_by_role("button", name="Edit").click()
    editor = editor_of(cell)
    expect(editor).to_be_focused(timeout=RUN_TIMEOUT_MS)
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.type(code)


def paste_code(page: Page, cell: Locator, code: str) -> None:
    """Open the cell's editor and insert `code` over what it holds: inserted, not typed, so the editor neither
    indents nor closes brackets as it would for a reader typing."""
    cell.get_by_role("button", name="Edit").click()
    expect(editor_of(cell)).to_be_focused(timeout=RUN_TIMEOUT_MS)
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(code)


def run_and_wait(cell: Locator) -> None:
    cell.get_by_role("button", name="Run").click()
    expect(cell.locator("[data-cell-status]")).to_have_text(RAN, timeout=RUN_TIMEOUT_MS)


def test_the_site_has_at_least_four_cells(built_site):
    pages = cell_pages(built_site)
    count = sum(p.count('data-cell="') for p in ((built_site / name).read_text(encoding="utf-8") for name in pages))
    assert count >= 4


def test_every_cell_run_unchanged_in_the_browser_gives_the_builds_output_byte_for_byte(open_context, site_url, built_site):
    pages = cell_pages(built_site)
    assert pages
    for name in pages:
        page = open_cell_page(open_context, site_url, name)
        cells = page.locator(CELL)
        recorded = [output_html(cells.nth(i)) for i in range(cells.count())]
        assert all(recorded), f"{name}: a cell without build output"
        # Running the last cell runs every earlier one first, in order, in one namespace.
        run_and_wait(cells.last)
        for i in range(cells.count()):
            expect(cells.nth(i).locator("[data-cell-status]")).to_have_text(RAN, timeout=RUN_TIMEOUT_MS)
            assert output_html(cells.nth(i)) == recorded[i], f"{name}: cell {i + 1}"
        page.close()


def test_no_javascript_shows_code_and_output_and_no_controls(open_context, site_url):
    page = open_context(java_script_enabled=False).new_page()
    page.goto(site_url + EDIT_PAGE)
    cell = page.locator(CELL).first
    expect(cell.locator("pre code .tok-kn").first).to_have_text("from")
    expect(cell.locator("[data-cell-output]")).to_contain_text("probability")
    expect(cell.locator("[data-cell-toolbar]")).to_be_hidden()
    expect(page.locator("[data-copy-code]").first).to_be_hidden()


def test_edit_and_run_keeps_the_edit_across_a_reload_until_reset(open_context, site_url):
    page = open_cell_page(open_context, site_url, EDIT_PAGE)
    violations: list[str] = []
    page.on("console", lambda message: violations.append(message.text) if "Content Security Policy" in message.text else None)
    cell = page.locator(CELL).first
    recorded_output = output_html(cell)
    original_code = cell.locator("pre code").text_content()

    replace_code(page, cell, "print(6 * 7)")
    page.keyboard.press("Control+Enter")
    expect(cell.locator("[data-cell-status]")).to_have_text(RAN, timeout=RUN_TIMEOUT_MS)
    assert output_html(cell) == '<span class="cell-stdout">42\n</span>'
    # The editor's styles came through constructed stylesheets in its shadow root: styled, and no violation.
    assert cell.locator(".cm-host").evaluate("host => host.shadowRoot.adoptedStyleSheets.length") > 0
    assert page.locator("head style").count() == 0
    assert violations == []

    page.reload()
    cell = page.locator(CELL).first
    expect(editor_of(cell)).to_have_text("print(6 * 7)", timeout=RUN_TIMEOUT_MS)
    expect(cell.get_by_role("button", name="Reset")).to_be_enabled()

    cell.get_by_role("button", name="Reset").click()
    expect(cell.locator("pre code")).to_have_text(original_code)
    assert output_html(cell) == recorded_output
    expect(cell.locator("[data-cell-status]")).to_have_text("Output recorded at build time.")
    page.reload()
    expect(page.locator(CELL).first.locator("pre code")).to_have_text(original_code)
    assert page.evaluate("() => Object.keys(localStorage).filter((key) => key.startsWith('rollouts-cell:'))") == []


def test_a_python_error_shows_a_traceback_trimmed_to_the_readers_code(shared_edit_page: SharedCellPage):
    page, cell = restored_cell(shared_edit_page)
    # One statement a line: the editor indents after a ":", as a reader would want.
    replace_code(page, cell, "half = lambda x: x / 0\nhalf(1)")
    page.keyboard.press("Shift+Enter")
    expect(cell.locator("[data-cell-status]")).to_have_text(re.compile(r"^Raised an error"), timeout=RUN_TIMEOUT_MS)
    error = cell.locator("[data-cell-output] .cell-error").text_content()
    assert error.startswith("Traceback (most recent call last):\n")
    assert 'File "<cell 1>", line 2, in <module>' in error
    assert 'File "<cell 1>", line 1, in <lambda>' in error
    assert error.endswith("ZeroDivisionError: division by zero\n")
    assert "cell_kernel" not in error and "pyodide" not in error


def test_a_run_past_its_time_limit_is_stopped_and_the_next_run_works(open_context, site_url):
    page = open_cell_page(open_context, site_url, EDIT_PAGE)
    cell = page.locator(CELL).first
    cell.evaluate("(element) => { element.dataset.cellTimeout = '2'; }")
    replace_code(page, cell, "while True: pass")
    page.keyboard.press("Control+Enter")
    expect(cell.locator("[data-cell-status]")).to_have_text("Stopped.", timeout=RUN_TIMEOUT_MS)
    expect(cell.locator("[data-cell-output]")).to_have_text(
        "Stopped after 2 s, the cell's time limit. Python was restarted; the next run starts afresh.\n"
    )
    editor_of(cell).focus()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type("print('again')")
    # The fresh worker has run nothing: Run on cell 2 runs cell 1 first, with the code it shows now, which no
    # longer defines what cell 2 uses.
    second = page.locator(CELL).nth(1)
    run_and_wait(second)
    expect(cell.locator("[data-cell-status]")).to_have_text(RAN)
    assert output_html(cell) == '<span class="cell-stdout">again\n</span>'
    expect(second.locator("[data-cell-output] .cell-error")).to_contain_text("NameError: name 'first_uniforms' is not defined")


def rerun_with(page: Page, cell: Locator, code: str) -> None:
    """Put `code` in the cell's open editor over what it holds, and run it to the end."""
    editor_of(cell).focus()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.insert_text(code)
    run_and_wait(cell)


def test_a_cell_that_makes_pyodide_fail_for_good_says_so_and_the_next_run_starts_afresh(shared_edit_page: SharedCellPage):
    # Inside a call from JavaScript back into Python, Pyodide's fatal error came back as nothing: the run "ran".
    page, cell = restored_cell(shared_edit_page)
    paste_code(page, cell, "import os\nfrom pyodide.ffi import to_js\nto_js([1]).forEach(lambda *a: os.abort())\nprint('alive')")
    cell.get_by_role("button", name="Run").click()
    expect(cell.locator("[data-cell-status]")).to_have_text("Stopped.", timeout=RUN_TIMEOUT_MS)
    expect(cell.locator("[data-cell-output]")).to_have_text(
        "Python stopped for good: unreachable. Python was restarted; the next run starts afresh.\n"
    )
    rerun_with(page, cell, "print('again')")
    assert output_html(cell) == '<span class="cell-stdout">again\n</span>'


def test_what_a_run_leaves_to_run_later_never_writes_into_the_next_run(shared_edit_page: SharedCellPage):
    """As at build time (test_cell_runner.py): the garbage collector's callbacks a cell added, and the asyncio
    callbacks it scheduled, end with it."""
    page, cell = restored_cell(shared_edit_page)
    paste_code(
        page,
        cell,
        "import asyncio, gc\ngc.callbacks.append(lambda phase, info: print('gc', phase))\n"
        "asyncio.get_event_loop().call_later(0, print, 'later')\nprint('left')",
    )
    run_and_wait(cell)
    assert output_html(cell) == '<span class="cell-stdout">left\n</span>'
    rerun_with(page, cell, "import gc\ngc.collect()\nprint('next')")
    assert output_html(cell) == '<span class="cell-stdout">next\n</span>'


def test_stop_ends_a_run_on_demand_and_the_next_run_works(open_context, site_url):
    page = open_cell_page(open_context, site_url, "03-scoring.html")
    cell = page.locator(CELL).first
    replace_code(page, cell, "while True: pass")
    cell.get_by_role("button", name="Run").click()
    stop = cell.get_by_role("button", name="Stop")
    expect(stop).to_be_enabled(timeout=RUN_TIMEOUT_MS)
    expect(cell.locator("[data-cell-status]")).to_have_text("Running\u2026", timeout=RUN_TIMEOUT_MS)
    stop.click()
    expect(cell.locator("[data-cell-status]")).to_have_text("Stopped.")
    expect(cell.locator("[data-cell-output]")).to_have_text("Stopped. Python was restarted; the next run starts afresh.\n")
    expect(stop).to_be_disabled()

    cell.get_by_role("button", name="Reset").click()
    recorded = output_html(cell)
    run_and_wait(cell)
    assert output_html(cell) == recorded


def test_a_readers_cell_cannot_change_what_a_lab_widget_shows(open_context, site_url):
    page = open_cell_page(open_context, site_url, EDIT_PAGE)
    page.locator("section.lab").first.scroll_into_view_if_needed()  # the lab's Python starts near it
    expect(page.locator("[data-lab-status]").first).to_have_text(LIVE_STATUS, timeout=RUN_TIMEOUT_MS)
    cell = page.locator(CELL).first
    replace_code(
        page,
        cell,
        "import rollout_lab, rollout_lab.widgets\n"
        "rollout_lab.widgets.render_widget = lambda *args: 1 / 0\n"
        "rollout_lab.softmax_probabilities = lambda t: (1.0, 0.0, 0.0)\n"
        # Modules the lab uses too, changed in place (both Pythons start from one snapshot, not one interpreter).
        "import json, math\n"
        "math.exp = lambda x: 0.0\n"
        "json.dumps = lambda *args, **kwargs: '{}'\n"
        "print('reassigned')",
    )
    run_and_wait(cell)
    assert output_html(cell) == '<span class="cell-stdout">reassigned\n</span>'
    temperature = page.locator(PROBABILITIES).get_by_label("Temperature", exact=True)
    recorded = temperature.input_value()
    temperature.fill("2")
    expect_results(page, PROBABILITIES, expected_probabilities("2"))
    # And back: exactly the recorded result.
    temperature.fill(recorded)
    expect_results(page, PROBABILITIES, expected_probabilities(recorded))


def test_keyboard_only_edit_run_and_leave_the_editor(shared_edit_page: SharedCellPage):
    page, cell = restored_cell(shared_edit_page)
    edit = cell.get_by_role("button", name="Edit")
    edit.focus()
    page.keyboard.press("Enter")
    editor = editor_of(cell)
    expect(editor).to_be_focused(timeout=RUN_TIMEOUT_MS)
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type("print('typed')")
    page.keyboard.press("Control+Enter")
    expect(cell.locator("[data-cell-status]")).to_have_text(RAN, timeout=RUN_TIMEOUT_MS)
    assert output_html(cell) == '<span class="cell-stdout">typed\n</span>'
    # The editor and the live toolbar keep axe clean in both schemes.
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        assert find_violations(page) == [], scheme
    # Tab indents inside the editor; Escape then Tab moves on to the next control.
    editor.focus()
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    expect(editor).not_to_be_focused()
    expect(cell.get_by_role("button", name="Run")).to_be_focused()


def test_long_output_stops_at_a_million_characters_and_unsafe_characters_show_escaped(shared_edit_page: SharedCellPage):
    page, cell = restored_cell(shared_edit_page)
    # 24 000 writes of 50 characters: with the old text-node append each copied all the output before it (about
    # 10 GB in all) and froze the tab. Few enough Python iterations to finish well inside the cell's 10 s limit on a
    # loaded machine (160 000 print(i) calls were stopped by it at load 15).
    paste_code(page, cell, "print('\\x1b[2J\\u202e\\x00')\nfor i in range(24_000): print(f'{i:049d}')")
    run_and_wait(cell)
    written = "\\x1b[2J\\u202e\\x00\n" + "".join(f"{i:049d}\n" for i in range(24_000))
    assert cell.locator("[data-cell-output] .cell-stdout").text_content() == written[:1_000_000]
    assert cell.locator("[data-cell-output] .cell-stderr").text_content() == (
        "\n[output truncated: the cell wrote more than 1,000,000 characters; the rest is not shown]\n"
    )


def test_a_saved_edit_follows_its_cell_not_its_number(open_context, site_url):
    """Cells are numbered by their place: a cell added above renumbers the rest, and an edit kept by number would
    open in another cell. The page is served renumbered (cell 1 as 9, cell 2 as 1), as a rebuild would do."""
    context = open_context()
    page = context.new_page()
    page.goto(site_url + EDIT_PAGE)
    cell = page.locator(CELL).first
    expect(cell.locator("[data-cell-toolbar]")).to_be_visible()
    first_code, second_code = (page.locator(CELL).nth(i).locator("pre code").text_content() for i in (0, 1))
    replace_code(page, cell, "print('kept')")
    expect(cell.get_by_role("button", name="Reset")).to_be_enabled()
    page.close()

    def renumber(route) -> None:
        html = route.fetch().text()
        html = html.replace('data-cell="1"', 'data-cell="9"', 1).replace('data-cell="2"', 'data-cell="1"', 1)
        route.fulfill(body=html, content_type="text/html; charset=utf-8")

    page = context.new_page()
    page.route(f"**/{EDIT_PAGE}", renumber)
    page.goto(site_url + EDIT_PAGE)
    moved, other = page.locator('[data-cell="9"]'), page.locator('[data-cell="1"]')
    expect(editor_of(moved)).to_have_text("print('kept')", timeout=RUN_TIMEOUT_MS)
    expect(other.locator("pre code")).to_have_text(second_code)
    assert first_code != second_code
    moved.get_by_role("button", name="Reset").click()
    assert page.evaluate("() => Object.keys(localStorage).filter((key) => key.startsWith('rollouts-cell:'))") == []
