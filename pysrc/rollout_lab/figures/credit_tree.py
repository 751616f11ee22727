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
from rollout_lab.figures.token_charts import GAP, LEFT, LINE, count_taken, label_width, show_token, svg_unit, tree_nodes
from rollout_lab.tokens.world import COMPLETION_PATHS, STOP_TOKENS, TOKEN_STATES, join_tokens, spell_path

# Label widths, the gap for the branches, the margin and the line height are the token tree's (token_charts.py).
ROW = 56
LEGEND = (
    "this group\u2019s paths (heavier: more)",
    "+0.12 = exact advantage \u03b4 of the token",
    "0.12 = V of the state reached, R at a stop",
)
TREE_TOP = len(LEGEND) * 24 + 36


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


def _legend(width: float) -> str:
    """What the heavier branches and the two numbers under each token are, above a rule."""
    sample = (
        f'<line class="token-edge token-edge-taken" x1="{LEFT}" y1="16" x2="{LEFT + 28}" y2="16" stroke-width="4"></line>'
        f'<text class="chart-label" x="{LEFT + 36}" y="22">{escape(LEGEND[0])}</text>'
    )
    numbers = "".join(
        f'<text class="chart-value" x="{LEFT}" y="{22 + 24 * n}">{escape(line)}</text>' for n, line in enumerate(LEGEND[1:], 1)
    )
    rule_y = 22 + 24 * (len(LEGEND) - 1) + 14
    return f'{sample}{numbers}<line class="token-edge" x1="{LEFT}" y1="{rule_y}" x2="{width - LEFT}" y2="{rule_y}"></line>'


def render_credit_tree(record: dict[str, Any]) -> str:
    """Return the token tree at the record's temperature with V, each token's advantage and this group's paths, as an SVG."""
    states = record["states"]
    nodes = tree_nodes()
    counts = count_taken(record)
    lines = {(): ["start", format_number(states[0]["value"])]}
    for node in nodes:
        state, option = node["path"][-1]
        lines[node["path"]] = node_lines(TOKEN_STATES[state].options[option].token, states[state]["options"][option])
    # Each column begins where the widest label of the one before it ends, plus room for the branches.
    columns = [float(LEFT)]
    for depth in range(max(node["depth"] for node in nodes)):
        widest = max(label_width(text) for path, text in lines.items() if len(path) == depth)
        columns.append(columns[-1] + widest + GAP)
    last = max(label_width(text) for path, text in lines.items() if len(path) == len(columns) - 1)
    width = round(max(columns[-1] + last, LEFT + 36 + label_width([LEGEND[0]]), LEFT + label_width(list(LEGEND[1:]))) + LEFT)
    height = TREE_TOP + (len(COMPLETION_PATHS) - 1) * ROW + 2 * LINE + 12

    def row_y(row: float) -> float:
        return round(TREE_TOP + row * ROW, 2)

    places = {(): (columns[0], row_y((len(COMPLETION_PATHS) - 1) / 2))}
    for node in nodes:
        places[node["path"]] = (columns[node["depth"]], row_y(node["row"]))
    edges, labels = [], []
    for node in nodes:
        parent = node["path"][:-1]
        _, parent_y = places[parent]
        x, y = places[node["path"]]
        count = counts.get(spell_path(node["path"]), 0)
        css = "token-edge token-edge-taken" if count else "token-edge"
        stroke = f' stroke-width="{min(2 + count, 10)}"' if count else ""
        # From the end of the parent column's widest label, so a branch never crosses a label of that column.
        start = columns[node["depth"]] - GAP + 2
        edges.append(
            f'<line class="{css}" x1="{svg_unit(start)}" y1="{svg_unit(parent_y - 6)}" x2="{svg_unit(x - 4)}" y2="{svg_unit(y - 6)}"{stroke}>'
            "</line>"
        )
    for path, (x, y) in places.items():
        first, *numbers = lines[path]
        stop = bool(path) and spell_path(path)[-1] in STOP_TOKENS
        token_class = "chart-label token-name token-stop" if stop else "chart-label token-name"
        labels.append(f'<text class="{token_class}" x="{svg_unit(x)}" y="{svg_unit(y)}">{escape(first)}</text>')
        labels.extend(
            f'<text class="chart-value" x="{svg_unit(x)}" y="{svg_unit(y + LINE * (n + 1))}">{escape(number)}</text>'
            for n, number in enumerate(numbers)
        )
    temperature = format_number(record["settings"]["temperature"], 4)
    return (
        f'<svg class="lab-chart credit-tree" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="Token tree at temperature {temperature}: under each token its exact advantage and the value V of the '
        f"state it reaches (the reward R at a stop); heavier branches are this group&#8217;s paths. "
        f'{escape(describe_credit_tree(record))}.">'
        f"{_legend(width)}{''.join(edges)}{''.join(labels)}</svg>\n"
    )
