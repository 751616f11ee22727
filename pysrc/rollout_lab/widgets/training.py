"""The training lab (chapter 6): R rounds of collect, score and E clipped-surrogate updates (rollout_lab/learning/training.py).

Its results fragment, figures and announcement are drawn by
rollout_lab/widgets/training_results.py; its computed values are the facts of a run
(the lab's settings by their address parameters, its defaults by default).
"""

from collections.abc import Mapping
from functools import cache
from typing import Any, ClassVar

from rollout_lab.display import format_fixed, format_number
from rollout_lab.learning.training import run_training
from rollout_lab.values import ParameterError, ValueDefinition, read_candidate, read_places, read_whole_number, show_value
from rollout_lab.widgets.base import Widget
from rollout_lab.widgets.controls import SEED, SIGNAL_RULE, number_control, whole_number_control
from rollout_lab.widgets.training_results import announce_training, describe_clipped, render_training
from rollout_lab.world import (
    CLIP_RANGE,
    DEFAULT_CLIP,
    DEFAULT_EPOCHS,
    DEFAULT_KL_WEIGHT,
    DEFAULT_LEARNING_RATE,
    DEFAULT_ROUNDS,
    DEFAULT_TRAINING_GROUP_SIZE,
    EPOCHS_RANGE,
    GROUP_SIZE_RANGE,
    KL_WEIGHT_RANGE,
    LEARNING_RATE_RANGE,
    PROMPT,
    ROUNDS_RANGE,
)

# Its group size and seed are the sampler's settings with the training lab's
# own default; presets mark the values the chapter's questions ask about
# (α = 0, ε = 1, β > 0).
TRAINING_CONTROLS = (
    whole_number_control("rounds", "Rounds", ROUNDS_RANGE, DEFAULT_ROUNDS, "R", metavar="R"),
    whole_number_control("group_size", "Group size", GROUP_SIZE_RANGE, DEFAULT_TRAINING_GROUP_SIZE, "K", metavar="K"),
    SEED,
    number_control(
        "learning_rate",
        "Learning rate",
        LEARNING_RATE_RANGE,
        DEFAULT_LEARNING_RATE,
        "lr",
        ("0", "0.5", "1", "2", "5"),
        metavar="ALPHA",
    ),
    whole_number_control("epochs", "Epochs", EPOCHS_RANGE, DEFAULT_EPOCHS, "E", metavar="E"),
    number_control("clip", "Clip", CLIP_RANGE, DEFAULT_CLIP, "eps", ("0.1", "0.2", "0.3", "1"), metavar="EPS"),
    number_control(
        "kl_weight", "KL weight", KL_WEIGHT_RANGE, DEFAULT_KL_WEIGHT, "beta", ("0", "0.1", "0.5", "1"), metavar="BETA"
    ),
    SIGNAL_RULE,
)

# The run a computed value is about: the lab's settings by their address parameters (R, K, seed, lr, E, eps, beta,
# rule), with the lab's defaults; `round` picks a round (0 is before training, "last" the last one; "all" sums the
# clipped pairs of every round).
TRAINED = {control.url_parameter: control.default for control in TRAINING_CONTROLS if control.url_parameter is not None}
_TRAINING_NAMES = {control.url_parameter: control.name for control in TRAINING_CONTROLS}


@cache
def _training_record(settings: tuple[tuple[str, str], ...]) -> dict[str, Any]:
    return run_training(**{_TRAINING_NAMES[key]: value for key, value in settings})


def _trained(p: Mapping[str, str]) -> dict[str, Any]:
    return _training_record(tuple((key, p[key]) for key in TRAINED))


def _training_round(p: Mapping[str, str], *, before: bool) -> int:
    """The round asked for, 1 to R (0 too, for the policy before training, where `before` allows it)."""
    rounds = len(_trained(p)["rounds"])
    if p["round"].strip() == "last":
        return rounds
    low = 0 if before else 1
    number = read_whole_number(p["round"])
    if number is not None and low <= number <= rounds:
        return number
    raise ParameterError(f"round must be last or a whole number from {low} to {rounds}, got {show_value(p['round'])}")


def _training_epoch(p: Mapping[str, str]) -> int:
    epochs = len(_trained(p)["rounds"][0]["epochs"])
    number = read_whole_number(p["epoch"])
    if number is not None and 1 <= number <= epochs:
        return number
    raise ParameterError(f"epoch must be a whole number from 1 to {epochs}, got {show_value(p['epoch'])}")


def _after_round(p: Mapping[str, str], field: str) -> float:
    number = _training_round(p, before=True)
    record = _trained(p)
    value: float = record["start"][field] if number == 0 else record["rounds"][number - 1][field]
    return value


