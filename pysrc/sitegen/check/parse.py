"""Parse each source on its own: Markdown pages, the glossary, references and figures.

`parse_page` is a pure function of one source's text (plus the core's source
for listings), so a watcher can re-parse just the file that changed. Problems
that need no other page (front matter, containers, lab settings, computed
values) are found here; cross-page checks live in validate.py.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable

from markdown_it.rules_block.table import escapedSplit
from markdown_it.token import Token

from sitegen.check.markdown import (
    INLINE_TEXT_LIMIT,
    NESTING_TOO_DEEP,
    create_markdown,
    find_unclosed_dollar,
    typeset_plain_text,
)
from sitegen.diagnostics import Diagnostic, Location, report, suggest_name
from sitegen.kinds.blocks import KINDS, find_kind, list_kind_names
from sitegen.kinds.blocks.base import BLOCK, TOP_LEVEL, Block, BlockError, BlockStart, Syntax, describe_parents, with_article
from sitegen.kinds.computed import COMPUTED_VALUE, ComputedValueError, compute_value
from sitegen.kinds.links import SCHEMES
from sitegen.kinds.links.base import LINK_KIND, USES
from sitegen.kinds.pages import PAGE_KINDS, list_single_pages
from sitegen.kinds.pages.base import PageKind, join_names
from sitegen.kinds.pages.chapter import KIND as CHAPTERS
from sitegen.markup.anchors import is_reserved_id
from sitegen.markup.tokens import CONTAINER_CLOSE, CONTAINER_OPEN, TOO_LONG, block_line, iterate_inline_children
from sitegen.messages import (
    BLOCK_MISPLACED,
    BLOCK_TOO_LONG,
    DERIVED_HEADING_ANCHOR_TAKEN,
    DERIVED_ID_TAKEN,
    HEADING_ANCHOR_TAKEN,
    ID_TAKEN,
    IMAGE_IN_PROSE,
    LINK_REFUSED,
    NESTED_TOO_DEEPLY,
    PAGE_TITLE_HEADING,
    RESERVED_ID,
    STRAY_CONTAINER_CLOSE,
    TABLE_FORMULA_BAR,
    TABLE_ROW_CELLS,
    UNCLOSED_COMPUTED_VALUE,
    UNCLOSED_CONTAINER,
    UNCLOSED_DOLLAR,
    UNCLOSED_FENCE,
    UNEXPECTED_MARKDOWN_FILE,
    UNKNOWN_BLOCK_KIND,
)
from sitegen.model import (
    Figure,
    Formula,
    InternalLink,
    NameUse,
    Page,
    ParsedProject,
    Project,
    Source,
    Term,
)
from sitegen.read.figures import parse_figure
from sitegen.read.front_matter import read_front_matter
from sitegen.read.references import can_read_entries, parse_references

# A fence whose info string starts with {kind} is a block (```{python}); ```python stays a code block.
FENCE_KIND = re.compile(r"\{([A-Za-z][\w-]*)\}")


PageParser = Callable[[Source, str, int, dict[str, str]], Page]
FigureParser = Callable[[Source], tuple[Figure | None, list[Diagnostic]]]


def parse_project(project: Project, parse: PageParser | None = None, parse_svg: FigureParser = parse_figure) -> ParsedProject:
    """Parse every source of the project; collect each one's own problems.

    `parse` replaces `parse_page` (the dev server passes one that reuses the
    pages whose text did not change); `parse_svg` replaces `parse_figure` (a
    copy of the build parses the figures: beside.py).
    """
    parse_page_text = parse or parse_page
    core = dict(project.core_modules)
    chapter_count = max(len(project.chapters), 1)
    problems: list[Diagnostic] = []
    chapters = [parse_page_text(source, CHAPTERS.name, chapter_count, core) for source in project.chapters]
    chapters.sort(key=lambda page: (page.chapter.number if page.chapter else 99, page.source.name))
    pages: list[Page] = []
    for kind in PAGE_KINDS.values():
        if kind is CHAPTERS:
            pages += chapters
            continue
        source = project.source_of(kind.name)
        if source is not None:
            pages.append(parse_page_text(source, kind.name, chapter_count, core))
        elif kind.missing is not None:
            problems.append(report(Location(f"{project.content_label}/{kind.source_name}", 0), kind.missing))
    others = join_names([kind.source_name for kind in list_single_pages()])
    for stray in project.stray_markdown:
        problems.append(report(stray.at(0), UNEXPECTED_MARKDOWN_FILE, others=others))
    references, reference_problems = parse_references(project.references)
    problems += reference_problems
    figures = []
    for source in project.figures:
        figure, figure_problems = parse_svg(source)
        problems += figure_problems
        if figure is not None:
            figures.append(figure)
    for page in pages:
        problems += page.problems
    return ParsedProject(
        pages=tuple(pages),
        chapters=tuple(chapters),
        references=references,
        figures=tuple(figures),
        problems=tuple(problems),
        has_references_file=project.references is not None,
        references_readable=bool(references) or can_read_entries(project.references),
    )


def parse_page(source: Source, kind: str, chapter_count: int, core_modules: dict[str, str]) -> Page:
    """Parse one Markdown page of a kind (kinds/pages/) and collect what it uses and its own problems."""
    page_kind = PAGE_KINDS[kind]
    tokens = create_markdown().parse(source.text, {})
    front_matter, problems = read_front_matter(source, tokens, page_kind.fields, chapter_count)
    title = typeset_plain_text(front_matter.title or "")
    lede = typeset_plain_text(front_matter.lede or "")
    output_name, chapter, place_problems = page_kind.place(source, front_matter, title, lede)
    problems += place_problems
    collected = collect_page_contents(source, tokens, page_kind, core_modules)
    return Page(
        kind=kind,
        source=source,
        output_name=output_name,
        title=title,
        lede=lede,
        chapter=chapter,
        tokens=tuple(tokens),
        anchors=frozenset(collected.anchors),
        uses=tuple(collected.uses),
        links=tuple(collected.links),
        formulas=tuple(collected.formulas),
        terms=tuple(collected.terms),
        has_lab=collected.needs_lab_runtime,
        records=tuple((key, tuple(items)) for key, items in collected.records.items()),
        problems=tuple(problems + collected.problems),
    )


class PageContents:
    """What one walk over a page's tokens finds (a scratch pad, filled by collect_page_contents)."""

    def __init__(self) -> None:
        self.anchors: list[str] = []
        self.block_anchors: set[str] = set()  # a figure's, lab's or exercise's: the templates derive `ANCHOR-…` ids from it
        self.uses: list[NameUse] = []
        self.links: list[InternalLink] = []
        self.formulas: list[Formula] = []
        self.terms: list[Term] = []
        self.problems: list[Diagnostic] = []
        self.block_counts: dict[str, int] = {}  # kind name -> blocks of that kind checked so far
        self.needs_lab_runtime = False
        self.records: dict[str, list[object]] = {}  # what block kinds recorded (BlockKind.record), by their keys

    def add_record(self, key: str, item: object) -> None:
        """Keep what a block kind records on the page, under its key, in reading order."""
        self.records.setdefault(key, []).append(item)


