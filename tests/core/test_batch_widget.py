"""The batch lab (widgets/batch.py): batch_signals' rows with their gradient size, zero-variance groups marked."""

import json
import math
import sys

import pytest

from lab_command import run_build_lab
from rollout_lab import SettingError, batch_signals
from rollout_lab.learning.batch import gradient_size
from rollout_lab.widgets import WIDGETS, render_widget

WIDGET = WIDGETS["batch"]


def test_the_record_is_batch_signals_rows_with_their_gradient_size():
    record = WIDGET.compute({"temperature": "0.5", "group_size": "12", "seed": "3", "signal_rule": "std"})
    rows = batch_signals(0.5, 12, 3, "std")
    assert [{k: v for k, v in r.items() if k not in ("number", "gradient_size")} for r in record["prompts"]] == rows
    for row in record["prompts"]:
        assert row["gradient_size"] == pytest.approx(math.hypot(*row["gradient"]), abs=1e-15)


def test_the_gradient_size_is_the_length_of_the_gradient():
    assert gradient_size([0.125, 0.0, -0.125]) == pytest.approx(0.125 * math.sqrt(2), abs=1e-16)
    assert gradient_size([0.0, 0.0]) == 0.0


def test_the_table_has_one_row_per_prompt_and_marks_a_group_with_no_signal():
    html = render_widget("batch", {})["html"]
    assert (
        '<thead><tr><th scope="col">Prompt</th><th scope="col">Answers</th><th scope="col" class="num">Mean</th>'
        '<th scope="col" class="num">\u03c3 (spread)</th><th scope="col" class="num">Gradient size</th></tr></thead>'
    ) in html
    assert html.count('<tr><th scope="row" data-field="prompt">A box has') == 3
    # The defaults: the toy 0.75 and 0.3536; the easy prompt all correct; the hard one 0.1667 and 0.3727.
    # Every number column to 4 decimals (issue 57's table; issue 58: no column mixes its decimal places).
    assert '<td data-field="mean">0.7500</td><td data-field="sigma">0.3536</td><td data-field="gradient-size">0.1768</td>' in html
    assert (
        '<td data-field="mean">1.0000</td><td data-field="sigma">0.0000</td>'
        '<td data-field="gradient-size">0.0000 <span class="lab-no-signal">(no signal: every reward equal)</span></td>'
    ) in html
    assert '<td data-field="mean">0.1667</td><td data-field="sigma">0.3727</td>' in html
    assert html.count("no signal") == 1


def test_a_bad_signal_rule_names_its_control():
    with pytest.raises(SettingError) as error:
        render_widget("batch", {"signal_rule": "raw"})
    assert (error.value.field, str(error.value)) == (
        "signal_rule",
        "Signal rule must be \u201cmean\u201d or \u201cstd\u201d; \u201craw\u201d is not one of them",
    )


def value(**parameters: str) -> str:
    definition = WIDGET.values["batch-row"]
    given = {**{key: default for key, default in definition.parameters.items() if default is not None}, **parameters}
    return definition.compute(given)


def test_the_computed_values_are_the_records_numbers():
    assert [value(prompt=p, field="mean") for p in "123"] == ["0.7500", "1.0000", "0.1667"]
    assert [value(prompt=p, field="sigma") for p in "123"] == ["0.3536", "0.0000", "0.3727"]
    assert [value(prompt=p, field="gradient-size") for p in "123"] == ["0.1768", "0.0000", "0.1964"]
    assert value(prompt="3", field="gradient-size", rule="std") == "0.5270"
    with pytest.raises(ValueError) as error:
        value(prompt="4", field="mean")
    assert str(error.value) == "prompt must be a whole number from 1 to 3, got '4'"
    with pytest.raises(ValueError) as error:
        value(prompt="1", field="spread")
    assert str(error.value) == "field must be one of mean, sigma, gradient-size, got 'spread'"


@pytest.mark.skipif(sys.platform == "emscripten", reason="subprocesses are not available inside Pyodide")
def test_build_lab_prints_the_record_and_the_table(golden):
    result = run_build_lab("--widget", "batch", "--signal-rule", "std", "--seed", "1")
    assert (result.returncode, result.stderr) == (0, "")
    assert json.loads(result.stdout) == WIDGET.compute({**WIDGET.defaults, "signal_rule": "std", "seed": "1"})
    result = run_build_lab("--widget", "batch", "--format", "table")
    assert (result.returncode, result.stderr) == (0, "")
    golden.check("batch-table-default.txt", result.stdout)
