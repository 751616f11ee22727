"""The token lab's two figures, drawn from a `token_update` record: the token tree and the eight completions.

The tree: the prompt at the left, one column per token position, each branch
labelled with its probability at T; the branches this group's rollouts took
are drawn heavier, with how many rollouts took them. The completions: each
one's probability before and after the step, under the record's length rule.
Both carry their point in words (`aria-label`), and the lab's tables give every
number. Standard library only: the browser draws them in Pyodide.
"""

from html import escape
from typing import Any

from rollout_lab.display import format_number, format_signal
from rollout_lab.exact import round_to_places
from rollout_lab.tokens.world import COMPLETION_PATHS, STOP_TOKENS, join_tokens, spell_path

# Chart type is 16 SVG units, as in the other lab charts.
TREE_WIDTH, TREE_ROW, TREE_TOP = 560, 40, 28
# The x of each column: the prompt, then token positions 1 to 4.
TREE_COLUMNS = (8, 92, 212, 346, 466)
BARS_WIDTH, BARS_ROW, BARS_LEFT, BARS_PLOT = 560, 44, 150, 250


def show_token(token: str) -> str:
    """Write a token as the lab shows it: its characters, a leading space as a visible ␣."""
    return token.replace(" ", "\u2423", 1) if token.startswith(" ") else token


def format_probability(value: float) -> str:
    """Write a probability or a ratio to four fixed decimals: 0.5896, 1.0000."""
    return format(round_to_places(value, 4), "f")


def tree_nodes() -> list[dict[str, Any]]:
    """Every branch of the tree with its column, row (leaves one row each, in enumeration order) and state/option."""
    leaf_rows = {path: row for row, path in enumerate(COMPLETION_PATHS)}
    nodes: dict[tuple[tuple[int, int], ...], dict[str, Any]] = {}
    for path in COMPLETION_PATHS:
        for depth in range(1, len(path) + 1):
            prefix = path[:depth]
            node = nodes.setdefault(prefix, {"path": prefix, "rows": []})
            node["rows"].append(leaf_rows[path])
    for node in nodes.values():
        node["row"] = sum(node["rows"]) / len(node["rows"])
        node["depth"] = len(node["path"])
        node["state"], node["option"] = node["path"][-1]
    return sorted(nodes.values(), key=lambda node: (node["depth"], node["row"]))


def count_taken(record: dict[str, Any]) -> dict[tuple[str, ...], int]:
    """How many of the group's rollouts took each branch, keyed by the tokens up to and including it."""
    counts: dict[tuple[str, ...], int] = {}
    for rollout in record["rollouts"]:
        tokens = tuple(rollout["tokens"])
        for depth in range(1, len(tokens) + 1):
            counts[tokens[:depth]] = counts.get(tokens[:depth], 0) + 1
    return counts


def _tree_row_y(row: float) -> float:
    return round(TREE_TOP + row * TREE_ROW, 2)


def describe_tree(record: dict[str, Any]) -> str:
    """The tree in words: each state's options with their probabilities, then the paths this group took."""
    states = []
    for state in record["states"]:
        where = "At the start" if not state["prefix"] else f"After \u201c{state['prefix']}\u201d"
        options = ", ".join(f"{option['token']} {format_probability(option['probability'])}" for option in state["options"])
        states.append(f"{where}: {options}")
    taken: dict[str, int] = {}
    for rollout in record["rollouts"]:
        path = " ".join(rollout["tokens"])
        taken[path] = taken.get(path, 0) + 1
    paths = "; ".join(f"{path} \u00d7{count}" for path, count in taken.items())
    return f"{'. '.join(states)}. This group's rollouts took: {paths}"


