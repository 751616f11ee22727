"""Helpers for the reader tests (search, previews, theme, print, phones).

The reader tests need no Python in the browser, so every page they open has
Pyodide's .wasm blocked: a lab page then settles at once in its failed-start
state (recorded numbers and a Retry button) instead of booting Python in the
background of each test. Contexts still go through conftest's `open_context`,
so an off-host request or a console error fails the test.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from playwright.sync_api import BrowserContext, Page

from browser_testing import FAILING_IN_CONTEXT, RUNTIME_WASM

PAGES = [
    "index.html",
    "01-rollout.html",
    "02-possibilities.html",
    "03-scoring.html",
    "04-follow-draw-3.html",
    "05-provenance.html",
    "06-learning.html",
    "07-signal.html",
    "glossary.html",
    "notation.html",
    "references.html",
    "404.html",
    "offline.html",
]
CHAPTERS = [name for name in PAGES if name[:2].isdigit() and name[2] == "-"]
THEME_KEY = "rollouts-theme"


def block_python(context: BrowserContext) -> BrowserContext:
    """Keep Pyodide from starting in this context (the reader tests do not need it)."""
    # Both copies of Pyodide's WebAssembly: the compressed one the page compiles, and the plain one. The page's own
    # fetches of them then fail, which Chromium logs as console errors: expected in this context.
    context.route(RUNTIME_WASM, lambda route: route.abort())
    FAILING_IN_CONTEXT.setdefault(id(context), []).append(RUNTIME_WASM)
    return context


@pytest.fixture(scope="session")
def open_reader_context(open_context) -> Callable[..., BrowserContext]:
    """Return a function that opens a guarded context with Python blocked (options as for new_context)."""

    def open_reader(**options) -> BrowserContext:
        return block_python(open_context(**options))

    return open_reader


@pytest.fixture(scope="module")
def reader_page(open_reader_context) -> Page:
    """One desktop page in the light scheme, shared by a module's tests."""
    return open_reader_context(viewport={"width": 1280, "height": 900}, color_scheme="light").new_page()
