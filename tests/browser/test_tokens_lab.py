"""The token lab in Chromium: the page shows exactly what token_update computes here in CPython.

Chapter 7 shows the whole lab, its update too; chapter 1 shows it without the
update (`update=hidden`): the group, its tree and three controls.

Expected values come from the core (render_widget, token_update, announce_tokens);
the page's results are compared as the browser's own serialisation of the
core's HTML, and the rollouts' table cell by cell with the record's numbers.
One live page serves the tests that open the lab without settings; shared
links get pages of their own.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pytest
from playwright.sync_api import Page, expect

from browser_testing import (
    NEW_CONTEXT_VIEWPORT,
    UPDATE_TIMEOUT_MS,
    choose_setting,
    find_violations,
    open_live_lab,
    reset_lab,
    setting_error,
    shown_and_expected_html,
    wait_for_rows,
)
from rollout_lab import format_number, token_update
from rollout_lab.figures.token_charts import format_probability, show_token
from rollout_lab.widgets import WIDGETS, render_widget
from rollout_lab.widgets.tokens import announce_tokens

pytestmark = pytest.mark.browser

TOKENS_PAGE = "07-signal.html"
TOKENS_ANCHOR = "lab-3"
TOKENS = 'section.lab[data-lab="tokens"]'
GROUP_PAGE = "01-rollout.html"
CONTROLS = WIDGETS["tokens"].controls
DEFAULTS = {control.name: control.default for control in CONTROLS}
LABELS = {control.name: control.label for control in CONTROLS}
PARAMETERS = {control.name: control.url_parameter for control in CONTROLS}

# Several settings of each control, then one that changes them all.
SETTINGS = [
    {"temperature": "0.25"},
    {"temperature": "4"},
    {"group_size": "1"},
    {"group_size": "64"},
    {"seed": "0"},
    {"seed": "4294967295"},
    {"learning_rate": "0"},
    {"learning_rate": "5"},
    {"length_rule": "token_sum"},
    {"temperature": "2", "group_size": "9", "seed": "7", "learning_rate": "2.5", "length_rule": "token_sum"},
]


def rollout_rows(settings: dict[str, str]) -> list[list[str]]:
    """The rollouts' table as a reader sees it, computed here: Rollout, Tokens, Reward, Sequence ratio."""
    record = token_update(**{**DEFAULTS, **settings})
    return [
        [
            str(rollout["rollout"]),
            " ".join(
                f"{show_token(token)}\u00a0{format_probability(p)}"
                for token, p in zip(rollout["tokens"], rollout["probabilities"], strict=True)
            ),
            format_number(rollout["reward"]),
            format_probability(ratio),
        ]
        for rollout, ratio in zip(record["rollouts"], record["sequence_ratios"], strict=True)
    ]


def expect_tokens(page: Page, settings: dict[str, str]) -> None:
    """Wait until the lab shows the core's rollouts for these settings, then compare every byte the browser holds."""
    wait_for_rows(page, TOKENS, "table.lab-token-rollouts", rollout_rows(settings))
    expected = render_widget("tokens", {**DEFAULTS, **settings})
    shown, wanted = shown_and_expected_html(page, TOKENS, expected["html"])
    assert shown == wanted


def open_tokens(open_context, site_url: str, query: str = "", **options) -> Page:
    return open_live_lab(open_context, site_url + TOKENS_PAGE + query, TOKENS, **options)


@pytest.fixture(scope="module")
def tokens_page(open_context, site_url: str) -> Page:
    """Chapter 7 with its token lab live, shared by the module's tests that open it without settings."""
    return open_tokens(open_context, site_url)


def reset(page: Page, viewport: dict[str, int] = NEW_CONTEXT_VIEWPORT) -> None:
    reset_lab(page, TOKENS, lambda: expect_tokens(page, {}), viewport)


