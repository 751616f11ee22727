"""A control's own check (rollout_lab.widgets.controls.Control.check) is the core's check of its setting, message for message.

A new widget can declare a setting's range, default and rule once, in its
control; the existing ones show that the rule a control derives from its
kind, range and label is the one the core applies (validation.py).
"""

import pytest

from rollout_lab import (
    SettingError,
    check_clip,
    check_epochs,
    check_group_size,
    check_kl_weight,
    check_lambda,
    check_learning_rate,
    check_rounds,
    check_seed,
    check_signal_rule,
    check_temperature,
)
from rollout_lab.tokens.update import check_length_rule
from rollout_lab.widgets import WIDGETS
from rollout_lab.widgets.controls import Control

CORE_CHECKS = {
    "temperature": check_temperature,
    "group_size": check_group_size,
    "seed": check_seed,
    "rounds": check_rounds,
    "learning_rate": check_learning_rate,
    "epochs": check_epochs,
    "clip": check_clip,
    "kl_weight": check_kl_weight,
    "signal_rule": check_signal_rule,
    "length_rule": check_length_rule,
    "lam": check_lambda,
}
TYPED = [
    "",
    " ",
    "abc",
    "nan",
    "-1",
    "\u22121",
    "0",
    "0.01",
    "0.5",
    "1",
    "2.5",
    "+6",
    "20",
    "64",
    "65",
    "1e3",
    "STD",
    " mean ",
    " Token_Sum ",
    "sequence mean",
]
CONTROLS = {(widget.name, control.name): control for widget in WIDGETS.values() for control in widget.controls}


def outcome(check, value):
    try:
        return ("accepted", check(value))
    except SettingError as error:
        return ("refused", error.field, str(error))


@pytest.mark.parametrize("key", [key for key, control in CONTROLS.items() if control.kind != "text"], ids="-".join)
def test_a_controls_check_is_the_cores_check(key):
    control = CONTROLS[key]
    for value in [control.default, *TYPED, *control.presets]:
        assert outcome(control.check, value) == outcome(CORE_CHECKS[control.name], value), value


def test_a_choice_of_three_names_every_choice():
    rule = Control("rule", "Length rule", "choice", 0, 0, "a", "", choices=(("a", "A"), ("b", "B"), ("c", "C")))
    assert rule.check(" B ") == "b"
    with pytest.raises(SettingError) as error:
        rule.check("d")
    assert (error.value.field, str(error.value)) == (
        "rule",
        "Length rule must be \u201ca\u201d, \u201cb\u201d or \u201cc\u201d; \u201cd\u201d is not one of them",
    )


def test_a_text_control_leaves_its_rule_to_its_widget():
    with pytest.raises(TypeError, match="a text control has no rule of its own: its widget checks rewards"):
        WIDGETS["calculator"].controls[0].check("1, 2")
