"""rollout_lab.widgets: the results markup the build pre-renders and the browser re-renders."""

from __future__ import annotations

import re

import pytest

from rollout_lab import SettingError, format_u, run_lab
from rollout_lab.widgets import render_widget, settings_json
from rollout_lab.widgets.sampler import render_sampler


def test_render_widget_returns_html_announcement_and_settings():
    widget = render_widget("sampler", {})
    assert widget["settings"] == {"temperature": "1", "group_size": "6", "seed": "20260903"}
    assert widget["html"] == render_sampler(run_lab())
    # Draw 3 is the chapter's point: the announcement leads with it.
    assert widget["announcement"] == "Draw 3: The answer is 5., reward 0.75, signal 0; group mean 0.75"


def test_sampler_table_has_the_contract_headers_rows_and_followed_draw():
    html = render_widget("sampler", {"temperature": "1", "group_size": "6", "seed": "20260903"})["html"]
    assert re.findall(r'<th scope="col"(?: class="num")?>([^<]+)</th>', html)[:5] == [
        "Draw",
        "u",
        "Completion",
        "Reward",
        "Signal",
    ]
    assert re.findall(r'<td data-field="u">([^<]+)</td>', html) == ["0.3982", "0.4663", "0.7087", "0.6670", "0.5855", "0.9719"]
    assert re.findall(r'<td data-field="signal">([^<]+)</td>', html) == ["+0.25", "+0.25", "0", "0", "+0.25", "\u22120.75"]
    assert html.count('<tr class="draw-3">') == 1
    assert (
        '<tr class="draw-3"><th scope="row"><span data-field="draw">3</span> <span class="follow-marker">followed</span></th>'
        in html
    )
    assert '<p class="lab-mean">Group mean: <strong data-value="mean">0.75</strong></p>' in html
    assert "<caption>Probabilities at temperature 1</caption>" in html
    assert re.search(
        r'<svg class="lab-chart" [^>]*role="img" aria-label="Chart of each draw\'s reward against the group mean 0.75; the table above gives the same numbers.">',
        html,
    )


def test_small_groups_have_no_followed_draw_row():
    html = render_widget("sampler", {"group_size": "2"})["html"]
    assert "draw-3" not in html and "follow-marker" not in html


def test_probabilities_widget_shows_percentages_and_the_rounded_total():
    widget = render_widget("probabilities", {"temperature": "0.5"})
    assert re.findall(r'<td data-field="probability">([^<]+)</td>', widget["html"])[0] == "79.19\u00a0%"
    assert widget["settings"] == {"temperature": "0.5"}
    totals = re.findall(r'<td data-field="shown-total">([^<]+)</td>', render_widget("probabilities", {})["html"])
    assert totals == ["99.99\u00a0%"]


def test_calculator_widget_shows_mean_and_signals():
    widget = render_widget("calculator", {"rewards": "1, 0.6, 0, 1"})
    assert re.findall(r'<td data-field="signal">([^<]+)</td>', widget["html"]) == ["+0.35", "\u22120.05", "\u22120.65", "+0.35"]
    assert widget["announcement"] == "Group mean 0.65; signals +0.35, \u22120.05, \u22120.65, +0.35"
    assert widget["settings"] == {"rewards": "1, 0.6, 0, 1"}


def test_bad_settings_raise_the_cores_setting_error():
    with pytest.raises(SettingError) as error:
        render_widget("sampler", {"group_size": "0"})
    assert (error.value.field, str(error.value)) == ("group_size", "Group size must be a whole number from 1 to 64; 0 is too low")


def test_an_unknown_widget_is_a_value_error():
    with pytest.raises(ValueError, match="unknown lab widget 'histogram'"):
        render_widget("histogram", {})


def test_json_for_the_page_cannot_close_its_script_element():
    widget = {"settings": {"note": "</script><b>", "x": "a&b"}}
    assert settings_json(widget) == '{"note":"\\u003c/script\\u003e\\u003cb\\u003e","x":"a\\u0026b"}'


def test_a_reward_of_zero_gets_a_mark_on_the_axis():
    widget = render_widget("sampler", {})
    zero_rewards = sum(1 for draw in run_lab()["draws"] if draw["reward"] == 0)
    assert zero_rewards > 0  # the recorded run has one: draw 6 gives "6"
    assert widget["html"].count('<rect class="chart-zero') == zero_rewards