def move_the_temperature_slider_right(page: Page) -> None:
    """Press the right arrow on the temperature slider, from the recorded run, and wait for the core's announcement."""
    (slider,) = [control for control in CONTROLS if control.name == "temperature"]
    moved_to = slider.slider_value(slider.slider_position(DEFAULTS["temperature"]) + 1)
    page.locator(TOKENS).get_by_label("Temperature slider", exact=True).focus()
    page.keyboard.press("ArrowRight")
    announcement = render_widget("tokens", {**DEFAULTS, "temperature": moved_to})["announcement"]
    expect(page.locator(f"{TOKENS} [data-lab-announce]")).to_have_text(announcement, timeout=UPDATE_TIMEOUT_MS)


def choose(page: Page, name: str, value: str) -> None:
    """Set one control as a reader would: pick from the list, or type and press Enter."""
    choose_setting(page, TOKENS, LABELS[name], value)


def test_the_recorded_group_and_each_controls_settings_are_the_cores(tokens_page: Page):
    page = tokens_page
    reset(page)
    section = page.locator(TOKENS)
    assert [label.inner_text() for label in section.locator(".lab-field > label").all()] == [
        "Temperature",
        "Group size",
        "Seed",
        "Learning rate",
        "Length rule",
    ]
    assert section.locator("table.lab-token-rollouts thead th").all_inner_texts() == [
        "Rollout",
        "Tokens",
        "Reward",
        "Sequence ratio",
    ]
    assert section.locator('select[name="length_rule"] option').evaluate_all("(all) => all.map((o) => o.value)") == [
        "sequence_mean",
        "token_sum",
    ]
    for settings in SETTINGS:
        section.get_by_role("button", name="Reset").click()
        expect_tokens(page, {})
        for name, value in settings.items():
            choose(page, name, value)
        expect_tokens(page, settings)
        expect(section.locator("[data-lab-announce]")).to_have_text(announce_tokens(token_update(**{**DEFAULTS, **settings})))


def test_a_shared_link_opens_its_group_and_the_address_follows_every_change(open_context, site_url: str):
    settings = SETTINGS[-1]
    # The link Copy link gives names the lab: chapter 7's other labs take T, K and seed too.
    query = "?" + urlencode({PARAMETERS[name]: value for name, value in settings.items()}) + "#" + TOKENS_ANCHOR
    page = open_tokens(open_context, site_url, query)
    section = page.locator(TOKENS)
    expect_tokens(page, settings)
    for name, value in settings.items():
        expect(section.get_by_label(LABELS[name], exact=True)).to_have_value(value)
    # The link lands on the lab: it is in view.
    assert section.evaluate("(lab) => { const r = lab.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; }")

    choose(page, "length_rule", "sequence_mean")
    changed = {**settings, "length_rule": "sequence_mean"}
    expect_tokens(page, changed)
    link = site_url + TOKENS_PAGE + "?" + urlencode({PARAMETERS[name]: changed[name] for name in DEFAULTS}) + "#" + TOKENS_ANCHOR
    expect(page).to_have_url(link)
    section.get_by_role("button", name="Reset").click()
    expect_tokens(page, {})
    expect(page).to_have_url(site_url + TOKENS_PAGE)


def expected_error(**settings: str) -> tuple[str, str]:
    return setting_error(token_update, DEFAULTS, **settings)


def test_a_bad_value_is_explained_inline_and_the_last_result_kept(tokens_page: Page):
    page = tokens_page
    reset(page)
    section = page.locator(TOKENS)
    choose(page, "seed", "7")
    expect_tokens(page, {"seed": "7"})

    choose(page, "learning_rate", "6")
    field, message = expected_error(seed="7", learning_rate="6")
    assert message == "Learning rate must be a number from 0 to 5; 6 is too high"
    expect(section.locator(f'[data-error-for="{field}"]')).to_have_text(message)
    expect(section.get_by_label("Learning rate", exact=True)).to_have_attribute("aria-invalid", "true")
    expect(section.locator("[data-lab-results]")).to_have_class("lab-results lab-results-stale")
    expect_tokens(page, {"seed": "7"})

    choose(page, "learning_rate", "0.5")
    expect_tokens(page, {"seed": "7", "learning_rate": "0.5"})
    expect(section.locator(f'[data-error-for="{field}"]')).to_be_hidden()


