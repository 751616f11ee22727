"""The probabilities widget (chapter 2): the three answers' probabilities at one temperature, as a table and bars.

Its computed values are the probabilities themselves, the rounded entries'
shown total and the expected reward at a temperature.
"""

from collections.abc import Mapping, Sequence
from html import escape
from typing import Any, ClassVar

from rollout_lab.display import format_exact, format_number, format_percent, present_probabilities
from rollout_lab.sampling import softmax_probabilities
from rollout_lab.statistics import expected_reward
from rollout_lab.validation import check_temperature
from rollout_lab.values import ValueDefinition, read_candidate, read_places
from rollout_lab.widgets.base import Widget
from rollout_lab.widgets.controls import TEMPERATURE
from rollout_lab.world import CANDIDATES, PROMPT

# Each table sits in a focusable scroll box: on a very narrow screen (or with a
# large group) it scrolls sideways instead of widening the page, and keyboard
# users can scroll it too.


def render_probabilities(temperature: float) -> str:
    """Return the probability table (with the shown total) and a bar chart for one temperature."""
    probabilities = softmax_probabilities(temperature)
    view = present_probabilities(probabilities)
    rows = "".join(
        "<tr>"
        f'<th scope="row" data-field="completion"><code>{escape(row["completion"])}</code></th>'
        f'<td data-field="logit">{row["logit"]}</td>'
        f'<td data-field="reward">{row["reward"]}</td>'
        f'<td data-field="probability">{row["probability"]}</td></tr>\n'
        for row in view["rows"]
    )
    note = (
        ""
        if view["total_is_exact"]
        else '<p class="lab-note">The shown total is not exactly 100\u00a0% because each entry is rounded on its own.</p>\n'
    )
    return (
        '<div class="lab-table-scroll" tabindex="0">\n<table class="lab-table">\n'
        f"<caption>Probabilities at temperature {format_exact(temperature)}</caption>\n"
        '<thead><tr><th scope="col">Completion</th><th scope="col" class="num">Logit</th>'
        '<th scope="col" class="num">Reward</th><th scope="col" class="num">Probability</th></tr></thead>\n'
        f"<tbody>\n{rows}</tbody>\n"
        '<tfoot><tr><th scope="row">Shown total</th><td></td><td></td>'
        f'<td data-field="shown-total">{view["shown_total"]}</td></tr></tfoot>\n'
        "</table>\n</div>\n"
        f"{note}"
        f"{_probability_chart(probabilities, [row['completion'] for row in view['rows']], [row['probability'] for row in view['rows']])}"
    )


def _probability_chart(probabilities: Sequence[float], completions: Sequence[str], labels: Sequence[str]) -> str:
    """Return horizontal bars, one per candidate, as an SVG with the table as its text alternative."""
    bar_height, gap, left, width = 22, 10, 150, 330
    height = len(probabilities) * (bar_height + gap) + gap
    bars = []
    for position, (probability, completion, label) in enumerate(zip(probabilities, completions, labels)):
        y = gap + position * (bar_height + gap)
        length = round(probability * (width - left - 70), 2)
        bars.append(
            f'<text class="chart-label" x="{left - 8}" y="{y + 15}" text-anchor="end">{escape(completion)}</text>'
            f'<rect class="chart-bar" x="{left}" y="{y}" width="{length}" height="{bar_height}"></rect>'
            f'<text class="chart-value" x="{left + length + 6}" y="{y + 15}">{escape(label)}</text>'
        )
    return (
        f'<svg class="lab-chart lab-chart-probabilities" viewBox="0 0 {width} {height}" role="img" '
        'aria-label="Bar chart of the probabilities; the table above gives the same numbers.">'
        f"{''.join(bars)}</svg>\n"
    )


def probability_at(parameters: Mapping[str, str]) -> float:
    """The probability of candidate `candidate` at temperature `T` (both as written)."""
    return softmax_probabilities(check_temperature(parameters["T"]))[read_candidate(parameters["candidate"])]


class ProbabilitiesWidget(Widget):
    """`::: lab probabilities`: move the temperature, watch the three probabilities."""

    name = "probabilities"
    title = "Lab: probabilities at a temperature"
    controls = (TEMPERATURE,)
    values: ClassVar[Mapping[str, ValueDefinition]] = {
        "probability": ValueDefinition(
            {"T": "1", "candidate": None, "places": "2"},
            lambda p: format_percent(probability_at(p), read_places(p["places"])),
        ),
        "probability-value": ValueDefinition(
            {"T": "1", "candidate": None, "places": "4"},
            lambda p: format_number(probability_at(p), read_places(p["places"])),
        ),
        "expected-reward": ValueDefinition(
            {"T": "1", "places": "4"},
            lambda p: format_number(expected_reward(check_temperature(p["T"])), read_places(p["places"])),
        ),
        "shown-total": ValueDefinition(
            {"T": "1"}, lambda p: present_probabilities(softmax_probabilities(check_temperature(p["T"])))["shown_total"]
        ),
    }

    def compute(self, settings: Mapping[str, str]) -> dict[str, Any]:
        """The temperature checked, and each candidate with its probability there."""
        temperature = check_temperature(settings["temperature"])
        probabilities = softmax_probabilities(temperature)
        return {
            "settings": {"temperature": temperature},
            "candidates": [
                {
                    "index": candidate.index,
                    "completion": candidate.completion,
                    "logit": candidate.logit,
                    "reward": candidate.reward,
                    "probability": p,
                }
                for candidate, p in zip(CANDIDATES, probabilities)
            ],
        }

    def render(self, record: dict[str, Any]) -> str:
        return render_probabilities(record["settings"]["temperature"])

    def announce(self, record: dict[str, Any]) -> str:
        shown = present_probabilities([candidate["probability"] for candidate in record["candidates"]])
        return f"At temperature {format_exact(record['settings']['temperature'])}: " + ", ".join(
            f"{row['completion']} has probability {row['probability']}" for row in shown["rows"]
        )

    def format_table(self, record: dict[str, Any]) -> str:
        temperature = format_number(record["settings"]["temperature"])
        return "\n".join([f"Prompt: {PROMPT}", f"Temperature {temperature}", "", *probability_table(record["candidates"])])


def probability_table(candidates: Sequence[dict[str, Any]]) -> list[str]:
    """The probability table as lines of plain text, with the rounded entries' shown total (for `build.py lab`)."""
    view = present_probabilities([candidate["probability"] for candidate in candidates])
    lines = [f"{'Candidate':<20} {'Logit':>5} {'Reward':>6} {'Probability':>11}"]
    for row in view["rows"]:
        lines.append(f"{row['completion']:<20} {row['logit']:>5} {row['reward']:>6} {row['probability']:>11}")
    lines.append(f"{'(shown total)':<20} {'':>5} {'':>6} {view['shown_total']:>11}")
    return lines


WIDGET = ProbabilitiesWidget()
