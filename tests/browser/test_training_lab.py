"""The training lab in Chromium: the page shows exactly what run_training computes here in CPython.

Expected values come from the core (render_widget, run_training, announce_training);
the page's results are compared as the browser's own serialisation of the
core's HTML, so a single changed digit, class or SVG point fails. One live
page (one Pyodide start) serves the tests that open the lab without settings:
each first resets it to the recorded run, as a reader would; shared links
get pages of their own.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

from browser_testing import (
    choose_setting,
    find_violations,
    open_live_lab,
    reset_lab,
    setting_error,
    shown_and_expected_html,
    wait_for_rows,
)
from rollout_lab import format_fixed
from rollout_lab.learning.training import run_training
from rollout_lab.widgets import WIDGETS, render_widget
from rollout_lab.widgets.training_results import announce_training, describe_clipped

pytestmark = pytest.mark.browser

TRAINING_PAGE = "06-learning.html"
TRAINING = 'section.lab[data-lab="training"]'
CONTROLS = WIDGETS["training"].controls
DEFAULTS = {control.name: control.default for control in CONTROLS}
LABELS = {control.name: control.label for control in CONTROLS}
# Behind "More settings" on a phone, in the controls' order.
MORE_SETTINGS = [control.name for control in CONTROLS if control.name in WIDGETS["training"].more_settings]
PARAMETERS = {control.name: control.url_parameter for control in CONTROLS}

# The list (α = 0, E = 1, ε = 1, β > 0, the std rule, K = 1, R = 10, K = 64) and one that changes everything.
SETTINGS = [
    {"learning_rate": "0"},
    {"epochs": "1"},
    {"clip": "1"},
    {"kl_weight": "0.5"},
    {"signal_rule": "std"},
    {"group_size": "1"},
    {"rounds": "10"},
    {"group_size": "64"},
    {
        "rounds": "3",
        "group_size": "16",
        "seed": "7",
        "learning_rate": "2",
        "epochs": "6",
        "clip": "0.1",
        "kl_weight": "0.1",
        "signal_rule": "std",
    },
]


def expected_widget(settings: dict[str, str]) -> dict:
    return render_widget("training", {**DEFAULTS, **settings})


def round_rows(settings: dict[str, str]) -> list[list[str]]:
    """The round table as a reader sees it, computed here: Round, Expected reward, KL, Clipped."""
    record = run_training(**{**DEFAULTS, **settings})
    return [
        [str(r["round"]), format_fixed(r["expected_reward"]), format_fixed(r["kl"]), describe_clipped(r)]
        for r in record["rounds"]
    ]


def shown_rows(page: Page) -> list[list[str]]:
    table = page.locator(f"{TRAINING} table.lab-rounds tbody tr")
    return [row.locator("th, td").all_inner_texts() for row in table.all()]


def expect_training(page: Page, settings: dict[str, str]) -> None:
    """Wait until the lab shows the core's results for these settings, then compare every byte the browser holds."""
    expected = expected_widget(settings)
    rows = round_rows(settings)
    wait_for_rows(page, TRAINING, "table.lab-rounds", rows)
    shown, wanted = shown_and_expected_html(page, TRAINING, expected["html"])
    assert shown == wanted
    assert shown_rows(page) == rows


def open_training(open_context, site_url: str, query: str = "", **options) -> Page:
    return open_live_lab(open_context, site_url + TRAINING_PAGE + query, TRAINING, **options)


@pytest.fixture(scope="module")
def training_page(open_context, site_url: str) -> Page:
    """Chapter 6 with its training lab live, shared by the module's tests that open it without settings."""
    return open_training(open_context, site_url)


def reset(page: Page) -> None:
    """Bring the shared page back to the recorded run: Reset, the details folded, the light scheme."""
    reset_lab(page, TRAINING, lambda: expect_training(page, {}))


def choose(page: Page, name: str, value: str) -> None:
    """Set one control as a reader would: pick from the list, or type and press Enter."""
    choose_setting(page, TRAINING, LABELS[name], value)