def test_a_bad_rule_in_a_link_is_explained_and_the_recorded_group_kept(open_context, site_url: str):
    page = open_tokens(open_context, site_url, "?rule=median#" + TOKENS_ANCHOR)
    section = page.locator(TOKENS)
    field, message = expected_error(length_rule="median")
    expect(section.locator(f'[data-error-for="{field}"]')).to_have_text(message)
    expect_tokens(page, {})
    choose(page, "length_rule", "token_sum")
    expect_tokens(page, {"length_rule": "token_sum"})
    expect(section.locator('select[name="length_rule"] option')).to_have_count(2)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_the_live_lab_with_an_error_showing_has_no_accessibility_violation(tokens_page: Page, scheme: str):
    page = tokens_page
    reset(page)
    page.emulate_media(color_scheme=scheme)
    choose(page, "group_size", "0")
    expect(page.locator(f'{TOKENS} [data-error-for="group_size"]')).to_be_visible()
    for summary in page.locator(f"{TOKENS} details.lab-details summary").all():
        summary.click()
    assert find_violations(page) == []


# Where the lab's controls, its slider and its rollouts' last row are in the window.
MEASURE = """(selector) => {
  const lab = document.querySelector(selector);
  const box = (element) => { const r = element.getBoundingClientRect(); return { top: r.top, bottom: r.bottom }; };
  const slider = lab.querySelector('input[type="range"]');
  const r = slider.getBoundingClientRect();
  return {
    height: window.innerHeight,
    width: document.documentElement.clientWidth,
    page: document.documentElement.scrollWidth,
    header: document.querySelector('.site-header').getBoundingClientRect().bottom,
    form: box(lab.querySelector('[data-lab-controls]')),
    field: box(slider.closest('.lab-field')),
    slider: box(slider),
    sliderOnTop: document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === slider,
    lastRow: box(lab.querySelector('table.lab-token-rollouts tbody tr:last-child')),
    hiddenSideways: (() => { const b = lab.querySelector('table.lab-token-rollouts').closest('.lab-table-scroll'); return b.scrollWidth - b.clientWidth; })(),
  };
}"""


def test_on_a_wide_screen_the_controls_and_the_rollouts_fit_one_screen(tokens_page: Page):
    page = tokens_page
    reset(page, {"width": 1280, "height": 800})
    move_the_temperature_slider_right(page)
    # The reader brings the form's top just under the header: every control and every rollout are in view.
    page.evaluate(
        "(selector) => { const form = document.querySelector(selector + ' [data-lab-controls]'); "
        "window.scrollBy(0, form.getBoundingClientRect().top - document.querySelector('.site-header').getBoundingClientRect().bottom - 4); }",
        TOKENS,
    )
    at = page.evaluate(MEASURE, TOKENS)
    assert at["sliderOnTop"], at
    assert at["header"] <= at["form"]["top"] and at["form"]["bottom"] <= at["lastRow"]["top"], at
    assert at["lastRow"]["bottom"] <= at["height"], at
    assert at["page"] <= at["width"], at
    # Every column, the sequence ratio too, is in view without scrolling the table.
    assert at["hiddenSideways"] == 0, at


