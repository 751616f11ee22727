"""What each lab widget offers a reader: its controls, their ranges, and whether it can be reset.

One home for these facts: the page template draws the controls from them, the
command line writes its help from them, and the browser script reads them
back from the markup (data attributes), so a range changed in `world.py`
changes all three. Standard library only; imported by the CLI before anything
heavier, so it must stay cheap.
"""

import math
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from rollout_lab.world import (
    CLIP_RANGE,
    DEFAULT_CLIP,
    DEFAULT_EPOCHS,
    DEFAULT_GROUP_SIZE,
    DEFAULT_KL_WEIGHT,
    DEFAULT_LEARNING_RATE,
    DEFAULT_ROUNDS,
    DEFAULT_SEED,
    DEFAULT_SIGNAL_RULE,
    DEFAULT_TEMPERATURE,
    DEFAULT_TRAINING_GROUP_SIZE,
    EPOCHS_RANGE,
    GROUP_SIZE_RANGE,
    KL_WEIGHT_RANGE,
    LEARNING_RATE_RANGE,
    REWARD_COUNT_RANGE,
    REWARD_RANGE,
    ROUNDS_RANGE,
    SEED_RANGE,
    SIGNAL_RULES,
    TEMPERATURE_RANGE,
)


@dataclass(frozen=True)
class Control:
    """One setting a reader can change.

    `kind` says how the page draws it: "log-slider" (a number field, a slider
    with equal track length per doubling, and preset buttons), "stepper" (a
    whole-number field with − and + buttons and arrow keys), "number" (a
    number field with preset buttons), "choice" (a drop-down list of
    `choices`, each a value and the text shown for it) or "text".
    """

    name: str
    label: str
    kind: str
    low: float
    high: float
    default: str
    help: str
    url_parameter: str | None = None
    presets: tuple[str, ...] = ()
    # Slider positions per doubling: each step multiplies by 2^(1/7) ≈ 1.104, more
    # than the widest gap between two-significant-digit values (10 %, from 1.0 to
    # 1.1), so every arrow-key press lands on a new value.
    steps_per_doubling: int = 0
    new_value_button: bool = False
    choices: tuple[tuple[str, str], ...] = ()

    @property
    def inputmode(self) -> str:
        return {"log-slider": "decimal", "number": "decimal", "stepper": "numeric"}.get(self.kind, "text")

    # Slider position p stands for 2^(p / steps_per_doubling), to two significant
    # digits and within the range: position 0 is 1, and every doubling of it
    # (0.25, 0.5, 2, 4) is a position of its own, so the presets sit on the track.
    @property
    def slider_min(self) -> int:
        """The first position: the one that clamps to `low`, or gives it when the next one rounds to it too."""
        position = math.floor(self.steps_per_doubling * math.log2(self.low))
        return position + 1 if self.slider_value(position + 1) == self.slider_value(position) else position

    @property
    def slider_max(self) -> int:
        """The last position: the one that clamps to `high`, or gives it when the one before rounds to it too."""
        position = math.ceil(self.steps_per_doubling * math.log2(self.high))
        return position - 1 if self.slider_value(position - 1) == self.slider_value(position) else position

    def slider_value(self, position: int) -> str:
        """The value a slider position stands for, as the page writes it (lab.js computes the same)."""
        exact = Decimal(2 ** (position / self.steps_per_doubling))
        # Two significant digits, halves rounded up, as JavaScript's toPrecision(2) does.
        snapped = float(exact.quantize(Decimal(1).scaleb(exact.adjusted() - 1), rounding=ROUND_HALF_UP))
        return f"{min(max(snapped, self.low), self.high):g}"

    def slider_position(self, value: str) -> int:
        """The slider position nearest a checked value (the field shows the exact value)."""
        position = round(self.steps_per_doubling * math.log2(float(value)))
        return min(max(position, self.slider_min), self.slider_max)


@dataclass(frozen=True)
class Widget:
    """A lab widget: its title, its controls in page order, and what the page may do with it."""

    name: str
    title: str
    controls: tuple[Control, ...]
    # Reset restores the recorded run; only widgets with several settings need it.
    resettable: bool = False
    # The page's first such widget mirrors its settings in the address (?T=2&K=8).
    in_address: bool = False
    # A link's query for the no-JavaScript note of a widget in the address.
    address_example: str = ""

    @property
    def setting_names(self) -> tuple[str, ...]:
        return tuple(control.name for control in self.controls)


def _plain_number(value: float) -> str:
    return f"{value:g}"


