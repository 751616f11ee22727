"""The token lab's two figures, drawn from a `token_update` record: the token tree and the eight completions.

The tree: the prompt at the left, one column per token position, each token
with its probability at T under it; the branches this group's rollouts took
are drawn heavier, with how many rollouts took them (×3), and a legend says so.
The completions: each one's probability before (outlined) and after (filled)
the step, under the record's length rule, with a legend.
Both carry their point in words (`aria-label`), and the lab's tables give every
number. Standard library only: the browser draws them in Pyodide.
"""

from dataclasses import dataclass
from html import escape
from typing import Any

from rollout_lab.display import format_number, format_signal
from rollout_lab.exact import round_to_places
from rollout_lab.tokens.world import COMPLETION_PATHS, STOP_TOKENS, join_tokens, spell_path

# Chart type is 16 SVG units, as in the other lab charts. Columns are as wide as their labels (a generous 9
# units a character), so no branch crosses a label and the tree fits about 400 units: its type stays at least
# 12 px on a 390 px screen, as the completions' chart does at 400 units.
CHARACTER_WIDTH = 9.0
# Room between a column's widest label and the next column, for the branches.
GAP = 22
LEFT, TREE_ROW, LINE = 4, 56, 18
TREE_LEGEND = (
    "this group\u2019s paths (heavier: more)",
    "0.5896 = the token\u2019s probability at T",
    "\u00d73 = taken by 3 of the group\u2019s rollouts",
)
BARS_WIDTH, BARS_ROW, BARS_TOP = 400, 62, 70


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


def label_width(lines: list[str]) -> float:
    """The width of a node's widest line, by a generous estimate."""
    return max(len(line) for line in lines) * CHARACTER_WIDTH


def svg_unit(value: float) -> str:
    """An SVG coordinate, written shortest: 60, 122.5."""
    return f"{round(value, 2):g}"


@dataclass(frozen=True)
class TreeStyle:
    """How one of the two token trees (this module's, credit_tree.py's) is drawn where they differ.

    `legend`: its lines, the first beside a sample branch; `sample_class`: that
    branch's classes; `branch_gap`: how far past its column's widest label a
    branch starts; `root_class`, `value_class`: the classes of the root's label
    and of the numbers under each token.
    """

    legend: tuple[str, ...]
    sample_class: str
    branch_gap: float
    root_class: str
    value_class: str


TOKEN_TREE = TreeStyle(TREE_LEGEND, "token-edge-taken token-legend-sample", 6, "chart-label", "chart-value token-p")


def draw_tree(
    lines: dict[tuple[tuple[int, int], ...], list[str]], counts: dict[tuple[str, ...], int], style: TreeStyle
) -> tuple[int, int, str]:
    """Return the width, the height and the drawing of a token tree: its legend, its branches (heavier where this
    group's rollouts went), and under each token its `lines` (the token, then its numbers)."""
    nodes = tree_nodes()
    top = len(style.legend) * 24 + 36
    # Each column begins where the widest label of the one before it ends, plus room for the branches.
    columns = [float(LEFT)]
    for depth in range(max(node["depth"] for node in nodes)):
        widest = max(label_width(text) for path, text in lines.items() if len(path) == depth)
        columns.append(columns[-1] + widest + GAP)
    last = max(label_width(text) for path, text in lines.items() if len(path) == len(columns) - 1)
    width = round(
        max(columns[-1] + last, LEFT + 36 + label_width([style.legend[0]]), LEFT + label_width(list(style.legend[1:]))) + LEFT
    )
    height = top + (len(COMPLETION_PATHS) - 1) * TREE_ROW + 2 * LINE + 12

    def row_y(row: float) -> float:
        return round(top + row * TREE_ROW, 2)

    places = {(): (columns[0], row_y((len(COMPLETION_PATHS) - 1) / 2))}
    for node in nodes:
        places[node["path"]] = (columns[node["depth"]], row_y(node["row"]))
    edges, labels = [], []
    for node in nodes:
        _, parent_y = places[node["path"][:-1]]
        x, y = places[node["path"]]
        count = counts.get(spell_path(node["path"]), 0)
        css = "token-edge token-edge-taken" if count else "token-edge"
        stroke = f' stroke-width="{min(2 + count, 10)}"' if count else ""
        # From past the end of the parent column's widest label (a wide "m" can outrun the estimate by a few units),
        # so a branch never crosses a label of that column.
        start = columns[node["depth"]] - GAP + style.branch_gap
        edges.append(
            f'<line class="{css}" x1="{svg_unit(start)}" y1="{svg_unit(parent_y - 6)}" x2="{svg_unit(x - 4)}" y2="{svg_unit(y - 6)}"{stroke}>'
            "</line>"
        )
    for path, (x, y) in places.items():
        first, *numbers = lines[path]
        stop = bool(path) and spell_path(path)[-1] in STOP_TOKENS
        token_class = style.root_class if not path else "chart-label token-name" + (" token-stop" if stop else "")
        labels.append(f'<text class="{token_class}" x="{svg_unit(x)}" y="{svg_unit(y)}">{escape(first)}</text>')
        labels.extend(
            f'<text class="{style.value_class}" x="{svg_unit(x)}" y="{svg_unit(y + LINE * (n + 1))}">{escape(number)}</text>'
            for n, number in enumerate(numbers)
        )
    return width, height, f"{_legend(style, width)}{''.join(edges)}{''.join(labels)}"