def _training_probability(p: Mapping[str, str]) -> float:
    number = _training_round(p, before=True)
    record = _trained(p)
    if p["epoch"].strip() != "last":
        # After one epoch's step of a round (the per-epoch table's "probabilities after its step").
        epochs = record["rounds"][_training_round(p, before=False) - 1]["epochs"]
        probabilities = epochs[_training_epoch(p) - 1]["probabilities"]
    elif number == 0:
        probabilities = record["start"]["probabilities"]
    else:
        probabilities = record["rounds"][number - 1]["epochs"][-1]["probabilities"]
    return float(probabilities[read_candidate(p["candidate"])])


def _training_clipped(p: Mapping[str, str]) -> str:
    rounds = _trained(p)["rounds"]
    chosen = rounds if p["round"].strip() == "all" else [rounds[_training_round(p, before=False) - 1]]
    if p["epoch"].strip() == "all":
        return str(sum(sum(epoch["clipped"]) for r in chosen for epoch in r["epochs"]))
    return str(sum(sum(r["epochs"][_training_epoch(p) - 1]["clipped"]) for r in chosen))


def _training_ratio(p: Mapping[str, str]) -> float:
    r = _trained(p)["rounds"][_training_round(p, before=False) - 1]
    candidate = read_candidate(p["candidate"])
    if candidate not in r["indices"]:
        raise ParameterError(f"candidate {candidate} was not drawn in round {r['round']}, so it has no ratio")
    ratio: float = r["epochs"][_training_epoch(p) - 1]["ratios"][r["indices"].index(candidate)]
    return ratio


class TrainingWidget(Widget):
    """`::: lab training`: rounds of collecting, scoring and updating the policy, with three figures."""

    name = "training"
    title = "Lab: collect, score, update, collect again"
    controls = TRAINING_CONTROLS
    # On a phone: rounds, group size, epochs and clip in sight (the chapter's first questions), the rest one tap away.
    more_settings: ClassVar[frozenset[str]] = frozenset({"seed", "learning_rate", "kl_weight", "signal_rule"})
    resettable = True
    in_address = True
    address_example = "R=3&E=1"
    values: ClassVar[Mapping[str, ValueDefinition]] = {
        "training-expected-reward": ValueDefinition(
            {**TRAINED, "round": "last", "places": "4"},
            lambda p: format_number(_after_round(p, "expected_reward"), read_places(p["places"])),
        ),
        "training-kl": ValueDefinition(
            {**TRAINED, "round": "last", "places": "4"},
            lambda p: format_number(_after_round(p, "kl"), read_places(p["places"])),
        ),
        "training-probability": ValueDefinition(
            {**TRAINED, "round": "last", "epoch": "last", "candidate": None, "places": "4"},
            lambda p: format_number(_training_probability(p), read_places(p["places"])),
        ),
        "training-clipped": ValueDefinition({**TRAINED, "round": "all", "epoch": "all"}, _training_clipped),
        "training-ratio": ValueDefinition(
            {**TRAINED, "round": None, "epoch": None, "candidate": None, "places": "4"},
            lambda p: format_number(_training_ratio(p), read_places(p["places"])),
        ),
    }

    def compute(self, settings: Mapping[str, str]) -> dict[str, Any]:
        """run_training's record: the policy before training, and each round's draws, epochs and end."""
        return run_training(**settings)

    def render(self, record: dict[str, Any]) -> str:
        return render_training(record)

    def announce(self, record: dict[str, Any]) -> str:
        return announce_training(record)

    def format_table(self, record: dict[str, Any]) -> str:
        """The lab's round table, in plain text."""
        settings = record["settings"]
        lines = [
            f"Prompt: {PROMPT}",
            f"{settings['rounds']} rounds, group size {settings['group_size']}, seed {settings['seed']}, "
            f"learning rate {format_number(settings['learning_rate'])}, {settings['epochs']} epochs, "
            f"clip {format_number(settings['clip'])}, KL weight {format_number(settings['kl_weight'])}, "
            f"signal rule {settings['signal_rule']}",
            "",
            f"{'Round':>5} {'Expected reward':>15} {'KL':>7} {'Clipped':>9}",
            f"{'0':>5} {format_fixed(record['start']['expected_reward']):>15} {format_fixed(0.0):>7}",
        ]
        for r in record["rounds"]:
            lines.append(
                f"{r['round']:>5} {format_fixed(r['expected_reward']):>15} {format_fixed(r['kl']):>7} {describe_clipped(r):>9}"
            )
        return "\n".join(lines)


WIDGET = TrainingWidget()