class OpenBlock:
    """A block the walk is inside: its kind's name, where it opened, its `Block` once checked, and its checked children."""

    def __init__(self, kind: str, location: Location) -> None:
        self.kind = kind
        self.location = location
        self.block: Block | None = None
        self.children: list[Block] = []


def collect_page_contents(source: Source, tokens: list[Token], kind: PageKind, core_modules: dict[str, str]) -> PageContents:
    """Walk the tokens once: check containers and headings, and record every use of a name."""
    found = PageContents()
    lines = source.text.split("\n")
    open_blocks: list[OpenBlock] = []
    for token in tokens:
        line = block_line(token)
        if token.type == "heading_open":
            if token.tag == "h1":
                found.problems.append(report(source.at(line), PAGE_TITLE_HEADING))
            anchor = token.attrGet("id")
            if anchor:
                found.anchors.append(str(anchor))
        elif token.type == CONTAINER_OPEN:
            opened = check_block_start(source, token, open_blocks[-1] if open_blocks else None, lines, core_modules, found)
            assert opened is not None, "every container is a block, checked or not"
            open_blocks.append(opened)
        elif token.type == CONTAINER_CLOSE:
            check_block_end(open_blocks.pop(), found)
        elif token.type == "fence":
            fenced = check_block_start(source, token, open_blocks[-1] if open_blocks else None, lines, core_modules, found)
            if fenced is not None:
                check_block_end(fenced, found)
        elif token.type in ("math_block", "math_block_label"):
            found.formulas.append(Formula(token.content.strip(), True, source.at(line)))
        elif token.type == NESTING_TOO_DEEP:
            found.problems.append(
                report(source.at(line), NESTED_TOO_DEEPLY, limit=token.meta["limit"], lost=describe_lost_lines(token, len(lines)))
            )
        elif token.meta.get(USES):  # links a scheme moved out of the prose (the sources line)
            for use in token.meta[USES]:
                found.uses.append(NameUse(use["key"], source.at(use["line"]), use["anchor"], use["scheme"]))
    kind.collect(source, tokens, found)
    for _inline, child, line in iterate_inline_children(tokens):
        collect_inline(source, child, line, found)
    check_unclosed_math(source, tokens, found)
    check_table_rows(source, tokens, lines, found)
    check_inline_ids(source, tokens, found)
    check_unique_anchors(source, tokens, found)
    return found