def test_the_draw_rule_strip_splits_at_the_running_totals_and_marks_every_draw():
    widget = render_widget("sampler", {"temperature": "2", "group_size": "10", "seed": "5"})
    record = run_lab(2.0, 10, 5)
    strip = re.search(r'<svg class="lab-chart draw-rule".*?</svg>', widget["html"]).group(0)
    edges = re.findall(r'<text class="chart-value"[^>]*>([^<]+)</text>', strip)
    cumulative = record["candidates"][0]["probability"]
    assert edges[:2] == ["0", "1"] and format_u(cumulative) in edges
    marks = re.findall(r'<line class="strip-u[^"]*" data-draw="(\d+)" data-u="([^"]+)"', strip)
    assert sorted(marks, key=lambda m: int(m[0])) == [(str(d["draw"]), format_u(d["u"])) for d in record["draws"]]
    assert re.findall(r'class="strip-u strip-u-followed" data-draw="(\d+)"', strip) == ["3"]
    assert strip.count('class="strip-segment strip-candidate-') == 2 * len(record["candidates"])  # the strip and its key


def test_controls_come_from_one_home_and_the_slider_reaches_both_ends():
    from rollout_lab.widgets import WIDGETS
    from rollout_lab.widgets.controls import TEMPERATURE

    assert {name: widget.setting_names for name, widget in WIDGETS.items()} == {
        "tokens": ("temperature", "group_size", "seed", "learning_rate", "length_rule"),
        "probabilities": ("temperature",),
        "calculator": ("rewards",),
        "sampler": ("temperature", "group_size", "seed"),
        "training": ("rounds", "group_size", "seed", "learning_rate", "epochs", "clip", "kl_weight", "signal_rule"),
        "credit": ("temperature", "group_size", "seed", "lam"),
        "batch": ("temperature", "group_size", "seed", "signal_rule"),
    }
    resettable = [name for name, widget in WIDGETS.items() if widget.resettable]
    assert resettable == ["tokens", "sampler", "training", "credit", "batch"]
    values = [TEMPERATURE.slider_value(p) for p in range(TEMPERATURE.slider_min, TEMPERATURE.slider_max + 1)]
    assert values[0] == "0.05" and values[-1] == "20" and len(set(values)) == len(values)
    assert all(TEMPERATURE.slider_value(TEMPERATURE.slider_position(preset)) == preset for preset in TEMPERATURE.presets)
    assert TEMPERATURE.slider_value(1) == "1.1"


def test_the_draw_rule_figure_labels_every_recorded_draw_apart_from_the_answers():
    # Issue 24, item 16: draw 4 sat unlabelled next to draw 3, and bare numbers read like the answers 5 and 6.
    from rollout_lab.figures.draw_rule import render_draw_rule

    strip = render_draw_rule(run_lab(), title="The draw rule")
    labels = re.findall(r'<text class="chart-label[^"]*" x="[^"]+" y="\d+" text-anchor="middle">([^<]+)</text>', strip)
    assert sorted(labels) == ["#1", "#2", "#3\u25b2", "#4", "#5", "#6"]


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {"temperature": "0.05", "group_size": "1"},
        {"temperature": "3", "group_size": "64", "seed": "11"},
        {"group_size": "7", "seed": "2"},
    ],
)
def test_the_group_mean_label_never_overlaps_a_bar(settings):
    chart = re.search(r'<svg class="lab-chart" .*?</svg>', render_widget("sampler", settings)["html"]).group(0)
    width = float(re.search(r'viewBox="0 0 (\d+)', chart).group(1))
    bar_right = max(
        float(x) + float(w)
        for x, w in re.findall(r'<rect class="chart-(?:bar|zero)[^"]*" x="([^"]+)" [^>]*width="([^"]+)"', chart)
    )
    label = re.search(r'<text class="chart-value chart-mean-label" x="([^"]+)"[^>]*>mean<tspan[^>]*>([^<]+)</tspan>', chart)
    # The labels are left-aligned at x; at the charts' 16 px type a character is at most 9 px wide.
    assert float(label.group(1)) > bar_right
    assert float(label.group(1)) + 9 * len(label.group(2)) <= width