def test_the_recorded_run_and_eight_other_settings_are_the_cores(training_page: Page):
    page = training_page
    reset(page)
    section = page.locator(TRAINING)
    assert [label.inner_text() for label in section.locator(".lab-field > label").all()] == [
        "Rounds",
        "Group size",
        "Seed",
        "Learning rate",
        "Epochs",
        "Clip",
        "KL weight",
        "Signal rule",
    ]
    assert section.locator("table.lab-rounds thead th").all_inner_texts() == ["Round", "Expected reward", "KL", "Clipped"]
    expect_training(page, {})
    # The defaults are the training lab's own: its group size is 8, the sampler's stays 6.
    expect(section.get_by_label("Group size", exact=True)).to_have_value("8")

    for settings in SETTINGS:
        section.get_by_role("button", name="Reset").click()
        expect_training(page, {})
        for name, value in settings.items():
            choose(page, name, value)
        expect_training(page, settings)
        record = run_training(**{**DEFAULTS, **settings})
        expect(section.locator("[data-lab-announce]")).to_have_text(announce_training(record))


def test_the_announcement_makes_the_point_of_the_change(training_page: Page):
    page = training_page
    reset(page)
    choose(page, "rounds", "3")
    # Round 3 of the recorded settings, counted as its row of the table counts (issue 39: no longer the last epoch alone).
    expect(page.locator(f"{TRAINING} [data-lab-announce]")).to_have_text(
        "Round 3: expected reward 0.9127, KL 0.1054, 6 of 32 (sample, epoch) pairs clipped"
    )


def test_a_shared_link_opens_its_run_and_the_address_follows_every_change(open_context, site_url: str):
    settings = SETTINGS[-1]
    query = "?" + urlencode({PARAMETERS[name]: value for name, value in settings.items()})
    page = open_training(open_context, site_url, query)
    section = page.locator(TRAINING)
    expect_training(page, settings)
    for name, value in settings.items():
        expect(section.get_by_label(LABELS[name], exact=True)).to_have_value(value)

    choose(page, "epochs", "2")
    changed = {**settings, "epochs": "2"}
    expect_training(page, changed)
    link = site_url + TRAINING_PAGE + "?" + urlencode({PARAMETERS[name]: changed[name] for name in DEFAULTS}) + "#lab-1"
    expect(page).to_have_url(link)

    # The link round-trips: a new reader opening it sees the same run.
    again = open_training(open_context, site_url, "?" + link.split("?", 1)[1])
    expect_training(again, changed)

    # Reset is the recorded run, which needs no parameters.
    section.get_by_role("button", name="Reset").click()
    expect_training(page, {})
    expect(page).to_have_url(site_url + TRAINING_PAGE)


def expected_error(**settings: str) -> tuple[str, str]:
    return setting_error(run_training, DEFAULTS, **settings)


def test_a_bad_value_is_explained_and_the_last_good_result_kept(training_page: Page):
    page = training_page
    reset(page)
    section = page.locator(TRAINING)
    choose(page, "epochs", "2")
    expect_training(page, {"epochs": "2"})

    choose(page, "learning_rate", "-1")
    field, message = expected_error(epochs="2", learning_rate="-1")
    assert message == "Learning rate must be a number from 0 to 5; \u22121 is too low"
    expect(section.locator(f'[data-error-for="{field}"]')).to_have_text(message)
    expect(section.get_by_label("Learning rate", exact=True)).to_have_attribute("aria-invalid", "true")
    expect(section.locator("[data-lab-results]")).to_have_class("lab-results lab-results-stale")
    expect(section.locator("[data-lab-announce]")).to_contain_text(message)
    expect_training(page, {"epochs": "2"})

    choose(page, "learning_rate", "0.5")
    expect_training(page, {"epochs": "2", "learning_rate": "0.5"})
    expect(section.locator(f'[data-error-for="{field}"]')).to_be_hidden()