def describe_lost_lines(marker: Token, line_count: int) -> str:
    """Say which lines markdown-it would drop where lists, quotes and containers nest deeper than its limit."""
    first, end = marker.map or (0, 0)
    end = min(end, line_count)
    return f"line {first + 1}" if end <= first + 1 else f"lines {first + 1} to {end}"


def count_cells(line: str) -> int:
    """Count a table row's cells as markdown-it splits them: on each `|` not escaped, outer pipes optional."""
    cells = escapedSplit(line.strip())
    if cells and cells[0] == "":
        cells.pop(0)
    if cells and cells[-1] == "":
        cells.pop()
    return len(cells)


# A formula in a table row with `\|` in it: GFM reads `\|` as an escaped cell border before the math is seen.
_BAR_IN_TABLE_FORMULA = re.compile(r"\$(?<!\\\$)[^$]*?\\\|[^$]*?\$")  # `\$(?<!\\\$)`: see check/markdown.py


def check_table_rows(source: Source, tokens: list[Token], lines: list[str], found: PageContents) -> None:
    """A body row must have as many cells as its table's header: markdown-it drops extra cells and pads missing ones silently.

    And no row's formula may use `\\|`: the table takes it as an escaped border, so KaTeX gets a single bar.
    """
    columns = 0
    for token in tokens:
        if token.type == "tr_open" and token.map and _BAR_IN_TABLE_FORMULA.search(lines[block_line(token) - 1]):
            found.problems.append(report(source.at(block_line(token)), TABLE_FORMULA_BAR))
        if token.type == "thead_open":
            columns = 0  # the header row's own tr_open comes before its cells are counted, so it is never checked
        elif token.type == "th_open":
            columns += 1
        elif token.type == "tr_open" and columns and token.map:
            line = block_line(token)
            cells = count_cells(lines[line - 1])
            if cells != columns:
                what = "the extra cells would be dropped" if cells > columns else "the missing cells would be left empty"
                found.problems.append(report(source.at(line), TABLE_ROW_CELLS, cells=cells, columns=columns, consequence=what))


def check_inline_ids(source: Source, tokens: list[Token], found: PageContents) -> None:
    """An id given in the prose (`[text](url){#name}`) must be neither a template's id (nor one it derives from a block's
    anchor) nor one the page already has."""
    taken = set(found.anchors) | {
        str(token.attrGet("id")) for token in tokens if token.type == "heading_open" and token.attrGet("id")
    }
    for _inline, child, line in iterate_inline_children(tokens):
        if child.attrGet("id") is None:
            continue
        given = str(child.attrGet("id"))
        if is_reserved_id(given):
            found.problems.append(report(source.at(line), RESERVED_ID, id=given))
        elif owner := find_derived_owner(given, found.block_anchors):
            found.problems.append(report(source.at(line), DERIVED_ID_TAKEN, id=given, owner=owner))
        elif given in taken:
            found.problems.append(report(source.at(line), ID_TAKEN, id=given))
        taken.add(given)


