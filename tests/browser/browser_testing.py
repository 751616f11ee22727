"""Helpers shared by the browser tests (fixtures live in conftest.py).

Expected values always come from the core running here in CPython, through
the same presentation functions the site uses; displayed text is read from
the page and compared exactly (no whitespace normalisation, so a missing
no-break space or a hyphen instead of a minus sign fails).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from functools import partial
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError, Page, expect

from rollout_lab import (
    SettingError,
    group_statistics,
    present_group,
    present_lab,
    present_probabilities,
    run_lab,
    softmax_probabilities,
)
from rollout_lab.validation import check_temperature
from sitegen.serve.static_server import SubPathRequestHandler, SubPathServer

PROJECT_ROOT = Path(__file__).resolve().parents[2]
AXE_SCRIPT = PROJECT_ROOT / "node_modules" / "axe-core" / "axe.min.js"

# Served under a sub-path, as on a project site of a static host.
SITE_PREFIX = "/rollouts/"

PROBABILITIES_PAGE = "02-possibilities.html"
CALCULATOR_PAGE = "03-scoring.html"
SAMPLER_PAGE = "04-follow-draw-3.html"

RECORDED_STATUS = "Recorded at build time."
STARTING_STATUS = "Starting Python in your browser\u2026"
# The megabytes beside the start's progress bar (client/common/progress.mjs): "6.6 of 16.2 MB", then "16.2 MB downloaded".
_DOWNLOADED = r"(?: \d+\.\d of \d+\.\d MB| \d+\.\d MB downloaded)?"


def starting(text: str) -> re.Pattern[str]:
    """A status line that says `text`, with the start's megabytes beside its bar while it downloads."""
    return re.compile(f"^{re.escape(text)}{_DOWNLOADED}$")


LIVE_STATUS = "Computed in your browser by Python 3.14 (Pyodide)."

# Starting Pyodide takes seconds on this machine and more under load.
LIVE_TIMEOUT_MS = 60_000
# The footer's word once the offline keep holds Python too (offline.js), and how long keeping it may take.
KEPT_ALL = "This tutorial is kept for offline reading, Python included"
# Installing a build caches every page and asset; keeping Python copies about 13 MB through the worker.
KEEP_TIMEOUT_MS = 120_000
# Pyodide's WebAssembly as a page may fetch it: the gzip copy the page compiles, or the plain file it falls back to.
RUNTIME_WASM = re.compile(r"/pyodide/[^/]+/pyodide\.asm\.wasm(?:\.gz\.[0-9a-f]{8}\.bin)?$")
COMPRESSED_WASM = re.compile(r"/pyodide/[^/]+/pyodide\.asm\.wasm\.gz\.[0-9a-f]{8}\.bin$")
# Contexts that make URLs fail on purpose for as long as they are open (reader_fixtures.block_python), by id():
# the page's "Failed to load resource" console errors for those URLs are expected there (conftest's guard).
FAILING_IN_CONTEXT: dict[int, list[re.Pattern[str]]] = {}
UPDATE_TIMEOUT_MS = 15_000

DEFAULT_SAMPLER_SETTINGS = {"temperature": "1", "group_size": "6", "seed": "20260903"}


SAMPLER = 'section.lab[data-lab="sampler"]'
PROBABILITIES = 'section.lab[data-lab="probabilities"]'
CALCULATOR = 'section.lab[data-lab="calculator"]'


# Reads every results cell by its data-field and every data-value, as text.
_READ_RESULTS = """(selector) => {
  const results = document.querySelector(selector).querySelector("[data-lab-results]");
  const tables = [...results.querySelectorAll("table")].map((table) =>
    [...table.querySelectorAll("tr")]
      .filter((row) => row.querySelector("[data-field]") !== null)
      .map((row) => Object.fromEntries(
        [...row.querySelectorAll("[data-field]")].map((cell) => [cell.dataset.field, cell.textContent]))));
  const values = Object.fromEntries(
    [...results.querySelectorAll("[data-value]")].map((element) => [element.dataset.value, element.textContent]));
  return { tables, values };
}"""

_SHOWS_RESULTS = (
    """({ selector, expected }) => {
  const canonical = (value) => JSON.stringify(value, (key, item) =>
    item !== null && typeof item === "object" && !Array.isArray(item)
      ? Object.fromEntries(Object.entries(item).sort()) : item);
  return canonical(("""
    + _READ_RESULTS
    + """)(selector)) === canonical(expected);
}"""
)


