"""The registry of lab widgets (rollout_lab.widgets): a widget is one module and one template, and adding one touches nothing else.

The `odds` widget below exists for this test only, the way
test_page_kinds.py adds the `colophon` page kind: registered in `WIDGETS`,
it is rendered by `render_widget` (what the browser's worker calls), checked
and drawn through its own template by the lab block kind, run by `build.py lab
--widget odds`, and its computed value is found by the prose's `{{ … }}`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, ClassVar

import pytest

from rollout_lab import SettingError, format_number, softmax_probabilities
from rollout_lab.validation import check_temperature
from rollout_lab.values import ValueDefinition, read_candidate
from rollout_lab.widgets import WIDGETS, normalise_settings, render_widget
from rollout_lab.widgets.base import Widget
from rollout_lab.widgets.controls import TEMPERATURE, Control
from rollout_lab.world import CANDIDATES
from site_testing import render_fragment
from sitegen.commands.cli import main
from sitegen.kinds.computed import ComputedValueError, compute_value

# --- the widget's module -----------------------------------------------------------

ANSWER = Control(
    name="answer",
    label="Answer",
    kind="choice",
    low=0,
    high=0,
    default="5",
    help="one of the answers: " + ", ".join(c.completion for c in CANDIDATES),
    url_parameter="a",
    choices=tuple((c.completion, c.completion) for c in CANDIDATES),
    metavar="TEXT",
)


def check_answer(value: str) -> int:
    """The index of the answer written, or SettingError naming the control."""
    for candidate in CANDIDATES:
        if value.strip() == candidate.completion:
            return candidate.index
    raise SettingError("answer", f"Answer must be one of the three answers; \u201c{value}\u201d is not one of them")


def odds(temperature: float, index: int) -> float:
    probability = softmax_probabilities(temperature)[index]
    return probability / (1 - probability)


class OddsWidget(Widget):
    """The odds of one answer at a temperature, for this test only."""

    name = "odds"
    title = "Lab: the odds of an answer"
    controls = (TEMPERATURE, ANSWER)
    partial = "partials/odds.html"
    values: ClassVar[Mapping[str, ValueDefinition]] = {
        "odds": ValueDefinition(
            {"T": "1", "candidate": None},
            lambda p: format_number(odds(check_temperature(p["T"]), read_candidate(p["candidate"]))),
        )
    }

    def compute(self, settings: Mapping[str, str]) -> dict[str, Any]:
        temperature, index = check_temperature(settings["temperature"]), check_answer(settings["answer"])
        return {
            "settings": {"temperature": temperature, "answer": CANDIDATES[index].completion},
            "odds": odds(temperature, index),
        }

    def render(self, record: dict[str, Any]) -> str:
        return f'<p class="lab-note">Odds <strong data-value="odds">{format_number(record["odds"])}</strong></p>\n'

    def announce(self, record: dict[str, Any]) -> str:
        return f"{record['settings']['answer']}: odds {format_number(record['odds'])}"

    def format_table(self, record: dict[str, Any]) -> str:
        return f"{record['settings']['answer']:<20} {format_number(record['odds']):>7}"


# --- the widget's template ---------------------------------------------------------

ODDS_TEMPLATE = (
    (
        "partials/odds.html",
        '<section class="lab" data-lab="{{ widget.name }}" id="{{ slot }}">\n'
        "<h3>{{ widget.title }}</h3>\n{{ intro }}"
        "{% for control in widget.controls %}<label>{{ control.label }} "
        '<input name="{{ control.name }}" value="{{ settings[control.name] }}" disabled></label>\n{% endfor %}'
        "<div data-lab-results>{{ results }}</div>\n"
        '<script type="application/json" data-lab-settings>{{ settings_json }}</script>\n</section>\n',
    ),
)


@pytest.fixture
def registered(monkeypatch):
    monkeypatch.setitem(WIDGETS, "odds", OddsWidget())


# --- a widget registered by this test alone ------------------------------------------


def test_a_registered_widget_renders_through_render_widget(registered):
    assert render_widget("odds", {"temperature": "0.5", "answer": " 6 "}) == {
        "html": '<p class="lab-note">Odds <strong data-value="odds">0.0506</strong></p>\n',
        "announcement": "6: odds 0.0506",
        "settings": {"temperature": "0.5", "answer": "6"},
    }
    assert render_widget("odds", {})["settings"] == {"temperature": "1", "answer": "5"}


def test_a_registered_widget_checks_its_settings(registered):
    with pytest.raises(SettingError) as error:
        render_widget("odds", {"answer": "7"})
    assert (error.value.field, str(error.value)) == (
        "answer",
        "Answer must be one of the three answers; \u201c7\u201d is not one of them",
    )
    with pytest.raises(SettingError) as error:
        render_widget("odds", {"temperature": "0"})
    assert error.value.field == "temperature"
    with pytest.raises(ValueError, match="the odds widget has no setting 'seed' \\(settings: temperature, answer\\)"):
        normalise_settings("odds", {"seed": "1"})


def test_a_registered_widget_is_drawn_by_the_lab_block_through_its_own_template(registered, sample):
    html, problems = render_fragment("::: lab odds answer=6\nHow likely?\n:::\n", *sample, templates=ODDS_TEMPLATE)
    assert problems == []
    assert html == (
        '<section class="lab" data-lab="odds" id="lab-1">\n'
        "<h3>Lab: the odds of an answer</h3>\n<p>How likely?</p>\n"
        '<label>Temperature <input name="temperature" value="1" disabled></label>\n'
        '<label>Answer <input name="answer" value="6" disabled></label>\n'
        '<div data-lab-results><p class="lab-note">Odds <strong data-value="odds">0.1701</strong></p>\n</div>\n'
        '<script type="application/json" data-lab-settings>{"temperature":"1","answer":"6"}</script>\n</section>\n'
    )


def test_a_registered_widgets_bad_settings_are_reported_at_the_labs_first_line(registered, sample):
    markdown = "Text.\n\n::: lab odds answer=7\n:::\n\n::: lab odds seed=1\n:::\n"
    _html, problems = render_fragment(markdown, *sample, templates=ODDS_TEMPLATE)
    assert problems == [
        "content/01-fixture.md:8: bad lab parameter: Answer must be one of the three answers; \u201c7\u201d is not one of them",
        "content/01-fixture.md:11: bad lab parameter 'seed' for the odds widget; settings: temperature, answer",
    ]


def test_without_registration_the_widget_is_unknown(sample):
    _html, problems = render_fragment("::: lab odds\n:::\n", *sample, templates=ODDS_TEMPLATE)
    assert problems == [
        "content/01-fixture.md:6: unknown lab widget 'odds'; known widgets: batch, calculator, credit, probabilities, sampler, tokens, training"
    ]


def test_a_registered_widget_runs_from_the_command_line(registered, capsys):
    assert main(["lab", "--widget", "odds", "--answer", "6", "--temperature", "0.5"]) == 0
    assert json.loads(capsys.readouterr().out) == {"settings": {"temperature": 0.5, "answer": "6"}, "odds": odds(0.5, 2)}
    assert main(["lab", "--widget", "odds", "--format", "table"]) == 0
    assert capsys.readouterr().out == "5                     1.4369\n"
    assert main(["lab", "--widget", "odds", "--answer", "7"]) == 2
    assert capsys.readouterr().err == "build.py lab: Answer must be one of the three answers; \u201c7\u201d is not one of them\n"
    assert main(["lab", "--widget", "odds", "--seed", "1"]) == 2
    assert (
        capsys.readouterr().err
        == "build.py lab: --seed is not a setting of the odds lab (its settings: --temperature, --answer)\n"
    )


def test_a_registered_widgets_options_are_in_the_help(registered, capsys):
    with pytest.raises(SystemExit):
        main(["lab", "--help"])
    help_text = " ".join(capsys.readouterr().out.split())
    assert "{tokens,probabilities,calculator,sampler,training,credit,batch,odds}" in help_text
    assert "--answer TEXT odds: one of the answers: 5, The answer is 5., 6" in help_text
    assert (
        "--temperature T tokens and probabilities and sampler and credit and batch and odds: a number from 0.05 to 20"
        in help_text
    )


def test_a_registered_widgets_computed_value_reaches_the_prose(registered):
    assert compute_value("odds candidate=2 T=0.5") == format_number(odds(0.5, 2))
    with pytest.raises(ComputedValueError, match="bad parameter for computed value 'odds': candidate must be 0, 1 or 2, got 3"):
        compute_value("odds candidate=3")


# --- a slot's view: `::: lab tokens update=hidden` (Widget.slot_options) ---------------------------------------


def test_a_view_without_the_update_shows_the_tree_first_and_no_ratio():
    full = render_widget("tokens", {})
    group = render_widget("tokens", {}, {"update": "hidden"})
    assert group["settings"] == full["settings"]
    assert group["html"].startswith('<svg class="lab-chart token-tree"')
    assert "ratio" not in group["html"].lower() and "after one step" not in group["html"]
    assert "Sequence ratio" in full["html"]
    assert (
        group["announcement"] == "Group of 6 rollouts, mean reward " + full["announcement"].split("mean reward ")[1].split(";")[0]
    )


def test_a_slot_that_hides_the_update_draws_three_controls_and_tells_the_browser_its_view(sample):
    html, problems = render_fragment("::: lab tokens update=hidden\n:::\n\nThen [set T = 2](lab:tokens?T=2).\n", *sample)
    assert problems == []
    assert ' data-lab-view="{&#34;update&#34;:&#34;hidden&#34;}"' in html
    assert re.findall(r'<div class="lab-field [^"]*"[^>]* data-control="(\w+)"', html) == ["temperature", "group_size", "seed"]
    assert (
        '<a class="lab-link" href="?T=2#lab-1" data-lab-link="lab-1" data-lab-settings="{&quot;temperature&quot;: &quot;2&quot;}">set T = 2</a>'
        in html
    )


def test_a_slot_option_takes_only_its_own_values(sample):
    _html, problems = render_fragment("::: lab tokens update=sideways\n:::\n\n::: lab sampler update=hidden\n:::\n", *sample)
    assert problems == [
        "content/01-fixture.md:6: bad lab option update=sideways for the tokens widget: update is one of shown, hidden",
        "content/01-fixture.md:9: bad lab parameter 'update' for the sampler widget; settings: temperature, group_size, seed",
    ]
