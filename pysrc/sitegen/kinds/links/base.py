"""What every link scheme says about itself: the interface markdown.py, parse.py, validate.py and render use.

A *link scheme* is a link whose address names something of the site rather
than a page: `[reward](term:)` (a glossary term), `[§3](cite:ppo#methods)` (a
source), `[](figure:context-growth)` (a figure's number), `[run](recorded:)`
(the recorded run), `[set T = 2](lab:sampler?T=2)` (settings for the page's lab). Each scheme is one module in kinds/links/ with a
`LinkScheme` subclass, registered in `SCHEMES` (kinds/links/__init__.py), and
the module holds the whole convention:

- parse: `classify` reads the address after the prefix into the link
  token's meta (`key`, `anchor`) and rewrites `href` where no other page is
  needed; `add_parse_rules` adds markdown-it rules of the scheme's own (the
  citations' move to a sources line). A link with a `key` is a *use*
  (`NameUse`, scheme = the scheme's name), collected on its page in reading
  order (`Page.uses`).
- check: `check(parsed, figure_files)` returns the problems across pages
  (an unknown key, a key nobody uses), each at its `file:line`.
- render: `render_open` writes the link's opening tag (it sees the site
  through `env["site"]`, a `SiteContext`); `add_render_rules` renders tokens
  the scheme made.
- preview: `previews` returns what a reader sees on pointing at the page's
  links of this scheme (a glossary definition, a source's full entry), carried
  by the page as inert <template>s (partials/previews.html).

Adding a scheme is one module (and, when its links render through a partial,
its template); tests/site/kinds/test_link_schemes.py adds one the way a test would.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup

from sitegen.context import SiteContext
from sitegen.diagnostics import Diagnostic
from sitegen.model import NameUse, Page, ParsedProject

# The token.meta key naming a link's scheme (or "internal", "external", "refused" for the other links).
LINK_KIND = "kind"
# The token.meta key of a block token holding the uses it carries ({"scheme", "key", "anchor", "line"} each):
# links a scheme moved out of the prose (the sources line after a paragraph).
USES = "uses"
# Renders a run of a page's tokens with the site's Markdown renderer (what a preview shows of a glossary definition).
RenderTokens = Callable[[Sequence[Token]], str]


@dataclass(frozen=True)
class Preview:
    """What a popover shows for one linked thing: its address (the link's href), kind, title and body HTML."""

    address: str
    label: str
    title: str
    body: Markup


class LinkScheme:
    """One link scheme. Subclasses set `name` (the address starts with `name:`) and implement `classify`."""

    name: ClassVar[str]
    # The SiteContext fields `render_inputs` reads in parts (the dev server compares every other field whole).
    site_fields: ClassVar[frozenset[str]] = frozenset()

    @property
    def prefix(self) -> str:
        """Return the start of the addresses this scheme owns, e.g. "cite:"."""
        return f"{self.name}:"

    def classify(self, link: Token, target: str, siblings: Sequence[Token]) -> None:
        """Read `target` (the address after the prefix) into `link.meta`; set `key` to make the link a use.

        `siblings` are the inline tokens the link stands among (its text is
        `link_text(siblings, link)`). Runs while the page is parsed: it must
        not depend on any other page.
        """
        raise NotImplementedError

    def add_parse_rules(self, md: MarkdownIt) -> None:
        """Add markdown-it rules of the scheme's own to the shared parser (default: none)."""

    def page_ids(self, link: Token) -> Iterable[str]:
        """Return the ids the page may carry for this link when rendered, which no heading may take (default: none)."""
        return ()

    def check(self, parsed: ParsedProject, figure_files: Mapping[str, str]) -> Iterable[Diagnostic]:
        """Return the problems with this scheme's uses across the site (default: none)."""
        return ()

    def render_open(self, renderer: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
        """Return the link's opening tag (default: markdown-it's, with the href `classify` left)."""
        return renderer.renderToken(tokens, index, options, env)

    def add_render_rules(self, md: MarkdownIt) -> None:
        """Add render rules for tokens the scheme made (default: none)."""

    def render_inputs(self, page: Page, site: SiteContext) -> tuple[object, ...]:
        """Return what this scheme's links on `page` read of the site when rendered (default: nothing), for the
        dev server's incremental rebuild (serve/incremental.py) to compare; the fields it reads are `site_fields`."""
        return ()

    def previews(self, keys: Sequence[str], site: SiteContext, render_tokens: RenderTokens) -> list[Preview]:
        """Return the previews of the things `keys` name, in that order, skipping unknown keys (default: none).

        `render_tokens` is stable for one site, so a scheme may cache what it renders per site.
        """
        return []


def site_of(env: EnvType) -> SiteContext:
    """Return the site a page is rendered in (the renderer's env carries it)."""
    site: SiteContext = env["site"]
    return site


def link_text(siblings: Sequence[Token], link_open: Token) -> str:
    """Return the plain text between a link_open and its link_close."""
    index = siblings.index(link_open)
    parts = []
    for child in siblings[index + 1 :]:
        if child.type == "link_close":
            break
        parts.append(child.content)
    return "".join(parts)


def list_uses(pages: Iterable[Page], scheme: str) -> Iterator[tuple[Page, NameUse]]:
    """Yield every use of a scheme with its page, pages in the order given, uses in reading order."""
    for page in pages:
        for use in page.uses_of(scheme):
            yield page, use
