"""What every block kind says about itself: the interface check/parse.py and render/pages.py use, and nothing else.

A *block* is a piece of a page that is not plain Markdown: a figure, an
exercise, a lab, ... Authors write one in either of two ways:

    ::: figure context-growth          ```{python} key=value
    caption in Markdown                print("source text")
    :::                                ```

A `:::` container (``syntax = "container"``) holds Markdown, rendered and
passed to the partial as `body`; a fenced block (``syntax = "fence"``, info
string ``{name}`` in braces) holds raw text, passed to `check` as
`start.content`. A fence whose info does not start with ``{`` (```` ```python ````)
stays an ordinary code block.

Adding a kind is one module, one partial and two fixtures:

1. ``pysrc/sitegen/kinds/blocks/NAME.py`` with a frozen dataclass for the block's
   data and a `BlockKind` subclass that sets `name`, `syntax`, `partial` (and
   `parents` when the kind may appear only inside certain others), and
   implements `check` and `render_context`; add the instance to `KINDS` in
   ``kinds/blocks/__init__.py``.
2. ``site_templates/partials/NAME.html``, rendered with what `render_context`
   returns (Jinja, StrictUndefined, autoescaped).
3. A case in ``tests/site/render_fixtures/`` that uses the kind and one in
   ``tests/site/bad_inputs/`` whose expected output has a problem on the
   block's opening line. ``tests/site/kinds/test_block_registry.py`` checks all
   three for every registered kind.

The life of a block:

- parse (parse.py) finds the opening token, builds a `BlockStart` (where it
  is, its words, its parent, how many of this kind came before on the page)
  and checks the parent against `parents`; then `kind.check(start)` returns
  the data or raises `start.fail(message)`, reported as ``path:line:
  message``. `anchor`, `record` and `check_children` let a kind add to the
  page's anchors and records (figure placements, cells) and check what it contains. The data
  is stored on the token as a `Block` (``token.meta["block"]``), the only
  key render reads; tokens are read-only after parsing.
- validate (check/validate.py) asks every kind's `check_across_pages` for
  the problems only the whole site shows (a figure shown twice, or never),
  as it asks every link scheme's `check`.
- render (render/pages.py) renders a container's inner tokens to HTML (`body`),
  then ``environment.get_template(kind.partial).render(**kind.render_context(
  data, body, site))``. A block's HTML depends only on its data, its body and
  the `SiteContext`, so incremental rebuilds stay byte-identical to full ones.
  `page_context` adds template variables for the whole page from the kind's
  rendered blocks (the chapter's printed answers).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Literal, Protocol, TypeVar

from markupsafe import Markup

from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic, Location, Message, report
from sitegen.model import Page, ParsedProject

Syntax = Literal["container", "fence"]
TOP_LEVEL = ""  # in `parents`: the block may stand directly in the page, outside any other block
BLOCK = "block"  # the token.meta key that holds a checked block's `Block`

Data = TypeVar("Data")


class BlockError(Exception):
    """A block's words are wrong; carries the diagnostic (file:line: message) to report."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.format())
        self.diagnostic = diagnostic


@dataclass(frozen=True)
class Block:
    """A checked block: its kind's name, where it opens, and the data its kind stored."""

    kind: str
    location: Location
    data: Any


@dataclass(frozen=True)
class BlockStart:
    """What a kind's `check` gets to look at: the block as written and where it stands.

    `arguments` are the words after the kind's name (`::: lab sampler seed=3`
    gives ("sampler", "seed=3")); `content` is a fence's text ("" for a
    container); `parent` is the enclosing block (None at the top level, or
    when the enclosing block itself failed its check); `number` is 1 + how
    many blocks of this kind were checked before it on the page.
    """

    kind: str
    location: Location
    arguments: tuple[str, ...]
    content: str
    parent: Block | None
    number: int
    core_modules: Mapping[str, str]

    def fail(self, message: Message, **fields: object) -> BlockError:
        """Return the error to raise for a problem with this block (a catalogue entry, messages.py): reported at its opening line."""
        return BlockError(report(self.location, message, **fields))