def render_token_tree(record: dict[str, Any]) -> str:
    """Return the token tree at the record's temperature, with this group's rollouts traced on it, as an SVG."""
    nodes = tree_nodes()
    counts = count_taken(record)
    states = record["states"]
    height = TREE_TOP + (len(COMPLETION_PATHS) - 1) * TREE_ROW + 24
    root_y = _tree_row_y((len(COMPLETION_PATHS) - 1) / 2)
    edges, labels = [], []
    positions: dict[tuple[tuple[int, int], ...], tuple[float, float]] = {(): (TREE_COLUMNS[0] + 44, root_y)}
    labels.append(f'<text class="chart-label" x="{TREE_COLUMNS[0]}" y="{root_y + 5}">prompt</text>')
    for node in nodes:
        option = states[node["state"]]["options"][node["option"]]
        x, y = TREE_COLUMNS[node["depth"]], _tree_row_y(node["row"])
        parent_x, parent_y = positions[node["path"][:-1]]
        tokens = spell_path(node["path"])
        count = counts.get(tokens, 0)
        css = "token-edge token-edge-taken" if count else "token-edge"
        width = f' stroke-width="{min(2 + count, 10)}"' if count else ""
        edges.append(f'<line class="{css}" x1="{parent_x}" y1="{parent_y}" x2="{x - 4}" y2="{y}"{width}></line>')
        token_class = "token-name token-stop" if option["token"] in STOP_TOKENS else "token-name"
        shown = escape(show_token(option["token"]))
        labels.append(f'<text class="chart-label {token_class}" x="{x}" y="{y - 3}">{shown}</text>')
        note = format_probability(option["probability"]) + (f" \u00d7{count}" if count else "")
        labels.append(f'<text class="chart-value token-p" x="{x}" y="{y + 15}">{note}</text>')
        positions[node["path"]] = (x + 8 + 9 * len(show_token(option["token"])), y)
    temperature = format_number(record["settings"]["temperature"], 4)
    return (
        f'<svg class="lab-chart token-tree" viewBox="0 0 {TREE_WIDTH} {height}" role="img" '
        f'aria-label="Token tree at temperature {temperature}, each branch with its probability and, '
        f'heavier, how many of this group&#8217;s rollouts took it. {escape(describe_tree(record))}.">'
        f"{''.join(edges)}{''.join(labels)}</svg>\n"
    )


def completion_texts() -> list[str]:
    """The eight completions in the tree's order (depth first, options in the table's order)."""
    return [join_tokens(spell_path(path)) for path in COMPLETION_PATHS]


def describe_change(record: dict[str, Any]) -> str:
    """Which completions gained and which lost probability in the step, in words."""
    parts = []
    for text in completion_texts():
        before, after = record["before"][text], record["after"][text]
        parts.append(f"\u201c{text}\u201d {format_probability(before)} to {format_probability(after)}")
    return "; ".join(parts)


def render_completion_change(record: dict[str, Any]) -> str:
    """Return the eight completions' probabilities before (outline) and after (filled) the step, as an SVG."""
    texts = completion_texts()
    largest = max(max(record["before"].values()), max(record["after"].values()))
    height = len(texts) * BARS_ROW + 12
    parts = []
    for row, text in enumerate(texts):
        y = 8 + row * BARS_ROW
        before, after = record["before"][text], record["after"][text]
        before_length = round(before / largest * BARS_PLOT, 2)
        after_length = round(after / largest * BARS_PLOT, 2)
        change = format_signal(after - before)
        parts.append(
            f'<text class="chart-label" x="{BARS_LEFT - 8}" y="{y + 22}" text-anchor="end">{escape(text)}</text>'
            f'<rect class="token-before" x="{BARS_LEFT}" y="{y}" width="{before_length}" height="14"></rect>'
            f'<rect class="chart-bar" x="{BARS_LEFT}" y="{y + 16}" width="{after_length}" height="14"></rect>'
            f'<text class="chart-value token-p" x="{round(BARS_LEFT + max(before_length, after_length) + 6, 2)}" '
            f'y="{y + 22}">{format_probability(after)} ({change})</text>'
        )
    rule = record["settings"]["length_rule"]
    return (
        f'<svg class="lab-chart token-completions" viewBox="0 0 {BARS_WIDTH} {height}" role="img" '
        f'aria-label="Each completion&#8217;s probability before the step (outlined bar) and after it (filled bar), '
        f'under the length rule {escape(rule)}: {escape(describe_change(record))}.">'
        f"{''.join(parts)}</svg>\n"
    )
