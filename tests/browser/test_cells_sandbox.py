"""A reader's cell in Chromium runs no JavaScript and reaches no other origin (issue 26), on any host.

Two layers, each tested alone: what the cells' worker lets Python see
(modules/cell-sandbox.mjs: it holds where the host sends no headers, as
GitHub Pages), and the worker script's own Content-Security-Policy from the
build's `_headers` (as the preview server and Netlify send it). The other
origin is a local server on another port that records every request: it
must receive none.
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from browser_testing import LIVE_STATUS
from test_cells import CELL, EDIT_PAGE, RUN_TIMEOUT_MS, open_cell_page, paste_code, run_and_wait

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def other_origin() -> Iterator[tuple[str, list[str]]]:
    """Serve another origin (127.0.0.1, another port) that would answer anyone; yield its URL and the paths asked for."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            body = b"export default 1;\n"
            self.send_response(200)
            self.send_header("Content-Type", "text/javascript")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", asked
    server.shutdown()
    server.server_close()


def test_a_readers_cell_cannot_run_javascript_or_reach_another_origin(open_context, site_url, other_origin):
    origin, asked = other_origin
    page = open_cell_page(open_context, site_url, EDIT_PAGE)
    cell = page.locator(CELL).first
    attempts = [
        "import js; js.eval('1')",
        "import js; js.Function('return 1')",
        f"import js; js.fetch('{origin}/fetch')",
        f"import js; js.importScripts('{origin}/script.js')",
        "import js; js.globalThis",
        f"import pyodide_js; pyodide_js.loadPackage('{origin}/package.whl')",
        # Every JavaScript object leads to Function; import() is only reachable through code from a string.
        f"from pyodide.ffi import to_js; to_js({{}}).constructor.constructor(\"return import('{origin}/import.mjs')\")()",
        "from pyodide.code import run_js; run_js('1')",
        f"from pyodide.http import open_url; open_url('{origin}/xhr')",
        f"import socket; socket.create_connection(('127.0.0.1', {origin.rsplit(':', 1)[1]}))",
    ]
    paste_code(
        page,
        cell,
        "exec(\"def attempt(code):\\n    try:\\n        exec(code, {})\\n        return 'ran'\\n"
        "    except BaseException as error:\\n        return f'{type(error).__name__}: {error}'\")\n"
        + "".join(f"print(attempt({code!r}))\n" for code in attempts),
    )
    run_and_wait(cell)
    assert cell.locator("[data-cell-output]").text_content() == (
        "AttributeError: eval\n"
        "AttributeError: Function\n"
        "AttributeError: fetch\n"
        "AttributeError: importScripts\n"
        "AttributeError: globalThis\n"
        "AttributeError: loadPackage\n"
        "JsException: EvalError: a Python cell cannot run JavaScript code\n"
        "ImportError: cannot import name 'eval' from 'js' (unknown location)\n"
        "NameError: name 'XMLHttpRequest' is not defined\n"
        "PermissionError: [Errno 2] Permission denied\n"
    )
    assert asked == []


def test_the_workers_own_policy_refuses_code_from_strings_and_other_origins(browser: Browser, site_url, other_origin):
    """The header alone: JavaScript run in a worker itself (through the browser's debugging protocol) is refused what
    the workers' Content-Security-Policy forbids.

    The lab's worker, which gets the same policy: in the cells' worker the sandbox refuses eval first, which
    Playwright's evaluate itself calls. A context of its own, without the session's guard: the refusals are logged
    as console errors on purpose.
    """
    origin, asked = other_origin
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        page.goto(site_url + EDIT_PAGE)
        page.locator("section.lab").first.scroll_into_view_if_needed()  # the lab's Python starts near it
        expect(page.locator("[data-lab-status]").first).to_have_text(LIVE_STATUS, timeout=RUN_TIMEOUT_MS)
        (worker,) = [worker for worker in page.workers if "/assets/lab-worker." in worker.url]
        refused = worker.evaluate(
            """async (origin) => {
                // From a later task: code the debugging protocol evaluates itself may run strings regardless.
                await new Promise((resolve) => setTimeout(resolve, 10));
                const outcome = {};
                try { outcome.function = String(new Function("return 1")()); } catch (error) { outcome.function = error.name; }
                try { outcome.eval = String(eval("1")); } catch (error) { outcome.eval = error.name; }
                try { await fetch(`${origin}/fetch`); outcome.fetch = "ran"; } catch (error) { outcome.fetch = error.name; }
                try { await import(`${origin}/import.mjs`); outcome.import = "ran"; } catch (error) { outcome.import = error.name; }
                return outcome;
            }""",
            origin,
        )
    finally:
        context.close()
    assert refused == {"function": "EvalError", "eval": "EvalError", "fetch": "TypeError", "import": "TypeError"}
    assert asked == []


def test_a_readers_cell_sees_the_builds_environment(open_context, site_url):
    """The same os.environ as the build's runner (test_cell_sandbox.py): not the reader's language, no build path."""
    page = open_cell_page(open_context, site_url, EDIT_PAGE)
    cell = page.locator(CELL).first
    paste_code(page, cell, "import os\nprint(sorted(os.environ.items()))")
    run_and_wait(cell)
    assert cell.locator("[data-cell-output]").text_content() == (
        "[('HOME', '/home/pyodide'), ('LANG', 'C.UTF-8'), ('LD_LIBRARY_PATH', '/usr/lib:/lib/python3.14/site-packages'), "
        "('LOGNAME', 'web_user'), ('PATH', '/'), ('PWD', '/'), ('PYTHONHASHSEED', '0'), ('PYTHONINSPECT', '1'), "
        "('USER', 'web_user'), ('_', './this.program')]\n"
    )