def test_on_a_phone_the_field_in_use_sticks_over_the_rollouts(tokens_page: Page):
    page = tokens_page
    reset(page, {"width": 390, "height": 844})
    move_the_temperature_slider_right(page)
    # The reader scrolls down until the rollouts' last row sits at the bottom of the window.
    page.evaluate(
        "(selector) => { const row = document.querySelector(selector + ' table.lab-token-rollouts tbody tr:last-child'); "
        "window.scrollBy(0, row.getBoundingClientRect().bottom - window.innerHeight + 8); }",
        TOKENS,
    )
    at = page.evaluate(MEASURE, TOKENS)
    assert at["sliderOnTop"], at
    assert at["header"] <= at["field"]["top"] and at["field"]["bottom"] <= at["lastRow"]["top"], at
    assert at["lastRow"]["bottom"] <= at["height"], at
    # The page never scrolls sideways; a wide table scrolls in its own box.
    assert at["page"] <= at["width"], at


def test_a_branch_more_rollouts_took_is_drawn_heavier(tokens_page: Page):
    page = tokens_page
    reset(page)
    edges = page.locator(f"{TOKENS} svg.token-tree .token-edge")
    # The figure gives each branch a stroke by how many rollouts took it; no stylesheet rule may flatten it.
    drawn = edges.evaluate_all(
        "(all) => all.map((edge) => [edge.getAttribute('stroke-width'), parseFloat(getComputedStyle(edge).strokeWidth)])"
    )
    assert [width for attribute, width in drawn if attribute is not None] == [
        float(attribute) for attribute, _ in drawn if attribute is not None
    ]
    assert len({width for _, width in drawn}) >= 3, drawn


# --- chapter 1: the group without its update (`::: lab tokens update=hidden`) ------------------------------------

GROUP_VIEW = {"update": "hidden"}

# Where the controls end and the tree begins, once the reader has brought the controls' top just under the header.
# (On a phone the form's boxes stick one by one, so the controls are measured by their own boxes.)
TREE_UNDER_CONTROLS = """(selector) => {
  const lab = document.querySelector(selector);
  const boxes = () => [...lab.querySelectorAll('[data-lab-controls] .lab-field, [data-lab-controls] button')]
    .map((element) => element.getBoundingClientRect()).filter((r) => r.height > 0);
  const header = document.querySelector('.site-header').getBoundingClientRect().bottom;
  window.scrollBy(0, Math.min(...boxes().map((r) => r.top)) - header - 4);
  const tree = lab.querySelector('svg.token-tree').getBoundingClientRect();
  return { height: window.innerHeight, controlsBottom: Math.max(...boxes().map((r) => r.bottom)), treeTop: tree.top };
}"""


def test_chapter_1s_lab_shows_three_controls_and_its_tree_in_sight_of_them(open_context, site_url: str):
    page = open_live_lab(open_context, site_url + GROUP_PAGE, TOKENS, viewport={"width": 1280, "height": 800})
    section = page.locator(TOKENS)
    expect(section.locator(".lab-field > label:visible")).to_have_text(["Temperature", "Group size", "Seed"])
    # Nothing of the update: no ratio column, no learning rate or length rule anywhere in the lab.
    expect(section.locator("table.lab-token-rollouts thead th")).to_have_text(["Rollout", "Tokens", "Reward"])
    expect(section.locator('[name="learning_rate"], [name="length_rule"]')).to_have_count(0)
    # The prose's link sets T = 2 and the lab shows the core's group at T = 2, still without the update.
    page.locator('a.lab-link[data-lab-settings*="temperature"]').first.click()
    expected = render_widget("tokens", {**DEFAULTS, "temperature": "2"}, GROUP_VIEW)
    expect(section.locator("[data-lab-announce]")).to_have_text(expected["announcement"], timeout=UPDATE_TIMEOUT_MS)
    shown, wanted = shown_and_expected_html(page, TOKENS, expected["html"])
    assert shown == wanted
    # A change shows in sight of the control that made it, on a desktop and on a phone.
    for width, height in ((1280, 800), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        at = page.evaluate(TREE_UNDER_CONTROLS, TOKENS)
        assert at["controlsBottom"] <= at["treeTop"] < at["height"], (width, at)
    page.close()