def find_violations(page: Page, impacts: tuple[str, ...] = ("minor", "moderate", "serious", "critical")) -> list[str]:
    """Run axe-core on the page and describe each violation of the given impacts with the elements it found.

    axe is evaluated through the DevTools protocol rather than added as a
    <script>: the site's Content-Security-Policy rightly refuses inline
    scripts, and the scan should see the page with its policy enforced.
    The 404 page first finds the site's root and loads its stylesheet from
    there (data-finding-root meanwhile): the scan waits for it.
    """
    expect(page.locator("html[data-finding-root]")).to_have_count(0)
    if not page.evaluate("typeof axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT.read_text(encoding="utf-8"))
    violations = page.evaluate("async () => (await axe.run(document, { resultTypes: ['violations'] })).violations")
    return [
        f"{violation['impact']}: {violation['id']} ({violation['help']}) at "
        + ", ".join(
            " ".join(" >> ".join(part) if isinstance(part, list) else part for part in node["target"])
            + ": "
            + node["failureSummary"].replace("\n", " ")
            for node in violation["nodes"]
        )
        for violation in violations
        if violation["impact"] in impacts
    ]


def read_results(page: Page, selector: str) -> dict:
    """Return a widget's displayed results: its tables' rows (data-field → text) and its data-value texts."""
    return page.evaluate(_READ_RESULTS, selector)


def expect_results(page: Page, selector: str, expected: dict, timeout: float = UPDATE_TIMEOUT_MS) -> None:
    """Wait until a widget shows exactly `expected` (see read_results); on timeout, fail with the difference."""
    with contextlib.suppress(PlaywrightError):  # the assertion below says what differs
        page.wait_for_function(_SHOWS_RESULTS, arg={"selector": selector, "expected": expected}, timeout=timeout)
    assert read_results(page, selector) == expected


def probability_rows(view: dict) -> list[dict]:
    """Return the probability table's rows as displayed: one per candidate, then the shown total."""
    rows = [
        {"completion": row["completion"], "logit": row["logit"], "reward": row["reward"], "probability": row["probability"]}
        for row in view["rows"]
    ]
    return rows + [{"shown-total": view["shown_total"]}]


def sampler_results(record: dict) -> dict:
    """Return what the sampler shows for a record: the draws, the probabilities in force, the mean."""
    view = present_lab(record)
    return {
        "tables": [view["draws"], probability_rows(view["probabilities"])],
        "values": {"mean": view["mean"]},
    }


def expected_sampler(temperature: str, group_size: str, seed: str) -> dict:
    """Return what the sampler shows for settings typed as text, computed by the core in CPython."""
    return sampler_results(run_lab(temperature, group_size, seed))


def expected_probabilities(temperature: str) -> dict:
    """Return what the probability table shows at a temperature typed as text."""
    view = present_probabilities(softmax_probabilities(check_temperature(temperature)))
    return {"tables": [probability_rows(view)], "values": {}}


def expected_calculator(rewards: str) -> dict:
    """Return what the group calculator shows for rewards typed as text."""
    view = present_group(group_statistics(rewards))
    rows = [{"position": str(row["position"]), "reward": row["reward"], "signal": row["signal"]} for row in view["rows"]]
    return {"tables": [rows], "values": {"mean": view["mean"]}}


def expected_setting_error(**settings: str) -> tuple[str, str]:
    """Return (field, message) of the core's SettingError for sampler settings (others at their defaults)."""
    try:
        run_lab(**{**DEFAULT_SAMPLER_SETTINGS, **settings})
    except SettingError as error:
        return error.field, str(error)
    raise AssertionError(f"the core accepts {settings}")


class LoggingServer(SubPathServer):
    """The preview server, keeping the path and status of every GET it answered."""

    def __init__(self, folder: Path, prefix: str) -> None:
        super().__init__(folder, prefix)
        self.sent: list[tuple[str, int]] = []
        self.RequestHandlerClass = partial(LoggingHandler, directory=str(folder))


class LoggingHandler(SubPathRequestHandler):
    server: LoggingServer

    def send_response(self, code: int, message: str | None = None) -> None:
        if self.command == "GET":
            self.server.sent.append((self.path.split("?", 1)[0], int(code)))
        super().send_response(code, message)


@contextlib.contextmanager
def paused_clock(page: Page) -> Iterator[None]:
    """Stop the page's clock (Playwright's) for the block: the page's timers fire only when the test moves it on
    (`page.clock.run_for`), so how long the machine takes between two steps never decides what the page does.

    The clock goes on at its own pace after the block (the page may be a module's shared one).
    """
    page.clock.install()
    page.clock.pause_at(page.evaluate("Date.now()") / 1000 + 1)
    try:
        yield
    finally:
        page.clock.resume()


# ---------------------------------------------------------------- the labs driven by one module each (tokens, training)

# The page's results as the browser serialises them, and the core's HTML parsed and serialised by the same browser.
_RESULTS_AND_EXPECTED = """({ selector, html }) => {
  const shown = document.querySelector(selector).querySelector("[data-lab-results]");
  const parsed = document.createElement("div");
  parsed.innerHTML = html;
  return [shown.innerHTML.trim(), parsed.innerHTML.trim()];
}"""

# A results table's body rows, each as the text of its cells.
_TABLE_ROWS = """({ selector, table }) => [...document.querySelector(selector).querySelectorAll(table + " tbody tr")]
  .map((row) => [...row.querySelectorAll("th, td")].map((cell) => cell.textContent))"""


def shown_and_expected_html(page: Page, selector: str, html: str) -> tuple[str, str]:
    """Return a lab's results as the browser holds them, and the core's `html` as the same browser serialises it."""
    shown, wanted = page.evaluate(_RESULTS_AND_EXPECTED, {"selector": selector, "html": html})
    return shown, wanted


def wait_for_rows(page: Page, selector: str, table: str, rows: list[list[str]]) -> None:
    """Wait until a lab's table (`table`, a selector inside the lab) shows exactly `rows`; on timeout, fail with them."""
    arg = {"selector": selector, "table": table}
    with contextlib.suppress(PlaywrightError):  # the assertion below says what differs
        page.wait_for_function(
            f"(arg) => JSON.stringify(({_TABLE_ROWS})(arg)) === JSON.stringify(arg.rows)",
            arg={**arg, "rows": rows},
            timeout=UPDATE_TIMEOUT_MS,
        )
    assert page.evaluate(_TABLE_ROWS, arg) == rows


def open_live_lab(open_context, url: str, selector: str, **options) -> Page:
    """Open `url` in a new context (with `options`), bring the lab to view and wait until it computes live."""
    page = open_context(**options).new_page()
    page.goto(url)
    page.locator(selector).scroll_into_view_if_needed()
    expect(page.locator(f"{selector} [data-lab-status]")).to_have_text(LIVE_STATUS, timeout=LIVE_TIMEOUT_MS)
    return page


def choose_setting(page: Page, selector: str, label: str, value: str) -> None:
    """Set one control as a reader would: pick from the list, or type and press Enter."""
    field = page.locator(selector).get_by_label(label, exact=True)
    if field.evaluate("(element) => element.tagName") == "SELECT":
        field.select_option(value)
    else:
        field.fill(value)
        field.press("Enter")


# The window a new context gets (Playwright's default), which a shared page is given back between tests.
NEW_CONTEXT_VIEWPORT = {"width": 1280, "height": 720}


def reset_lab(page: Page, selector: str, wait_for_recorded, viewport: dict[str, int] | None = None) -> None:
    """Bring a shared lab page back to its recorded run and to where open_live_lab leaves a page: the light scheme,
    every details folded, Reset, no error shown; then a window of `viewport` (when given), nothing focused, the lab
    scrolled into view from the top.
    """
    page.emulate_media(color_scheme="light")
    to_the_top = "() => { document.activeElement?.blur(); window.scrollTo(0, 0); }"
    page.evaluate(to_the_top)
    page.locator(f"{selector} details.lab-details").evaluate_all("(all) => all.forEach((d) => { d.open = false; })")
    page.locator(selector).get_by_role("button", name="Reset").click()
    wait_for_recorded()
    expect(page.locator(f"{selector} [data-error-for]:visible")).to_have_count(0)
    if viewport is not None:
        page.set_viewport_size(viewport)
    page.evaluate(to_the_top)
    page.locator(selector).scroll_into_view_if_needed()
    assert page.evaluate("document.activeElement === document.body")


def restore_sampler(page: Page, site_url: str, viewport: dict[str, int]) -> None:
    """Bring a module's shared, live chapter 4 page back to what a fresh load shows, in a window of `viewport`.

    The window resized as a reader resizes theirs; the light scheme; Reset, then checked: the recorded run shown,
    no field invalid, no "Not updated" note, the address without settings; nothing focused; scrolled to the top.
    """
    page.set_viewport_size(viewport)
    page.emulate_media(color_scheme="light")
    page.evaluate("() => { document.activeElement?.blur(); window.scrollTo(0, 0); }")
    section = page.locator(SAMPLER)
    section.get_by_role("button", name="Reset").click()
    expect_results(page, SAMPLER, expected_sampler(**DEFAULT_SAMPLER_SETTINGS))
    expect(section.locator("[aria-invalid]")).to_have_count(0)
    expect(section.locator("[data-lab-pending]")).to_be_hidden()
    expect(page).to_have_url(site_url + SAMPLER_PAGE)
    page.evaluate("() => { document.activeElement?.blur(); window.scrollTo(0, 0); }")
    assert page.evaluate("[document.activeElement === document.body, window.scrollY]") == [True, 0]


def setting_error(run, defaults: dict[str, str], **settings: str) -> tuple[str, str]:
    """Return (field, message) of the SettingError `run` raises for `settings` over `defaults`."""
    try:
        run(**{**defaults, **settings})
    except SettingError as error:
        return error.field, str(error)
    raise AssertionError(f"{settings} are good settings")
