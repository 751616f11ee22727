"""The registry of block kinds: every kind is complete, and a kind written as a fence works like a container.

A kind is complete when it has its partial under site_templates/, a render
fixture that uses it (tests/site/render_fixtures/) and a bad-input case
(tests/site/bad_inputs/) whose expected output reports a problem on a line
that opens a block of that kind.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import pytest
from markdown_it.utils import read_fixture_file
from markupsafe import Markup

from site_testing import PROJECT_ROOT, RENDER_FIXTURES, SITE_TESTS, render_fragment
from sitegen.context import SiteContext
from sitegen.diagnostics import Message
from sitegen.kinds.blocks import KINDS
from sitegen.kinds.blocks.base import BlockKind, BlockStart

OPENING = re.compile(r"^(?::{3,}\s*(?P<container>[\w-]+)|(?:`{3,}|~{3,})\{(?P<fence>[\w-]+)\})")


def opened_kind(line: str) -> tuple[str, str] | None:
    """Return (syntax, kind name) when a Markdown line opens a block, else None."""
    match = OPENING.match(line)
    if match is None:
        return None
    return ("container", match["container"]) if match["container"] else ("fence", match["fence"])


def kinds_in_render_fixtures() -> set[tuple[str, str]]:
    """Return every (syntax, kind) a render fixture's Markdown opens."""
    found = set()
    for path in RENDER_FIXTURES.glob("*.md"):
        for _line, _title, source, _expected in read_fixture_file(path):
            found.update(kind for line in source.split("\n") if (kind := opened_kind(line)))
    return found


def kinds_in_bad_inputs() -> set[tuple[str, str]]:
    """Return every (syntax, kind) whose opening line a bad-input case reports a problem on."""
    found = set()
    for case in (SITE_TESTS / "bad_inputs").iterdir():
        for reported in (case / "expected.txt").read_text(encoding="utf-8").splitlines():
            match = re.match(r"content/([^:]+):(\d+): ", reported)
            source = case / "content" / match.group(1) if match else None
            if match and source is not None and source.is_file():
                # errors="replace": one case is deliberately not UTF-8; its lines still count
                lines = source.read_text(encoding="utf-8", errors="replace").split("\n")
                kind = opened_kind(lines[int(match.group(2)) - 1])
                if kind:
                    found.add(kind)
    return found


KIND_IDS = sorted(KINDS)


def test_the_registry_holds_the_seven_kinds_the_tutorial_uses():
    assert KIND_IDS == ["answer", "exercise", "figure", "lab", "listing", "note", "python"]


@pytest.mark.parametrize("name", KIND_IDS)
def test_every_kind_has_its_partial(name):
    kind = KINDS[name]
    assert kind.name == name
    assert (PROJECT_ROOT / "site_templates" / kind.partial).is_file()


@pytest.mark.parametrize("name", KIND_IDS)
def test_every_kind_has_a_render_fixture(name):
    assert (KINDS[name].syntax, name) in kinds_in_render_fixtures()


@pytest.mark.parametrize("name", KIND_IDS)
def test_every_kind_has_a_bad_input_fixture(name):
    assert (KINDS[name].syntax, name) in kinds_in_bad_inputs()


# --- a kind written as a fence: ```{shout} -------------------------------------------


@dataclass(frozen=True)
class ShoutData:
    text: str
    inside: str


# A kind's problems are catalogue entries like the build's own (sitegen/messages.py).
SHOUT_ARGUMENTS = Message("shout-arguments", "Containers", "shout takes no arguments, got '{word}'")


class ShoutKind(BlockKind[ShoutData]):
    """A fenced kind for this test only: it upper-cases its text."""

    name = "shout"
    syntax = "fence"
    partial = "partials/shout.html"

    def check(self, start: BlockStart) -> ShoutData:
        if start.arguments:
            raise start.fail(SHOUT_ARGUMENTS, word=start.arguments[0])
        return ShoutData(start.content.upper(), start.parent.kind if start.parent else "page")

    def render_context(self, data: ShoutData, body: Markup, site: SiteContext) -> Mapping[str, object]:
        return {"text": data.text, "inside": data.inside, "body": body}


SHOUT_PARTIAL = (("partials/shout.html", '<p class="shout" data-inside="{{ inside }}">{{ text }}{{ body }}</p>\n'),)


@pytest.fixture
def shout(monkeypatch):
    monkeypatch.setitem(KINDS, "shout", ShoutKind())


def test_a_fenced_kind_is_checked_and_rendered_through_its_partial(shout, sample):
    markdown = "Before.\n\n```{shout}\nsay <this>\n```\n\n::: note\n```{shout}\ninside\n```\n:::\n\n```python\nplain = 1\n```\n"
    html, problems = render_fragment(markdown, *sample, templates=SHOUT_PARTIAL)
    assert problems == []
    assert html == (
        "<p>Before.</p>\n"
        '<p class="shout" data-inside="page">SAY &lt;THIS&gt;\n</p>\n'
        '<aside class="note" aria-label="Note">\n<p class="note-title"><span class="note-kind">Note</span></p>\n'
        '<p class="shout" data-inside="note">INSIDE\n</p>\n</aside>\n'
        '<div class="code-block"><div class="code-tools">'
        '<button type="button" class="wrap-code" aria-pressed="false">Wrap lines</button>'
        '<button class="copy-code" type="button" data-copy-code>Copy</button></div>'
        '<pre tabindex="0"><code class="language-python">'
        '<span class="code-line"><span class="code-indent"></span><span class="code-text"><span class="tok-n">plain</span> '
        '<span class="tok-o">=</span> <span class="tok-mi">1</span>\n</span></span></code></pre></div>\n'
    )


def test_a_fenced_kind_reports_its_problems_at_its_opening_line(shout, sample):
    markdown = "Text.\n\n```{shout} loudly\nhello\n```\n\n```{shuot}\nhello\n```\n"
    _html, problems = render_fragment(markdown, *sample, templates=SHOUT_PARTIAL)
    assert problems == [
        "content/01-fixture.md:8: shout takes no arguments, got 'loudly'",
        "content/01-fixture.md:12: unknown fenced block kind '{shuot}' (did you mean 'shout'?); known kinds: python, shout",
    ]


def test_a_container_kind_cannot_be_written_as_a_fence(sample):
    _html, problems = render_fragment("```{note}\nhello\n```\n", *sample)
    assert problems == ["content/01-fixture.md:6: unknown fenced block kind '{note}'; known kinds: python"]
