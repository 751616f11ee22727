"""What a lab widget's reader can change: `Control`, and the controls several widgets share.

A control is declared once, in the widget's module (rollout_lab/widgets/) or
here when several widgets share it: the page template draws it, `build.py lab`
makes an option of it (its metavar and help), and the browser script reads
it back from the markup (data attributes), so a range changed in `world.py`
changes all three. Standard library only.
"""

import math
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

from rollout_lab.validation import check_choice, check_number, check_whole_number
from rollout_lab.world import (
    DEFAULT_GROUP_SIZE,
    DEFAULT_SEED,
    DEFAULT_SIGNAL_RULE,
    DEFAULT_TEMPERATURE,
    GROUP_SIZE_RANGE,
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
    # What `build.py lab --help` shows for the value (--temperature T); the setting's name in capitals if empty.
    metavar: str = ""

    def check(self, value: object) -> float | int | str:
        """Return the value checked against the control's range or choices, or raise SettingError naming the control.

        The messages are the core's (validation.py), worded with the control's
        label. A "text" control has no rule of its own: its widget reads it
        (the calculator's rewards, validation.parse_rewards).
        """
        if self.kind in ("log-slider", "number"):
            return check_number(value, self.name, (self.low, self.high), self.label)
        if self.kind == "stepper":
            return check_whole_number(value, self.name, (int(self.low), int(self.high)), self.label)
        if self.kind == "choice":
            return check_choice(value, self.name, tuple(choice for choice, _ in self.choices), self.label)
        raise TypeError(f"a {self.kind} control has no rule of its own: its widget checks {self.name}")

    @property
    def option(self) -> str:
        """The setting's option on the command line: --group-size for group_size."""
        return "--" + self.name.replace("_", "-")

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

    @property
    def ends(self) -> tuple[str, str]:
        """The range's two ends as the page shows them at a slider's ends (0.05 and 20)."""
        return plain_number(self.low), plain_number(self.high)

    def slider_position(self, value: str) -> int:
        """The slider position nearest a checked value (the field shows the exact value)."""
        position = round(self.steps_per_doubling * math.log2(float(value)))
        return min(max(position, self.slider_min), self.slider_max)


def plain_number(value: float) -> str:
    """Write a range's end or a default as the page and the help do: 0.05, 20, 1."""
    return f"{value:g}"


TEMPERATURE = Control(
    name="temperature",
    label="Temperature",
    kind="log-slider",
    low=TEMPERATURE_RANGE[0],
    high=TEMPERATURE_RANGE[1],
    default=plain_number(DEFAULT_TEMPERATURE),
    help=f"a number from {plain_number(TEMPERATURE_RANGE[0])} to {plain_number(TEMPERATURE_RANGE[1])}",
    url_parameter="T",
    presets=("0.25", "0.5", "1", "2", "4"),
    steps_per_doubling=7,
    metavar="T",
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
    metavar="K",
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
    metavar="S",
)

# How a group's rewards become signals: the training lab's and the batch lab's.
SIGNAL_RULE = Control(
    "signal_rule",
    "Signal rule",
    "choice",
    0,
    0,
    DEFAULT_SIGNAL_RULE,
    " or ".join(SIGNAL_RULES),
    "rule",
    choices=tuple(zip(SIGNAL_RULES, ("mean: reward \u2212 group mean", "std: (reward \u2212 group mean) / group std"))),
    metavar="RULE",
)


def whole_number_control(
    name: str, label: str, allowed: tuple[int, int], default: int, parameter: str, metavar: str = ""
) -> Control:
    """A stepper for a whole number in `allowed`, mirrored in the address as `parameter`."""
    low, high = allowed
    help_text = f"a whole number from {low} to {high}"
    return Control(name, label, "stepper", low, high, str(default), help_text, parameter, metavar=metavar)


def number_control(
    name: str,
    label: str,
    allowed: tuple[float, float],
    default: float,
    parameter: str,
    presets: tuple[str, ...],
    metavar: str = "",
) -> Control:
    """A decimal field with preset buttons for a number in `allowed`, mirrored in the address as `parameter`."""
    low, high = allowed
    help_text = f"a number from {plain_number(low)} to {plain_number(high)}"
    return Control(name, label, "number", low, high, plain_number(default), help_text, parameter, presets, metavar=metavar)