def check_unclosed_math(source: Source, tokens: list[Token], found: PageContents) -> None:
    """Warn about a `$` or `$$` that opens a formula never closed: the reader would see it as literal text."""
    for token in tokens:
        if token.type == "inline" and TOO_LONG in token.meta:
            found.problems.append(
                report(source.at(block_line(token)), BLOCK_TOO_LONG, length=token.meta[TOO_LONG], limit=INLINE_TEXT_LIMIT)
            )
        if token.type != "inline" or "$" not in token.content:
            continue
        unclosed = find_unclosed_dollar(token.content)
        if unclosed is not None:
            offset, marker = unclosed
            found.problems.append(
                report(source.at(block_line(token) + token.content.count("\n", 0, offset)), UNCLOSED_DOLLAR, marker=marker)
            )


def check_unique_anchors(source: Source, tokens: list[Token], found: PageContents) -> None:
    """A heading must not take an anchor that a figure, lab, exercise or glossary term on the same page has, nor one the
    template derives from a figure's, lab's or exercise's anchor (`lab-2-seed`). (The template's own ids it never takes:
    check/markdown.py numbers a heading past them.)"""
    generated = {anchor for anchor, count in Counter(found.anchors).items() if count > 1}  # linear: 40 000 headings
    for token in tokens:
        if token.type != "heading_open" or token.attrGet("id") is None:
            continue
        anchor = str(token.attrGet("id"))
        if owner := find_derived_owner(anchor, found.block_anchors):
            found.problems.append(report(source.at(block_line(token)), DERIVED_HEADING_ANCHOR_TAKEN, anchor=anchor, owner=owner))
        if anchor in generated:
            found.problems.append(report(source.at(block_line(token)), HEADING_ANCHOR_TAKEN, anchor=anchor))


def find_derived_owner(anchor: str, block_anchors: set[str]) -> str:
    """Return the block anchor whose derived ids (`lab-2-seed`, `exercise-1-title`) `anchor` falls among, or ""."""
    start = anchor.find("-")
    while start != -1:  # each start of the anchor at a hyphen: as long as the anchor, not as many as the blocks
        if anchor[:start] in block_anchors:
            return anchor[:start]
        start = anchor.find("-", start + 1)
    return ""


_COLLECTED_INLINE = frozenset({"link_open", "image", "math_inline", COMPUTED_VALUE, "text"})


def collect_inline(source: Source, child: Token, line: int, found: PageContents) -> None:
    """Record one inline token's use of a link scheme (term, source, figure...), a page or a formula; compute values."""
    if child.type not in _COLLECTED_INLINE or (child.type == "text" and "{{" not in child.content):
        return  # most children are plain text: skip them before making a Location (a long book has ~30 000)
    location = source.at(line)
    if child.type == "link_open":
        kind = child.meta.get(LINK_KIND)
        if kind in SCHEMES and "key" in child.meta:
            found.uses.append(NameUse(child.meta["key"], location, child.meta.get("anchor", ""), kind))
        elif kind == "refused":
            found.problems.append(report(location, LINK_REFUSED))
        elif kind == "internal":
            found.links.append(InternalLink(child.meta["page"], child.meta["anchor"], location))
    elif child.type == "image":
        found.problems.append(report(location, IMAGE_IN_PROSE))
    elif child.type == "math_inline":
        found.formulas.append(Formula(child.content.strip(), False, location))
    elif child.type == COMPUTED_VALUE:
        try:
            child.meta["text"] = compute_value(child.content)
        except ComputedValueError as error:
            found.problems.append(error.problem.at(location))
    elif child.type == "text" and "{{" in child.content:
        found.problems.append(report(location, UNCLOSED_COMPUTED_VALUE))