class PageRecord(Protocol):
    """A page's scratch pad (parse.PageContents) as a kind's `record` sees it: records under keys of the kind's own.

    The page keeps them in order (`Page.records_of(key)`) for the stages after
    parsing: the cells to run, the figure placements to number and check.
    """

    def add_record(self, key: str, item: object) -> None:
        """Keep `item` on the page under `key`, after those kept before it."""


class BlockKind(Generic[Data]):
    """One kind of block. Subclasses set the class attributes and implement `check` and `render_context`."""

    name: ClassVar[str]
    syntax: ClassVar[Syntax] = "container"
    partial: ClassVar[str]  # a template under site_templates/, e.g. "partials/figure.html"
    # The kinds this one may stand directly inside (TOP_LEVEL for the page itself); None: anywhere.
    parents: ClassVar[frozenset[str] | None] = None
    # Why `parents` is what it is, added to the misplaced-block message ("" for none).
    parents_reason: ClassVar[str] = ""
    # A page with a block of this kind loads the lab's runtime (its script, worker and Pyodide).
    needs_lab_runtime: ClassVar[bool] = False
    # The SiteContext fields `render_inputs` reads in parts (the dev server compares every other field whole).
    site_fields: ClassVar[frozenset[str]] = frozenset()

    def check(self, start: BlockStart) -> Data:
        """Check the block's arguments (and content); return its data or raise `start.fail(message)`."""
        raise NotImplementedError

    def anchor(self, data: Data) -> str | None:
        """Return the block's anchor (its HTML id) when links may point at it."""
        return None

    def record(self, data: Data, location: Location, page: PageRecord) -> None:
        """Add what the rest of the build needs to know about this block to the page (default: nothing).

        A page-wide effect is declared here, under a key of the kind's own
        (`page.add_record(KEY, item)`), not by a field of the page named after the kind.
        """

    def check_children(self, block: Block, children: Sequence[Block]) -> Iterable[Diagnostic]:
        """Return problems with what a container holds, once it closes (`children`: its checked blocks, in order)."""
        return ()

    def check_across_pages(self, parsed: ParsedProject, figure_files: Mapping[str, str]) -> Iterable[Diagnostic]:
        """Return the problems with this kind's blocks that only the whole site shows (default: none).

        `figure_files`: every figure's file by its name (content/figures/ and the generated ones).
        """
        return ()

    def render_context(self, data: Data, body: Markup, site: SiteContext) -> Mapping[str, object]:
        """Return the variables the partial is rendered with; `body` is a container's rendered Markdown."""
        raise NotImplementedError

    def render_inputs(self, page: Page, site: SiteContext) -> tuple[object, ...]:
        """Return what this kind's blocks on `page` read of the site when rendered, beyond the page itself and
        `assets` (default: nothing), for the dev server's incremental rebuild (serve/incremental.py) to compare;
        the fields it reads are `site_fields`. A page without blocks of this kind reads nothing of them."""
        return ()

    def page_context(self, blocks: Sequence[tuple[Data, Markup]]) -> Mapping[str, object]:
        """Return the variables this kind adds to its page's template (default: none).

        A page-wide effect (the chapter's printed answers at its end) is declared
        here, not by a field of the page named after the kind. `blocks` holds this
        kind's blocks on the page in reading order, each with its rendered body
        (possibly none); a kind that adds variables adds them for every page, so
        the templates never meet an undefined name.
        """
        return {}


def describe_parents(parents: frozenset[str]) -> str:
    """Return "inside an 'exercise' container" / "at the top level of the page", joined with "or"."""
    places = [
        "at the top level of the page" if p == TOP_LEVEL else f"inside {with_article(p)} container" for p in sorted(parents)
    ]
    return " or ".join(places)


def with_article(kind: str) -> str:
    """Return "an 'answer'" or "a 'note'"."""
    return f"{'an' if kind[:1] in 'aeiou' else 'a'} '{kind}'"
