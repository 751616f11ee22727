"""The token lab (rollout_lab.widgets.tokens through render_widget): its controls, results markup, figures and values."""

import html
import json
import re
import sys

import pytest

from lab_command import run_build_lab
from rollout_lab import SettingError, format_number, token_update
from rollout_lab.figures.token_charts import completion_texts, format_probability, show_token
from rollout_lab.tokens.update import check_length_rule
from rollout_lab.widgets import WIDGETS, render_widget

SETTINGS = [
    {},
    {"temperature": "0.25"},
    {"temperature": "4", "group_size": "12", "seed": "7"},
    {"group_size": "1", "learning_rate": "0"},
    {"learning_rate": "5", "length_rule": "token_sum"},
    {"seed": "0", "length_rule": "token_sum", "temperature": "20"},
]


def test_the_controls_are_the_contracts():
    widget = WIDGETS["tokens"]
    assert [control.label for control in widget.controls] == [
        "Temperature",
        "Group size",
        "Seed",
        "Learning rate",
        "Length rule",
    ]
    rule = widget.controls[4]
    assert (rule.kind, [value for value, _ in rule.choices]) == ("choice", ["sequence_mean", "token_sum"])
    rate = widget.controls[3]
    assert (rate.kind, rate.low, rate.high) == ("number", 0.0, 5.0)
    for shared, sampler in zip(widget.controls[:3], WIDGETS["sampler"].controls, strict=True):
        assert shared == sampler
    assert widget.resettable and widget.in_address
    assert widget.defaults == {
        "temperature": "1",
        "group_size": "6",
        "seed": "20260903",
        "learning_rate": "1",
        "length_rule": "sequence_mean",
    }


def test_the_length_rule_is_the_registrys_choice_check_with_the_cores_message():
    assert check_length_rule(" Token_Sum ") == "token_sum"
    with pytest.raises(SettingError) as error:
        check_length_rule("median")
    assert (error.value.field, str(error.value)) == (
        "length_rule",
        "Length rule must be \u201csequence_mean\u201d or \u201ctoken_sum\u201d; \u201cmedian\u201d is not one of them",
    )


def rows_of(html_text: str, table_class: str) -> list[list[str]]:
    table = re.search(rf'<table class="lab-table {table_class}">.*?</table>', html_text, re.S).group(0)
    body = re.search(r"<tbody>(.*)</tbody>", table, re.S).group(1)
    return [
        [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", cell)).split()) for cell in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, re.S)
    ]


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: "-".join(f"{k}={v}" for k, v in s.items()) or "default")
def test_the_rollouts_table_is_the_cores_record(settings):
    widget = render_widget("tokens", settings)
    record = token_update(**settings)
    table = re.search(r'<table class="lab-table lab-token-rollouts">.*?</table>', widget["html"], re.S).group(0)
    assert re.findall(r'<th scope="col"(?: class="num")?>([^<]+)</th>', table) == [
        "Rollout",
        "Tokens",
        "Reward",
        "Sequence ratio",
    ]
    assert rows_of(widget["html"], "lab-token-rollouts") == [
        [
            str(rollout["rollout"]),
            " ".join(f"{show_token(t)} {format_probability(p)}" for t, p in zip(rollout["tokens"], rollout["probabilities"])),
            format_number(rollout["reward"]),
            format_probability(ratio),
        ]
        for rollout, ratio in zip(record["rollouts"], record["sequence_ratios"], strict=True)
    ]
    steps = rows_of(widget["html"], "lab-token-steps")
    assert [row[-1] for row in steps] == [format_probability(r) for ratios in record["ratios"] for r in ratios]
    completions = rows_of(widget["html"], "lab-token-completions")
    assert completions == [
        [text, format_probability(record["before"][text]), format_probability(record["after"][text])]
        for text in completion_texts()
    ]


def test_the_figures_carry_their_point_in_words():
    widget = render_widget("tokens", {})
    labels = re.findall(
        r'<svg class="lab-chart (token-tree|token-completions)" [^>]*role="img" aria-label="([^"]+)"', widget["html"]
    )
    assert [kind for kind, _ in labels] == ["token-tree", "token-completions"]
    tree, completions = (html.unescape(label) for _, label in labels)
    assert tree.startswith("Token tree at temperature 1, each branch with its probability")
    assert "At the start: 5 0.5896, The 0.2649, 6 0.1454" in tree
    assert "After \u201cThe\u201d:  answer is 1.0000" in tree
    assert (
        "This group's rollouts took: 5 <end> \u00d73; The  answer is  5 <end> \u00d72; The  answer is  5 . \u00d71."
        in tree.replace("\u2019", "'")
    )
    assert "under the length rule sequence_mean: \u201c5\u201d 0.4311 to 0.4393;" in completions
    # One heavier branch per distinct prefix this group took: 5, 5 <end>, The, ␣answer is, ␣5, then <end> and ".".
    assert widget["html"].count('class="token-edge token-edge-taken"') == 7