def _legend(style: TreeStyle, width: float) -> str:
    """The tree's legend: a sample branch with the first line, the others under it, then a rule."""
    sample = (
        f'<line class="{style.sample_class}" x1="{LEFT}" y1="16" x2="{LEFT + 28}" y2="16" stroke-width="4"></line>'
        f'<text class="chart-label" x="{LEFT + 36}" y="22">{escape(style.legend[0])}</text>'
    )
    numbers = "".join(
        f'<text class="chart-value" x="{LEFT}" y="{22 + 24 * n}">{escape(line)}</text>'
        for n, line in enumerate(style.legend[1:], 1)
    )
    rule_y = 22 + 24 * (len(style.legend) - 1) + 14
    return f'{sample}{numbers}<line class="token-edge" x1="{LEFT}" y1="{rule_y}" x2="{width - LEFT}" y2="{rule_y}"></line>'


def render_token_tree(record: dict[str, Any]) -> str:
    """Return the token tree at the record's temperature, with this group's rollouts traced on it, as an SVG."""
    counts = count_taken(record)
    states = record["states"]
    lines: dict[tuple[tuple[int, int], ...], list[str]] = {(): ["prompt"]}
    for node in tree_nodes():
        option = states[node["state"]]["options"][node["option"]]
        count = counts.get(spell_path(node["path"]), 0)
        lines[node["path"]] = [show_token(option["token"]), format_probability(option["probability"])] + (
            [f"\u00d7{count}"] if count else []
        )
    width, height, drawing = draw_tree(lines, counts, TOKEN_TREE)
    temperature = format_number(record["settings"]["temperature"], 4)
    return (
        f'<svg class="lab-chart token-tree" viewBox="0 0 {width} {height}" role="img" '
        f'aria-label="Token tree at temperature {temperature}, each branch with its probability and, '
        f'heavier, how many of this group&#8217;s rollouts took it. {escape(describe_tree(record))}.">'
        f"{drawing}</svg>\n"
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
    """Return the eight completions' probabilities before (outline) and after (filled) the step, as an SVG.

    Each completion's text and its probability after the step (with the change) stand on a line above its two bars,
    so the bars can take the chart's whole width.
    """
    texts = completion_texts()
    largest = max(max(record["before"].values()), max(record["after"].values()))
    plot = BARS_WIDTH - 2 * LEFT
    height = BARS_TOP + len(texts) * BARS_ROW
    parts = [
        f'<rect class="token-before" x="{LEFT}" y="8" width="28" height="14"></rect>'
        f'<text class="chart-value" x="{LEFT + 36}" y="20">before the step (outlined)</text>'
        f'<rect class="chart-bar" x="{LEFT}" y="32" width="28" height="14"></rect>'
        f'<text class="chart-value" x="{LEFT + 36}" y="44">after it (filled; the number, with its change)</text>'
    ]
    for row, text in enumerate(texts):
        y = BARS_TOP + row * BARS_ROW
        before, after = record["before"][text], record["after"][text]
        before_length = round(before / largest * plot, 2)
        after_length = round(after / largest * plot, 2)
        change = format_signal(after - before)
        parts.append(
            f'<text class="chart-label" x="{LEFT}" y="{y + 14}">{escape(text)}</text>'
            f'<text class="chart-value" x="{BARS_WIDTH - LEFT}" y="{y + 14}" text-anchor="end">'
            f"{format_probability(after)} ({change})</text>"
            f'<rect class="token-before" x="{LEFT}" y="{y + 20}" width="{before_length}" height="14"></rect>'
            f'<rect class="chart-bar" x="{LEFT}" y="{y + 36}" width="{after_length}" height="14"></rect>'
        )
    rule = record["settings"]["length_rule"]
    return (
        f'<svg class="lab-chart token-completions" viewBox="0 0 {BARS_WIDTH} {height}" role="img" '
        f'aria-label="Each completion&#8217;s probability before the step (outlined bar) and after it (filled bar), '
        f'under the length rule {escape(rule)}: {escape(describe_change(record))}.">'
        f"{''.join(parts)}</svg>\n"
    )