def test_a_bad_value_in_a_link_is_explained_and_the_recorded_run_kept(open_context, site_url: str):
    page = open_training(open_context, site_url, "?rule=median&E=0")
    section = page.locator(TRAINING)
    for name, value in (("signal_rule", "median"), ("epochs", "0")):
        field, message = expected_error(**{name: value})
        expect(section.locator(f'[data-error-for="{field}"]')).to_have_text(message)
    expect(section.get_by_label("Signal rule", exact=True)).to_have_value("median")
    expect_training(page, {})

    # Picking a listed rule drops the link's unknown one from the list.
    choose(page, "signal_rule", "std")
    choose(page, "epochs", "1")
    expect_training(page, {"signal_rule": "std", "epochs": "1"})
    expect(section.locator('select[name="signal_rule"] option')).to_have_count(2)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_live_lab_with_an_error_showing_has_no_accessibility_violation(training_page: Page, scheme: str):
    page = training_page
    reset(page)
    page.emulate_media(color_scheme=scheme)
    assert page.evaluate("matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
    choose(page, "clip", "2")
    expect(page.locator(f'{TRAINING} [data-error-for="clip"]')).to_be_visible()
    page.locator(f"{TRAINING} details.lab-details summary").click()
    expect(page.locator(f"{TRAINING} details.lab-details")).to_have_attribute("open", "")
    assert find_violations(page) == []


# Where the control in use, the round table and the first figure (the probabilities, which the intro names first)
# are in the window; what is painted at the centre of each; what sticks; whether any control is out of the layout.
MEASURE = """(selector) => {
  const lab = document.querySelector(selector);
  const header = document.querySelector('.site-header').getBoundingClientRect().bottom;
  const box = (element) => {
    const r = element.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    const onTop = document.elementFromPoint(x, y);
    return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, onTop: onTop !== null && element.contains(onTop) };
  };
  let stuck = document.activeElement;
  while (stuck && getComputedStyle(stuck).position !== 'sticky') stuck = stuck.parentElement;
  return {
    height: window.innerHeight, width: document.documentElement.clientWidth,
    page: document.documentElement.scrollWidth, header,
    control: box(document.activeElement),
    controlName: document.activeElement.name,
    stuck: stuck && box(stuck),
    table: box(lab.querySelector('table.lab-rounds')),
    figure: box(lab.querySelector('svg.train-chart')),
    unshown: [...lab.querySelectorAll('.lab-field')].filter((field) => field.getClientRects().length === 0
      || getComputedStyle(field).visibility !== 'visible').map((field) => field.dataset.control),
  };
}"""

# Each change as a reader makes it: the spin buttons' arrow key, and a typed clip.
CHANGES = [("rounds", "Rounds", "ArrowUp", "6"), ("epochs", "Epochs", "ArrowUp", "5"), ("clip", "Clip", "0.3", "0.3")]


def inside(part: dict, at: dict, top: float) -> bool:
    return top <= part["top"] and part["bottom"] <= at["height"] and part["left"] >= 0 and part["right"] <= at["width"]


@pytest.fixture(scope="module", params=[{"width": 390, "height": 844}, {"width": 1280, "height": 800}], ids=["390px", "1280px"])
def sized_training_page(request, open_context, site_url: str) -> Page:
    """Chapter 6's training lab live in a window of one size, shared by both schemes' layout tests (one start, not two)."""
    return open_training(open_context, site_url, viewport=request.param)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_control_in_use_and_the_round_table_share_the_screen(sized_training_page: Page, scheme: str):
    page = sized_training_page
    reset(page)
    page.emulate_media(color_scheme=scheme)
    section = page.locator(TRAINING)
    assert page.viewport_size is not None
    wide = page.viewport_size["width"] >= 1280
    # The reader has read the lab's introduction and brought its controls to the top of the screen (Reset, just
    # pressed, let go of: a form stuck while in use would stay at the top as the page scrolled past it).
    page.evaluate("document.activeElement.blur()")
    page.evaluate(
        "(selector) => window.scrollBy(0, document.querySelector(selector + ' [data-lab-controls]').getBoundingClientRect().top"
        " - document.querySelector('.site-header').getBoundingClientRect().bottom)",
        TRAINING,
    )
    settings: dict[str, str] = {}
    for name, label, change, value in CHANGES:
        field = section.get_by_label(label, exact=True)
        field.focus()
        if change.startswith("Arrow"):
            page.keyboard.press(change)
        else:
            field.fill(change)
            field.press("Enter")
        settings[name] = value
        expect_training(page, settings)
        if wide:
            # The reader brings the figure under the table into view (no scrolling when it is in view already); on a
            # phone the table is right under the strip of controls, in view without scrolling.
            page.evaluate(
                "(selector) => { const r = document.querySelector(selector + ' svg.train-chart').getBoundingClientRect();"
                " if (r.bottom > innerHeight) window.scrollBy(0, r.bottom - innerHeight + 8); }",
                TRAINING,
            )
        at = page.evaluate(MEASURE, TRAINING)
        assert at["controlName"] == name, at
        expect(field).to_be_focused()
        # The control in use, whole and on top, under the header; the table whole, under the header and not under
        # the controls (on a phone they stick as a strip over the lab while in use).
        assert inside(at["control"], at, at["header"]) and at["control"]["onTop"], (name, at)
        below = max(at["header"], at["stuck"]["bottom"]) if at["stuck"] and not wide else at["header"]
        assert inside(at["table"], at, below) and at["table"]["onTop"], (name, at)
        if wide:
            # The controls stand beside the results: the figure is in view too, and nothing covers it.
            assert inside(at["figure"], at, at["header"]) and at["figure"]["onTop"], (name, at)
            assert at["stuck"] is not None and at["stuck"]["right"] <= at["table"]["left"], (name, at)
        # Every control is laid out but, on a phone, those behind "More settings"; the page never scrolls sideways.
        assert at["unshown"] == ([] if wide else MORE_SETTINGS), at
        assert at["page"] <= at["width"], at
    # Reading on, with no control in use, nothing sticks over the text on a phone.
    page.evaluate("document.activeElement.blur()")
    if not wide:
        assert section.locator("[data-lab-controls]").evaluate("(e) => getComputedStyle(e).position") == "static"


# Each control of the lab as laid out: shown or not, and whether it stands inside the lab's box and the window.
FINDABLE = """(selector) => {
  const lab = document.querySelector(selector);
  const form = lab.querySelector('[data-lab-controls]');
  const box = lab.getBoundingClientRect();
  const controls = [...form.querySelectorAll('.lab-field'), ...form.querySelectorAll(':scope > button')];
  return {
    sideways: form.scrollWidth - form.clientWidth,
    shown: controls.filter((c) => c.getClientRects().length > 0).map((c) => c.dataset.control ?? c.textContent.trim()),
    outside: controls.filter((c) => c.getClientRects().length > 0).filter((c) => {
      const r = c.getBoundingClientRect();
      return r.left < box.left || r.right > box.right || r.right > document.documentElement.clientWidth;
    }).map((c) => c.dataset.control ?? c.textContent.trim()),
  };
}"""


def test_on_a_phone_every_control_is_in_a_grid_or_one_tap_away_behind_more_settings(open_reader_context, site_url: str):
    """Issue 56: a sideways strip hid Seed, Learning rate, KL weight, Signal rule, Reset and Copy link at 390 px."""
    page = open_reader_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(site_url + "06-learning.html")
    section = page.locator(TRAINING)
    more = section.get_by_role("button", name="More settings")
    expect(more).to_have_attribute("aria-expanded", "false")
    at = page.evaluate(FINDABLE, TRAINING)
    primary = [name for name in LABELS if name not in MORE_SETTINGS]
    assert at == {"sideways": 0, "shown": [*primary, "More settings", "Reset", "Copy link"], "outside": []}, at
    more.click()
    expect(more).to_have_attribute("aria-expanded", "true")
    at = page.evaluate(FINDABLE, TRAINING)
    assert at == {"sideways": 0, "shown": [*LABELS, "More settings", "Reset", "Copy link"], "outside": []}, at
    # Closed again, a link in the prose that sets a setting behind it opens it.
    more.click()
    page.locator('a.lab-link[data-lab-settings*="learning_rate"]').first.click()
    expect(more).to_have_attribute("aria-expanded", "true")
    expect(section.get_by_label("Learning rate", exact=True)).to_be_visible()
    page.close()
