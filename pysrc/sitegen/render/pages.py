"""Turn parsed pages into HTML with Jinja2 (StrictUndefined): one pure function per page.

`render_page(page, site)` depends only on the page's tokens and the shared
`SiteContext` (figure numbers, math, term users, asset URLs), so a watcher can
re-render just the pages a change affects.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache, lru_cache
from html import escape
from pathlib import Path
from urllib.parse import urlsplit

import jinja2
from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict
from markupsafe import Markup

from sitegen.assets.site_root import EARLY_SNAPSHOT_SCRIPT, FIND_ROOT_SCRIPT, ROOT_MARKER, ROOT_MARKER_TEXT, allow_inline_script
from sitegen.check.markdown import build_markdown
from sitegen.context import SiteContext
from sitegen.diagnostics import BuildFailed, Diagnostic, Location, report
from sitegen.files.tool_cache import find_writable
from sitegen.kinds.blocks import KINDS
from sitegen.kinds.blocks.base import BLOCK, Block
from sitegen.kinds.links import SCHEMES
from sitegen.kinds.links.base import LINK_KIND, Preview
from sitegen.kinds.links.cite import format_authors
from sitegen.kinds.links.figure import format_figure_number
from sitegen.kinds.pages import PAGE_KINDS
from sitegen.markup.highlight import render_code_block
from sitegen.markup.tokens import CONTAINER_OPEN, find_matching
from sitegen.messages import (
    TEMPLATE_ERROR,
)
from sitegen.model import GLOSSARY_PAGE, NOT_FOUND_PAGE, NOTATION_PAGE, REFERENCES_PAGE, Page, Reference
from sitegen.render.page_meta import describe_citation, describe_last_updated
from sitegen.render.sitemap import page_url

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'self' blob:; style-src 'self'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'none'"
)
SITE_TITLE = "Rollouts"


@contextmanager
def report_template_errors() -> Iterator[None]:
    """Turn a Jinja error in site_templates/ into BuildFailed with one `path:line: template error: message`."""
    try:
        yield
    except jinja2.TemplateError as error:
        raise BuildFailed([describe_template_error(error)]) from None


def describe_template_error(error: Exception) -> Diagnostic:
    """Return a template error as `site_templates/NAME:LINE: template error: message`.

    A syntax error knows its template and line; an error while rendering
    (say, an undefined variable under StrictUndefined) is found in the
    innermost template frame of the traceback Jinja rewrites for it.
    """
    path = getattr(error, "filename", None) or ""
    line = getattr(error, "lineno", None) or 0
    if not path:
        for frame, frame_line in traceback.walk_tb(error.__traceback__):
            if frame.f_code.co_filename.startswith("site_templates/"):
                path, line = frame.f_code.co_filename, frame_line
    message = getattr(error, "message", None) or str(error)
    return report(Location(path or "site_templates", line), TEMPLATE_ERROR, problem=message)


class VersionedBytecodeCache(jinja2.FileSystemBytecodeCache):
    """Jinja's file cache with one file per version of a template, not one per name.

    The cache lives with the installed tool (node_modules/.cache), which worktrees and checkouts of other versions
    share: keyed by name alone, each would overwrite the other's compiled template on every cold build.
    """

    def get_bucket(self, environment: jinja2.Environment, name: str, filename: str | None, source: str) -> jinja2.bccache.Bucket:
        return super().get_bucket(environment, name, f"{filename}\0{self.get_source_checksum(source)}", source)


@cache
def create_environment(templates: tuple[tuple[str, str], ...], cache_folder: Path | None = None) -> jinja2.Environment:
    """Return a Jinja environment over the loaded templates; an undefined variable is an error, not ''.

    With a cache folder, compiled templates are kept there between builds
    (keyed by each template's checksum, like .pyc files), which saves most of
    the time Jinja spends on a cold start.
    """
    bytecode_cache = None
    writable = find_writable(cache_folder) if cache_folder is not None else None
    if writable is not None:
        bytecode_cache = VersionedBytecodeCache(str(writable))
    sources = dict(templates)

    def load_template(name: str) -> tuple[str, str, Callable[[], bool]] | None:
        # The file name makes Jinja's errors (and build.py's report of them) name site_templates/NAME.
        return (sources[name], f"site_templates/{name}", lambda: True) if name in sources else None

    environment = jinja2.Environment(
        loader=jinja2.FunctionLoader(load_template),
        bytecode_cache=bytecode_cache,
        undefined=jinja2.StrictUndefined,
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    environment.globals.update(
        site_title=SITE_TITLE,
        format_figure_number=format_figure_number,
        format_authors=format_authors,
    )
    return environment


# --- Markdown rendering rules that need the site ----------------------------


def _site(env: EnvType) -> SiteContext:
    site: SiteContext = env["site"]
    return site


def render_math_inline(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """Write KaTeX's HTML for inline math."""
    result = _site(env).math.get((tokens[index].content.strip(), False))
    return result.html if result and result.html else f'<code class="math-source">{escape(tokens[index].content)}</code>'


def render_math_block(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """Write KaTeX's HTML for display math (KaTeX wraps it in .katex-display)."""
    result = _site(env).math.get((tokens[index].content.strip(), True))
    html = result.html if result and result.html else f"<pre>{escape(tokens[index].content)}</pre>"
    # Not a tab stop by itself: reader.js makes a formula focusable only while it scrolls sideways
    # (a narrow screen), so keyboard users can scroll it and nobody else tabs through every equation.
    return f'<div class="math-display">{html}</div>\n'


def render_link_open(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """Write a link; a link scheme's (term:, cite:, figure:, ...) is its module's to write."""
    scheme = SCHEMES.get(tokens[index].meta.get(LINK_KIND, ""))
    if scheme is not None:
        return scheme.render_open(self, tokens, index, options, env)
    return self.renderToken(tokens, index, options, env)


def render_table_open(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """Wrap tables so a wide one scrolls on a narrow screen instead of widening the page."""
    return '<div class="table-wrap" tabindex="0">\n<table>\n'


def render_table_close(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """Close the table and its wrapper."""
    return "</table>\n</div>\n"


def render_fence(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """Write a fenced code block (not a block kind) highlighted by Pygments, with a copy button."""
    info = tokens[index].info.strip()
    return render_code_block(tokens[index].content, info.split(maxsplit=1)[0] if info else "")


def render_indented_code(self: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
    """Write an indented code block like a fence without a language."""
    return render_code_block(tokens[index].content, "")


@cache
def create_renderer() -> MarkdownIt:
    """Return a parser of its own with the site-aware render rules (the shared one stays as markdown.py made it)."""
    md = build_markdown()
    md.add_render_rule("math_inline", render_math_inline)
    md.add_render_rule("math_block", render_math_block)
    md.add_render_rule("link_open", render_link_open)
    md.add_render_rule("table_open", render_table_open)
    md.add_render_rule("table_close", render_table_close)
    md.add_render_rule("fence", render_fence)
    md.add_render_rule("code_block", render_indented_code)
    for scheme in SCHEMES.values():
        scheme.add_render_rules(md)
    for kind in PAGE_KINDS.values():
        kind.add_render_rules(md)
    return md


def render_markdown(
    tokens: Sequence[Token], page: Page, site: SiteContext, blocks: list[tuple[Block, Markup]] | None = None
) -> str:
    """Render a page body: ordinary tokens by markdown-it, blocks by their kinds' partials.

    Pass a list as `blocks` to receive every block with its rendered body, in reading order.
    """
    md = create_renderer()
    if tokens and tokens[0].type == "front_matter":
        # A hidden token makes markdown-it open the next block with a blank line.
        tokens = tokens[1:]
    # The page itself for the links that read its blocks (a `lab:` link sets one of its labs).
    env = {"site": site, "page_name": page.output_name, "page_kind": page.kind, "page": page}
    environment = create_environment(site.templates, site.template_cache)

    def render_range(start: int, end: int) -> str:
        parts = []
        run_start = position = start
        while position < end:
            token = tokens[position]
            block: Block | None = token.meta.get(BLOCK)
            if block is None:
                position += 1
                continue
            parts.append(md.renderer.render(list(tokens[run_start:position]), md.options, env))
            closing = find_matching(tokens, position) if token.type == CONTAINER_OPEN else position
            body = Markup(render_range(position + 1, closing))
            if blocks is not None:
                blocks.append((block, body))
            kind = KINDS[block.kind]
            parts.append(environment.get_template(kind.partial).render(**kind.render_context(block.data, body, site)))
            position = run_start = closing + 1
        parts.append(md.renderer.render(list(tokens[run_start:end]), md.options, env))
        return "".join(parts)

    return render_range(0, len(tokens))


# --- whole pages -------------------------------------------------------------


@lru_cache(maxsize=2)
def find_preview_renderer(site: SiteContext) -> Callable[[Sequence[Token]], str]:
    """Return the renderer of previewed Markdown (a glossary definition), one per site context, so schemes can cache by it."""
    md = create_renderer()
    env = {"site": site, "page_name": GLOSSARY_PAGE, "page_kind": "preview"}
    return lambda tokens: md.renderer.render(list(tokens), md.options, env)


def collect_previews(page: Page, site: SiteContext) -> list[Preview]:
    """Return the previews a page carries: each thing its links name, once, scheme by scheme in the page's reading order."""
    render_tokens = find_preview_renderer(site)
    previews: list[Preview] = []
    for name, scheme in SCHEMES.items():
        previews += scheme.previews(list(dict.fromkeys(use.key for use in page.uses_of(name))), site, render_tokens)
    return previews


def list_cited_references(page: Page, site: SiteContext) -> tuple[Reference, ...]:
    """Return the sources a page cites, once each, in the order it first cites them (a chapter prints them)."""
    keys = dict.fromkeys(use.key for use in page.citations)
    return tuple(site.references_by_key[key] for key in keys if key in site.references_by_key)


def describe_head(
    site: SiteContext, page_name: str, previews: Sequence[Preview] = (), has_math: bool = False
) -> dict[str, object]:
    """Return what base.html needs on every page: assets, canonical URL, search index, previews.

    `has_math`: the page (or a preview on it) shows math, so it links KaTeX's
    stylesheets; pages without math spare the reader two render-blocking requests.
    """
    return {
        "has_math": has_math,
        "assets": site.assets,
        "page_name": page_name,
        "canonical_url": page_url(site.base_url, page_name) if site.base_url and page_name != NOT_FOUND_PAGE else "",
        "base_url": site.base_url,
        "search_index": site.search_index,
        "notation_page": NOTATION_PAGE if site.has_notation else "",
        "previews": previews,
        # Links are relative, except on the 404 page of a site with a base URL: hosts serve it
        # at any missing address (/rollouts/a/b), where relative links would point nowhere.
        "root": urlsplit(site.base_url).path if site.base_url and page_name == NOT_FOUND_PAGE else "",
        "cells": None,
        "has_code": False,
        "head_script": Markup(site.head_script),
        "early_snapshot_script": "",  # a lab page's, when its labs read the address (render_page)
        # Markup: the policy's single quotes must reach the page as written, not as &#39;.
        "content_security_policy": Markup(allow_inline_script(CONTENT_SECURITY_POLICY, site.head_script))
        if site.head_script
        else Markup(CONTENT_SECURITY_POLICY),
    }


def collect_page_variables(blocks: Sequence[tuple[Block, Markup]]) -> dict[str, object]:
    """Return what every block kind adds to its page's template (`BlockKind.page_context`), from the page's rendered blocks."""
    variables: dict[str, object] = {}
    for name, kind in KINDS.items():
        variables.update(kind.page_context([(block.data, body) for block, body in blocks if block.kind == name]))
    return variables


def render_page(page: Page, site: SiteContext) -> str:
    """Return the complete HTML of one Markdown page."""
    environment = create_environment(site.templates, site.template_cache)
    blocks: list[tuple[Block, Markup]] = []
    body = Markup(render_markdown(page.tokens, page, site, blocks))
    previews = collect_previews(page, site)
    common = {
        **describe_head(
            site,
            page.output_name,
            previews,
            has_math=bool(page.formulas) or any('class="katex' in preview.body for preview in previews),
        ),
        "cited_references": list_cited_references(page, site),
        "page": page,
        "body": body,
        "lab": site.lab if page.has_lab else None,
        "chapter_total": len(site.chapters),
        "cells": site.cell_assets if page.cells else None,
        "has_code": "data-copy-code" in body,
        "last_updated": describe_last_updated(dict(site.last_updated).get(page.source.name, "")),
        "citation": describe_citation(site.site_config, page, page_url(site.base_url, page.output_name) if site.base_url else ""),
        **collect_page_variables(blocks),
    }
    if page.has_lab and site.lab is not None and site.lab.runtime.snapshot and common["lab_address_parameters"]:
        common["early_snapshot_script"] = Markup(EARLY_SNAPSHOT_SCRIPT)
        common["content_security_policy"] = Markup(
            allow_inline_script(str(common["content_security_policy"]), EARLY_SNAPSHOT_SCRIPT)
        )
    kind = PAGE_KINDS[page.kind]
    return environment.get_template(kind.template).render(**kind.template_context(page, site), **common)


def render_references_page(site: SiteContext) -> str:
    """Return the references page: every entry in full, in the order of references.yaml."""
    return (
        create_environment(site.templates, site.template_cache)
        .get_template("references.html")
        .render(
            references=site.references,
            lab=None,
            description="The works the tutorial cites, in full.",
            **describe_head(site, REFERENCES_PAGE),
        )
    )


def render_offline_page(site: SiteContext, page_name: str) -> str:
    """Return the page the service worker shows for a page it did not keep, while offline: links to every kept page."""
    return (
        create_environment(site.templates, site.template_cache)
        .get_template(page_name)
        .render(
            chapters=site.chapters,
            lab=None,
            description="You are offline; these pages were kept for offline reading.",
            **{**describe_head(site, page_name), "canonical_url": ""},
        )
    )


def render_not_found_page(site: SiteContext) -> str:
    """Return the 404 page: links from the base URL's path, or, without one, a script that finds the root (site_root.py)."""
    head = describe_head(site, NOT_FOUND_PAGE)
    finder = {}
    if not site.base_url:
        policy = str(head["content_security_policy"])
        head["content_security_policy"] = Markup(allow_inline_script(policy, FIND_ROOT_SCRIPT))
        finder = {"root_marker": ROOT_MARKER, "root_marker_text": ROOT_MARKER_TEXT}
    return (
        create_environment(site.templates, site.template_cache)
        .get_template("404.html")
        .render(
            chapters=site.chapters,
            lab=None,
            description="This page does not exist.",
            find_root=Markup(FIND_ROOT_SCRIPT) if not site.base_url else "",
            **finder,
            **head,
        )
    )
