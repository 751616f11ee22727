"""The sampler's controls as a reader uses them: log slider, presets, steppers, new seed, the draw-rule strip, announcements.

Expected values come from the core and from rollout_lab.widgets.controls (the one
home of the controls' ranges and slider mapping) running here in CPython.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Locator, Page, expect

from browser_testing import (
    DEFAULT_SAMPLER_SETTINGS,
    SAMPLER,
    SAMPLER_PAGE,
    expect_results,
    expected_sampler,
)
from rollout_lab import format_u, run_lab
from rollout_lab.widgets import WIDGETS, render_widget
from rollout_lab.widgets.controls import GROUP_SIZE, SEED, TEMPERATURE

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def sampler_page(open_live_page) -> Page:
    """Chapter 4 with its lab live."""
    return open_live_page(SAMPLER_PAGE)


def field(page: Page, label: str) -> Locator:
    return page.locator(SAMPLER).get_by_label(label, exact=True)


def reset(page: Page) -> None:
    page.locator(SAMPLER).get_by_role("button", name="Reset").click()
    expect_results(page, SAMPLER, expected_sampler(**DEFAULT_SAMPLER_SETTINGS))


def test_the_slider_walks_the_whole_range_in_equal_steps_per_doubling(sampler_page: Page):
    reset(sampler_page)
    slider = field(sampler_page, "Temperature slider")
    temperature = field(sampler_page, "Temperature")
    expect(slider).to_have_attribute("min", str(TEMPERATURE.slider_min))
    expect(slider).to_have_attribute("max", str(TEMPERATURE.slider_max))

    slider.focus()
    sampler_page.keyboard.press("Home")
    shown = [temperature.input_value()]
    for _ in range(TEMPERATURE.slider_min, TEMPERATURE.slider_max):
        sampler_page.keyboard.press("ArrowRight")
        shown.append(temperature.input_value())

    expected = [TEMPERATURE.slider_value(p) for p in range(TEMPERATURE.slider_min, TEMPERATURE.slider_max + 1)]
    assert shown == expected
    assert shown[0] == "0.05" and shown[-1] == "20" and len(set(shown)) == len(shown)
    # Every doubling takes the same number of steps: 1, 2 and 4 are 7 positions apart.
    assert shown.index("2") - shown.index("1") == shown.index("4") - shown.index("2") == TEMPERATURE.steps_per_doubling
    expect_results(sampler_page, SAMPLER, expected_sampler("20", "6", "20260903"))


@pytest.mark.parametrize("typed", ["0.05", "0.3", "1", "1.37", "3", "20"])
def test_a_typed_temperature_moves_the_slider_to_its_nearest_position(sampler_page: Page, typed: str):
    reset(sampler_page)
    field(sampler_page, "Temperature").fill(typed)
    field(sampler_page, "Temperature").press("Enter")  # commits at once, rather than after the typing pause

    expect(field(sampler_page, "Temperature slider")).to_have_value(str(TEMPERATURE.slider_position(typed)))
    expect(field(sampler_page, "Temperature slider")).to_have_attribute("aria-valuetext", typed)
    expect_results(sampler_page, SAMPLER, expected_sampler(typed, "6", "20260903"))


def test_presets_set_the_temperature_and_show_which_is_chosen(sampler_page: Page, site_url: str):
    reset(sampler_page)
    presets = sampler_page.locator(SAMPLER).get_by_role("group", name="Temperature presets")
    expect(presets.get_by_role("button")).to_have_text(list(TEMPERATURE.presets))

    for preset in TEMPERATURE.presets:
        presets.get_by_role("button", name=preset, exact=True).click()
        expect(field(sampler_page, "Temperature")).to_have_value(preset)
        expect(presets.get_by_role("button", name=preset, exact=True)).to_have_attribute("aria-pressed", "true")
        expect(presets.locator('[aria-pressed="true"]')).to_have_count(1)
        expect_results(sampler_page, SAMPLER, expected_sampler(preset, "6", "20260903"))
    expect(sampler_page).to_have_url(site_url + SAMPLER_PAGE + f"?T={TEMPERATURE.presets[-1]}&K=6&seed=20260903#lab-1")


def test_steppers_and_arrow_keys_change_whole_numbers_within_their_range(sampler_page: Page):
    reset(sampler_page)
    section = sampler_page.locator(SAMPLER)
    group_size = field(sampler_page, "Group size")

    section.get_by_role("button", name="Increase group size by 1").click()
    expect(group_size).to_have_value("7")
    expect_results(sampler_page, SAMPLER, expected_sampler("1", "7", "20260903"))
    section.get_by_role("button", name="Decrease group size by 1").click()
    section.get_by_role("button", name="Decrease group size by 1").click()
    expect(group_size).to_have_value("5")
    expect(group_size).to_have_attribute("aria-valuenow", "5")

    group_size.press("PageUp")
    expect(group_size).to_have_value("15")
    group_size.press("ArrowDown")
    expect(group_size).to_have_value("14")
    expect_results(sampler_page, SAMPLER, expected_sampler("1", "14", "20260903"))

    group_size.fill(str(int(GROUP_SIZE.high)))
    group_size.press("ArrowUp")  # stops at the range's end
    expect(group_size).to_have_value(str(int(GROUP_SIZE.high)))
    group_size.fill(str(int(GROUP_SIZE.low)))
    section.get_by_role("button", name="Decrease group size by 1").click()
    expect(group_size).to_have_value(str(int(GROUP_SIZE.low)))

    seed = field(sampler_page, "Seed")
    seed.press("ArrowUp")
    expect(seed).to_have_value("20260904")
    expect_results(sampler_page, SAMPLER, expected_sampler("1", "1", "20260904"))


def test_new_seed_draws_a_fresh_group_from_a_seed_in_range(sampler_page: Page):
    reset(sampler_page)
    seed = field(sampler_page, "Seed")
    sampler_page.locator(SAMPLER).get_by_role("button", name="New seed").click()

    expect(seed).not_to_have_value(DEFAULT_SAMPLER_SETTINGS["seed"])
    chosen = seed.input_value()
    assert SEED.low <= int(chosen) <= SEED.high
    expect_results(sampler_page, SAMPLER, expected_sampler("1", "6", chosen))


def test_inputs_use_16_px_text_so_phones_do_not_zoom(sampler_page: Page):
    sizes = sampler_page.evaluate(
        """(selector) => [...document.querySelectorAll(selector + ' input[type="text"]')]
             .map((input) => getComputedStyle(input).fontSize)""",
        SAMPLER,
    )
    assert sizes == ["16px", "16px", "16px"]


def strip_marks(page: Page) -> list[tuple[str, str]]:
    return page.evaluate(
        """(selector) => [...document.querySelectorAll(selector + ' svg.draw-rule line[data-draw]')]
             .map((line) => [line.dataset.draw, line.dataset.u])
             .sort((a, b) => Number(a[0]) - Number(b[0]))""",
        SAMPLER,
    )


@pytest.mark.parametrize(("temperature", "group_size", "seed"), [("1", "6", "20260903"), ("4", "10", "7"), ("0.25", "3", "99")])
def test_the_strip_marks_each_draws_u_from_the_core(sampler_page: Page, temperature, group_size, seed):
    reset(sampler_page)
    field(sampler_page, "Temperature").fill(temperature)
    field(sampler_page, "Group size").fill(group_size)
    field(sampler_page, "Seed").fill(seed)
    field(sampler_page, "Seed").press("Enter")
    expect_results(sampler_page, SAMPLER, expected_sampler(temperature, group_size, seed))

    record = run_lab(temperature, group_size, seed)
    assert strip_marks(sampler_page) == [[str(d["draw"]), format_u(d["u"])] for d in record["draws"]]
    followed = sampler_page.locator(f"{SAMPLER} svg.draw-rule line.strip-u-followed")
    expect(followed).to_have_attribute("data-draw", "3")
    # The strip is the widget renderer's: the same markup the core writes in CPython.
    rendered = render_widget("sampler", {"temperature": temperature, "group_size": group_size, "seed": seed})["html"]
    strip = sampler_page.locator(f"{SAMPLER} svg.draw-rule").evaluate("(svg) => svg.outerHTML")
    assert strip == sampler_page.evaluate(
        """(html) => {
             const parsed = document.createElement("template");
             parsed.innerHTML = html;
             return parsed.content.querySelector("svg.draw-rule").outerHTML;
           }""",
        rendered,
    )


def test_the_sampler_announces_its_point_after_a_change(sampler_page: Page):
    # The probability table's and the calculator's are checked in test_lab_widgets.py, on the live pages it opens.
    page = sampler_page
    reset(page)
    page.locator(SAMPLER).get_by_label("Group size", exact=True).fill("8")
    record = run_lab("1", "8", "20260903")
    draw = record["draws"][2]
    expect(page.locator(f"{SAMPLER} [data-lab-announce]")).to_have_text(
        render_widget("sampler", {"group_size": "8"})["announcement"]
    )
    assert render_widget("sampler", {"group_size": "8"})["announcement"].startswith(f"Draw 3: {draw['completion']}, reward ")


def test_python_ready_is_announced_once_per_page(sampler_page: Page):
    page = sampler_page
    status = page.locator("[data-lab-page-status]")
    expect(status).to_have_count(1)
    expect(status).to_have_attribute("role", "status")
    expect(status).to_have_text("Python is ready: the lab now computes in your browser.")


# Every page with a slider, and the slider's lab.
SLIDER_LABS = [("01-rollout.html", "tokens"), ("02-possibilities.html", "probabilities"), ("04-follow-draw-3.html", "sampler")]


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize(("page_name", "widget"), SLIDER_LABS)
def test_each_slider_shows_its_range_at_its_ends(reader_page: Page, site_url: str, page_name: str, widget: str, width: int):
    """Issue 39: a slider's lowest and highest values are written at its two ends, from its widget's Control."""
    # The ends are in the page as built, live or not: Python is kept from starting (six starts the suite need not pay).
    # One page for the six cases, sized before it loads each (five contexts the suite need not open).
    page = reader_page
    page.set_viewport_size({"width": width, "height": 800})
    page.goto(site_url + page_name)
    (control,) = [c for c in WIDGETS[widget].controls if c.kind == "log-slider"]
    box = page.locator(f'section.lab[data-lab="{widget}"] .lab-field[data-control="{control.name}"]')
    slider = box.get_by_label(f"{control.label} slider", exact=True)
    slider.scroll_into_view_if_needed()
    low, high = box.locator('[data-slider-end="low"]'), box.locator('[data-slider-end="high"]')
    expect(low).to_have_text(control.ends[0])
    expect(high).to_have_text(control.ends[1])
    assert control.ends == ("0.05", "20")
    # The three boxes in one look: the lab's failed start (its status line, a Retry button) may move the page between looks.
    track, left, right = page.evaluate(
        """(elements) => elements.map((element) => {
          const { x, y, width, height } = element.getBoundingClientRect();
          return { x, y, width, height };
        })""",
        [element.element_handle() for element in (slider, low, high)],
    )
    # Visible, just over the slider, each at its own end.
    assert left["y"] + left["height"] <= track["y"] + 2 and track["y"] - (left["y"] + left["height"]) <= 12, (left, track)
    assert abs(left["x"] - track["x"]) <= 4 and abs(right["x"] + right["width"] - track["x"] - track["width"]) <= 4
    expect(low).to_be_in_viewport()
