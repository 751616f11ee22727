"""The credit lab (widgets/credit.py): its record is token_credit's, its table and tree show it, its values read it."""

import json
import sys

import pytest

from lab_command import run_build_lab
from rollout_lab import SettingError, format_number, format_signal, token_credit, token_values
from rollout_lab.display import format_fixed, format_fixed_signal
from rollout_lab.figures.credit_tree import describe_credit_tree
from rollout_lab.tokens.credit import credit_tree
from rollout_lab.widgets import WIDGETS, render_widget

WIDGET = WIDGETS["credit"]


def test_the_record_is_token_credits_group_with_the_trees_numbers():
    record = WIDGET.compute({"temperature": "2", "group_size": "9", "seed": "7", "lam": "0.5"})
    credit = token_credit(2, 9, 7, 0.5)
    assert record["mean"] == credit["mean"]
    assert [{k: v for k, v in r.items() if k != "rollout"} for r in record["rollouts"]] == credit["rollouts"]
    assert [r["rollout"] for r in record["rollouts"]] == list(range(1, 10))
    assert record["states"] == credit_tree(2)
    assert record["settings"] == {"temperature": 2.0, "group_size": 9, "seed": 7, "lam": 0.5}


def test_each_edges_advantage_is_the_change_in_v_and_the_sampled_tokens_agree():
    values = token_values(1)
    tree = credit_tree(1)
    assert tree[0]["options"][0] == {"token": "5", "advantage": pytest.approx(values["5"] - values[""]), "outcome": values["5"]}
    advantages = {(state["prefix"], o["token"]): o["advantage"] for state in tree for o in state["options"]}
    for rollout in token_credit()["rollouts"]:
        prefix = ""
        for token, advantage in zip(rollout["tokens"], rollout["advantages"], strict=True):
            assert advantages[(prefix, token)] == advantage
            prefix = (prefix + token) if token not in ("<end>", ".") else prefix


def test_the_table_has_one_row_per_token_with_the_issues_headings():
    html = render_widget("credit", {})["html"]
    assert (
        '<thead><tr><th scope="col">Rollout</th><th scope="col">Token</th><th scope="col" class="num">Value before</th>'
        '<th scope="col" class="num">Exact advantage</th><th scope="col" class="num">GAE</th>'
        '<th scope="col" class="num">Group signal</th></tr></thead>'
    ) in html
    assert html.count('<tr><th scope="row" data-field="rollout">') == sum(len(r["tokens"]) for r in token_credit()["rollouts"])
    # The issue's numbers: " 5" after "The answer is" has +0.1368; GRPO gives it −0.125 (4 decimals in every column).
    assert (
        '<td data-field="token"><code>\u24235</code></td><td data-field="value">0.6132</td>'
        '<td data-field="advantage">+0.1368</td><td data-field="gae">+0.1368</td><td data-field="signal">\u22120.1250</td>'
    ) in html


def test_the_tree_carries_every_number_in_words():
    record = WIDGET.compute(WIDGET.defaults)
    words = describe_credit_tree(record)
    assert words.startswith("At the start, V 0.7125. \u201c5\u201d: advantage +0.2203, V 0.9328.")
    for state in record["states"]:
        assert format_number(state["value"]) in words
        for option in state["options"]:
            assert format_signal(option["advantage"]) in words
    assert words.endswith(
        "This group's rollouts took: \u201c5\u201d then <end> \u00d73; \u201cThe answer is 5\u201d then <end> \u00d72; "
        "\u201cThe answer is 5\u201d then . \u00d71"
    )


def test_the_tree_fits_a_phone_and_has_a_legend():
    svg = render_widget("credit", {})["html"].split("<svg", 1)[1]
    width = float(svg.split('viewBox="0 0 ', 1)[1].split(" ", 1)[0])
    # 16-unit type at 12 px or more in the 326 px a lab has on a 390 px screen.
    assert width * 12 / 16 <= 326
    assert "this group\u2019s paths (heavier: more)" in svg and "exact advantage \u03b4 of the token" in svg


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"lam": "2"}, "Lambda (\u03bb) must be a number from 0 to 1; 2 is too high"),
        ({"lam": ""}, "Lambda (\u03bb) must be a number from 0 to 1; nothing was entered"),
        ({"temperature": "0", "lam": "x"}, "Temperature must be a number from 0.05 to 20; 0 is too low"),
    ],
)
def test_a_bad_setting_names_its_control(settings, message):
    with pytest.raises(SettingError) as error:
        render_widget("credit", settings)
    assert str(error.value) == message


def value(name: str, **parameters: str) -> str:
    definition = WIDGET.values[name]
    given = {**{key: default for key, default in definition.parameters.items() if default is not None}, **parameters}
    return definition.compute(given)


def test_the_computed_values_are_the_records_numbers():
    assert [value("token-value", state=str(s)) for s in range(7)] == [
        "0.7125",
        "0.9328",
        "0.0000",
        "0.6132",
        "0.6132",
        "0.7500",
        "0.0000",
    ]
    assert value("token-value", state="0", T="4") == format_fixed(token_values(4)[""])
    assert value("token-credit", n="2", t="3", field="advantage") == "+0.1368"
    assert value("token-credit", n="2", t="3", field="signal") == "\u22120.1250"
    assert value("token-credit", n="2", t="3", field="value") == "0.6132"
    assert value("token-credit", n="2", field="reward") == "0.75"
    assert value("token-credit", field="mean") == "0.875"
    gae = token_credit(1, 6, 20260903, 0.5)["rollouts"][1]["gae"][0]
    assert value("token-credit", n="2", t="1", field="gae", lam="0.5") == format_fixed_signal(gae) == "\u22120.0651"


@pytest.mark.parametrize(
    ("parameters", "message"),
    [
        ({"field": "value"}, "field=value needs n, a rollout of the group (1 to 6)"),
        ({"n": "1", "field": "gae"}, "field=gae needs t, a token of rollout 1 (1 to 2)"),
        ({"n": "1", "t": "3", "field": "gae"}, "t must be a whole number from 1 to 2 (a token of rollout 1), got '3'"),
        ({"n": "7", "field": "reward"}, "n must be a whole number from 1 to 6 (a rollout of the group), got 7"),
        ({"field": "delta"}, "field must be one of value, advantage, gae, signal, reward, mean, got 'delta'"),
    ],
)
def test_a_bad_parameter_says_what_is_allowed(parameters, message):
    with pytest.raises(ValueError) as error:
        value("token-credit", **parameters)
    assert str(error.value) == message


@pytest.mark.skipif(sys.platform == "emscripten", reason="subprocesses are not available inside Pyodide")
def test_build_lab_prints_the_record_and_the_table(golden):
    result = run_build_lab("--widget", "credit", "--lam", "0.9", "--group-size", "3")
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout) == WIDGET.compute({**WIDGET.defaults, "lam": "0.9", "group_size": "3"})
    result = run_build_lab("--widget", "credit", "--format", "table")
    assert (result.returncode, result.stderr) == (0, "")
    golden.check("credit-table-default.txt", result.stdout)
    result = run_build_lab("--widget", "credit", "--lam", "-1")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == "build.py lab: Lambda (\u03bb) must be a number from 0 to 1; \u22121 is too low\n"