TEMPERATURE = Control(
    name="temperature",
    label="Temperature",
    kind="log-slider",
    low=TEMPERATURE_RANGE[0],
    high=TEMPERATURE_RANGE[1],
    default=_plain_number(DEFAULT_TEMPERATURE),
    help=f"a number from {_plain_number(TEMPERATURE_RANGE[0])} to {_plain_number(TEMPERATURE_RANGE[1])}",
    url_parameter="T",
    presets=("0.25", "0.5", "1", "2", "4"),
    steps_per_doubling=7,
)
GROUP_SIZE = Control(
    name="group_size",
    label="Group size",
    kind="stepper",
    low=GROUP_SIZE_RANGE[0],
    high=GROUP_SIZE_RANGE[1],
    default=str(DEFAULT_GROUP_SIZE),
    help=f"a whole number from {GROUP_SIZE_RANGE[0]} to {GROUP_SIZE_RANGE[1]}",
    url_parameter="K",
)
SEED = Control(
    name="seed",
    label="Seed",
    kind="stepper",
    low=SEED_RANGE[0],
    high=SEED_RANGE[1],
    default=str(DEFAULT_SEED),
    help=f"a whole number from {SEED_RANGE[0]} to {SEED_RANGE[1]}",
    url_parameter="seed",
    new_value_button=True,
)
REWARDS = Control(
    name="rewards",
    label="Rewards (comma-separated)",
    kind="text",
    low=REWARD_RANGE[0],
    high=REWARD_RANGE[1],
    default="1, 0.75, 0, 1",
    help=f"{REWARD_COUNT_RANGE[0]} to {REWARD_COUNT_RANGE[1]} numbers from {_plain_number(REWARD_RANGE[0])}"
    f" to {_plain_number(REWARD_RANGE[1])}, separated by commas",
)


def _whole_number_control(name: str, label: str, allowed: tuple[int, int], default: int, parameter: str) -> Control:
    low, high = allowed
    return Control(name, label, "stepper", low, high, str(default), f"a whole number from {low} to {high}", parameter)


def _number_control(
    name: str, label: str, allowed: tuple[float, float], default: float, parameter: str, presets: tuple[str, ...]
) -> Control:
    low, high = allowed
    help_text = f"a number from {_plain_number(low)} to {_plain_number(high)}"
    return Control(name, label, "number", low, high, _plain_number(default), help_text, parameter, presets)


# The training lab (chapter 5). Its group size and seed are the sampler's
# settings with the training lab's own default; presets mark the values the
# chapter's questions ask about (α = 0, ε = 1, β > 0).
TRAINING_CONTROLS = (
    _whole_number_control("rounds", "Rounds", ROUNDS_RANGE, DEFAULT_ROUNDS, "R"),
    _whole_number_control("group_size", "Group size", GROUP_SIZE_RANGE, DEFAULT_TRAINING_GROUP_SIZE, "K"),
    SEED,
    _number_control(
        "learning_rate", "Learning rate", LEARNING_RATE_RANGE, DEFAULT_LEARNING_RATE, "lr", ("0", "0.5", "1", "2", "5")
    ),
    _whole_number_control("epochs", "Epochs", EPOCHS_RANGE, DEFAULT_EPOCHS, "E"),
    _number_control("clip", "Clip", CLIP_RANGE, DEFAULT_CLIP, "eps", ("0.1", "0.2", "0.3", "1")),
    _number_control("kl_weight", "KL weight", KL_WEIGHT_RANGE, DEFAULT_KL_WEIGHT, "beta", ("0", "0.1", "0.5", "1")),
    Control(
        "signal_rule",
        "Signal rule",
        "choice",
        0,
        0,
        DEFAULT_SIGNAL_RULE,
        " or ".join(SIGNAL_RULES),
        "rule",
        choices=tuple(zip(SIGNAL_RULES, ("mean: reward \u2212 group mean", "std: (reward \u2212 group mean) / group std"))),
    ),
)

WIDGETS: dict[str, Widget] = {
    widget.name: widget
    for widget in (
        Widget("probabilities", "Lab: probabilities at a temperature", (TEMPERATURE,)),
        Widget("calculator", "Lab: group mean and centred signals", (REWARDS,)),
        Widget(
            "sampler",
            "Lab: sample a group",
            (TEMPERATURE, GROUP_SIZE, SEED),
            resettable=True,
            in_address=True,
            address_example="T=2&K=8",
        ),
        Widget(
            "training",
            "Lab: collect, score, update, collect again",
            TRAINING_CONTROLS,
            resettable=True,
            in_address=True,
            address_example="R=3&E=1",
        ),
    )
}