def test_the_announcement_and_the_shown_settings():
    widget = render_widget("tokens", {"length_rule": " TOKEN_SUM ", "learning_rate": "2.50"})
    assert widget["settings"] == {
        "temperature": "1",
        "group_size": "6",
        "seed": "20260903",
        "learning_rate": "2.5",
        "length_rule": "token_sum",
    }
    record = token_update(learning_rate=2.5, length_rule="token_sum")
    assert widget["announcement"] == (
        "Group of 6 rollouts, mean reward 0.875; after one step under token_sum the sequence ratios run from "
        f"{format_probability(min(record['sequence_ratios']))} to {format_probability(max(record['sequence_ratios']))}"
    )


@pytest.mark.parametrize(
    ("settings", "field", "message"),
    [
        ({"learning_rate": "6"}, "learning_rate", "Learning rate must be a number from 0 to 5; 6 is too high"),
        ({"learning_rate": ""}, "learning_rate", "Learning rate must be a number from 0 to 5; nothing was entered"),
        (
            {"length_rule": "mean"},
            "length_rule",
            "Length rule must be \u201csequence_mean\u201d or \u201ctoken_sum\u201d; \u201cmean\u201d is not one of them",
        ),
        ({"temperature": "0", "length_rule": "x"}, "temperature", "Temperature must be a number from 0.05 to 20; 0 is too low"),
        ({"group_size": "65"}, "group_size", "Group size must be a whole number from 1 to 64; 65 is too high"),
    ],
)
def test_a_bad_setting_names_its_control(settings, field, message):
    with pytest.raises(SettingError) as error:
        render_widget("tokens", settings)
    assert (error.value.field, str(error.value)) == (field, message)


def test_the_default_render_is_golden(golden):
    golden.check("tokens-widget-default.html", render_widget("tokens", {})["html"])


@pytest.mark.skipif(sys.platform == "emscripten", reason="subprocesses are not available inside Pyodide")
def test_build_lab_prints_the_record_and_the_table(golden):
    result = run_build_lab("--widget", "tokens")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == json.dumps(token_update(), indent=2, ensure_ascii=False) + "\n"
    result = run_build_lab(
        "--widget", "tokens", "--temperature", "2", "--learning-rate", "0.5", "--length-rule", "token_sum", "--group-size", "3"
    )
    assert json.loads(result.stdout) == token_update(2, 3, learning_rate=0.5, length_rule="token_sum")
    result = run_build_lab("--widget", "tokens", "--format", "table")
    assert (result.returncode, result.stderr) == (0, "")
    golden.check("tokens-table-default.txt", result.stdout)
    result = run_build_lab("--widget", "tokens", "--length-rule", "sum")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        "build.py lab: Length rule must be \u201csequence_mean\u201d or \u201ctoken_sum\u201d; \u201csum\u201d is not one of them\n"
    )


def value(name: str, **parameters: str) -> str:
    definition = WIDGETS["tokens"].values[name]
    given = {**{key: default for key, default in definition.parameters.items() if default is not None}, **parameters}
    return definition.compute(given)


def test_the_computed_values_are_the_records_numbers():
    record = token_update()
    second = record["rollouts"][1]
    assert value("token-rollout", n="2", field="text") == second["text"] == "The answer is 5"
    assert value("token-rollout", n="2", field="length") == "4"
    assert value("token-rollout", n="2", field="sequence-ratio") == format_probability(record["sequence_ratios"][1])
    assert value("token-rollout", n="2", field="probability-ratio") == format_probability(record["sequence_ratios"][1])
    assert value("token-step", n="2", t="2", field="ratio") == "1.0000"
    assert value("token-step", n="2", t="2", field="options") == "1"
    assert value("token-step", n="2", t="4", field="token") == "<end>"
    assert value("token-step", n="2", t="1", field="logprob") == "\u22121.3282"
    assert value("token-completion", completion="1", when="after", rule="token_sum") == format_probability(
        token_update(length_rule="token_sum")["after"]["5"]
    )
    assert value("token-completion", completion="1", when="change") == "+0.0082"
    assert value("token-branch", state="0", option="2") == format_probability(record["states"][0]["options"][1]["probability"])
    assert value("token-mean", K="3") == format_number(token_update(group_size=3)["mean"])


@pytest.mark.parametrize(
    ("name", "parameters", "message"),
    [
        ("token-rollout", {"n": "7", "field": "text"}, "n must be a whole number from 1 to 6 (a rollout of the group), got 7"),
        (
            "token-rollout",
            {"n": "1", "field": "colour"},
            "field must be one of text, reward, length, signal, weight, logprob, probability, sequence-ratio, probability-ratio, got 'colour'",
        ),
        (
            "token-step",
            {"n": "1", "t": "3", "field": "u"},
            "t must be a whole number from 1 to 2 (a token of rollout 1), got '3'",
        ),
        ("token-completion", {"completion": "9"}, "completion must be a whole number from 1 to 8 (the tree's order), got '9'"),
        ("token-completion", {"completion": "1", "when": "later"}, "when must be one of before, after, change, got 'later'"),
        ("token-branch", {"state": "3", "option": "2"}, "option must be a whole number from 1 to 1, got '2'"),
    ],
)
def test_a_bad_parameter_says_what_is_allowed(name, parameters, message):
    from rollout_lab.values import ParameterError

    with pytest.raises(ParameterError) as error:
        value(name, **parameters)
    assert str(error.value) == message
