"""The credit lab's figure, drawn from a credit record: the token tree with V at each state and each token's exact advantage.

Each token sits in its column with two numbers under it: its exact advantage δ
(signed: the change in V it causes) and V of the state it reaches (at a stop
token, the reward R). The start shows V(start). The branches this group's
rollouts took are drawn heavier, the more rollouts the heavier. Columns are as
wide as their labels, so no branch crosses a label, and the whole tree fits
460 units: its 16-unit type stays at least 12 px on a 390 px screen. The text
alternative (`aria-label`) carries every number and path. Standard library
only: the browser draws it in Pyodide.
"""

from html import escape
from typing import Any

from rollout_lab.display import format_number, format_signal
from rollout_lab.figures.token_charts import TreeStyle, count_taken, draw_tree, show_token, tree_nodes
from rollout_lab.tokens.world import COMPLETION_PATHS, STOP_TOKENS, TOKEN_STATES, join_tokens, spell_path

# The tree is drawn as the token lab's is (token_charts.py's draw_tree), with its own legend and numbers.
LEGEND = (
    "this group\u2019s paths (heavier: more)",
    "+0.12 = exact advantage \u03b4 of the token",
    "0.12 = V of the state reached, R at a stop",
)


def node_lines(token: str, option: dict[str, Any]) -> list[str]:
    """A token's three lines: the token, its exact advantage, V of the state reached (R at a stop)."""
    return [show_token(token), format_signal(option["advantage"]), format_number(option["outcome"])]


def describe_path(tokens: tuple[str, ...]) -> str:
    """A path in words: its text in quotes, then its stop token: \u201cThe answer is 5\u201d then <end>."""
    stop = tokens[-1] in STOP_TOKENS
    text = f"\u201c{join_tokens(tokens[:-1] if stop else tokens)}\u201d"
    return f"{text} then {tokens[-1]}" if stop else text


def describe_credit_tree(record: dict[str, Any]) -> str:
    """The tree in words: V at the start, each token's advantage and what it leads to, then the group's paths."""
    states = record["states"]
    parts = [f"At the start, V {format_number(states[0]['value'])}"]
    # Depth first, in the tree's order: each branch once.
    branches = dict.fromkeys(path[:depth] for path in COMPLETION_PATHS for depth in range(1, len(path) + 1))
    for path in branches:
        state, option = path[-1]
        token = TOKEN_STATES[state].options[option].token
        numbers = states[state]["options"][option]
        reached = "R" if token in STOP_TOKENS else "V"
        parts.append(
            f"{describe_path(spell_path(path))}: advantage {format_signal(numbers['advantage'])}, "
            f"{reached} {format_number(numbers['outcome'])}"
        )
    taken: dict[str, int] = {}
    for rollout in record["rollouts"]:
        path_text = describe_path(tuple(rollout["tokens"]))
        taken[path_text] = taken.get(path_text, 0) + 1
    paths = "; ".join(f"{path_text} \u00d7{count}" for path_text, count in taken.items())
    return f"{'. '.join(parts)}. This group's rollouts took: {paths}"


CREDIT_TREE = TreeStyle(LEGEND, "token-edge token-edge-taken", 2, "chart-label token-name", "chart-value")


def render_credit_tree(record: dict[str, Any]) -> str:
    """Return the token tree at the record's temperature with V, each token's advantage and this group's paths, as an SVG."""
    states = record["states"]
    lines: dict[tuple[tuple[int, int], ...], list[str]] = {(): ["start", format_number(states[0]["value"])]}
    for node in tree_nodes():
        state, option = node["path"][-1]
        lines[node["path"]] = node_lines(TOKEN_STATES[state].options[option].token, states[state]["options"][option])
    width, height, drawing = draw_tree(lines, count_taken(record), CREDIT_TREE)
    temperature = format_number(record["settings"]["temperature"], 4)
    return (
        f'<svg class="lab-chart credit-tree" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="Token tree at temperature {temperature}: under each token its exact advantage and the value V of the '
        f"state it reaches (the reward R at a stop); heavier branches are this group&#8217;s paths. "
        f'{escape(describe_credit_tree(record))}.">'
        f"{drawing}</svg>\n"
    )