def check_block_start(
    source: Source,
    token: Token,
    parent: OpenBlock | None,
    lines: list[str],
    core_modules: dict[str, str],
    found: PageContents,
) -> OpenBlock | None:
    """Check a `:::` container's opening (or a ```` ```{kind} ```` fence) with its kind; store the `Block` in its meta.

    Returns what the walk keeps for the block while it is open (None for an
    ordinary fence, which is no block).
    """
    location = source.at(block_line(token))
    if token.type == "fence":
        match = FENCE_KIND.match(token.info)
        if match is None:
            return None
        syntax: Syntax = "fence"
        name, words = match.group(1), token.info[match.end() :].split()
    else:
        syntax = "container"
        words = token.info.split()
        name, words = (words[0], words[1:]) if words else ("", [])
    opened = OpenBlock(name, location)
    if syntax == "fence" and runs_to_end_unclosed(token, lines):
        found.problems.append(report(location, UNCLOSED_FENCE, name=name, marker=token.markup))
        return opened
    if syntax == "container":
        if not name:
            found.problems.append(report(location, STRAY_CONTAINER_CLOSE))
            return opened
        closing_line = token.map[1] if token.map else len(lines)
        closed = closing_line < len(lines) and re.fullmatch(rf":{{{len(token.markup)},}}\s*", lines[closing_line].strip() or "-")
        if not closed:
            found.problems.append(report(location, UNCLOSED_CONTAINER, name=name, marker=token.markup))
    kind = find_kind(syntax, name)
    if kind is None:
        known = list_kind_names(syntax)
        written = name if syntax == "container" else f"{{{name}}}"
        found.problems.append(
            report(
                location,
                UNKNOWN_BLOCK_KIND,
                syntax=syntax_noun(syntax),
                name=written,
                suggestion=suggest_name(name, known),
                known=", ".join(known) or "none",
            )
        )
        return opened
    parent_kind = parent.kind if parent else TOP_LEVEL
    if kind.parents is not None and parent_kind not in kind.parents:
        reason = f" ({kind.parents_reason})" if kind.parents_reason else ""
        found.problems.append(
            report(
                location,
                BLOCK_MISPLACED,
                kind=with_article(name),
                syntax=syntax_noun(syntax),
                places=describe_parents(kind.parents),
                reason=reason,
            )
        )
        return opened
    start = BlockStart(
        kind=name,
        location=location,
        arguments=tuple(words),
        content=token.content if syntax == "fence" else "",
        parent=parent.block if parent else None,
        number=found.block_counts.get(name, 0) + 1,
        core_modules=core_modules,
    )
    try:
        data = kind.check(start)
    except BlockError as error:
        found.problems.append(error.diagnostic)
        return opened
    found.block_counts[name] = start.number
    opened.block = Block(name, location, data)
    token.meta[BLOCK] = opened.block
    anchor = kind.anchor(data)
    if anchor is not None:
        found.anchors.append(anchor)
        found.block_anchors.add(anchor)
    kind.record(data, location, found)
    found.needs_lab_runtime = found.needs_lab_runtime or kind.needs_lab_runtime
    if parent is not None and parent.block is not None:
        parent.children.append(opened.block)
    return opened


def runs_to_end_unclosed(fence: Token, lines: list[str]) -> bool:
    """Say whether a fence has no closing marker (markdown-it then runs it to the end of the file)."""
    if not fence.map:
        return False
    start, end = fence.map
    closing = lines[end - 1].strip() if start < end - 1 < len(lines) else ""
    return not (len(closing) >= len(fence.markup) and set(closing) == {fence.markup[0]})


def syntax_noun(syntax: Syntax) -> str:
    """Return what authors call a block written this way."""
    return "container" if syntax == "container" else "fenced block"


def check_block_end(opened: OpenBlock, found: PageContents) -> None:
    """A container closed: let its kind check what it held."""
    if opened.block is not None:
        found.problems.extend(KINDS[opened.kind].check_children(opened.block, opened.children))
