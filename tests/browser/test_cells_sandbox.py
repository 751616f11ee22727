"""A reader's cell in Chromium runs no JavaScript and reaches no other origin (issue 26), on any host.

Two layers, each tested alone: what the cells' worker lets Python see
(client/python/cell-sandbox.mjs: it holds where the host sends no headers, as
GitHub Pages), and the worker script's own Content-Security-Policy from the
build's `_headers` (as the preview server and Netlify send it). The other
origin is a local server on another port that records every request: it
must receive none.
"""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from browser_testing import LIVE_STATUS, PROJECT_ROOT, SITE_PREFIX
from sitegen.serve.static_server import SubPathServer
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


def run_attempts(page: Page, cell: Locator, attempts: list[str]) -> str | None:
    """Run each attempt in the cell on its own, and return one line per attempt: 'ran', or the error it raised."""
    paste_code(
        page,
        cell,
        "exec(\"def attempt(code):\\n    try:\\n        exec(code, {})\\n        return 'ran'\\n"
        "    except BaseException as error:\\n        return f'{type(error).__name__}: {error}'\")\n"
        + "".join(f"print(attempt({code!r}))\n" for code in attempts),
    )
    run_and_wait(cell)
    return cell.locator("[data-cell-output]").text_content()


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
    assert run_attempts(page, cell, attempts) == (
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


SCAN_PROBE = PROJECT_ROOT / "tests" / "site" / "check" / "probes" / "scan_for_pyodide_api.py"


def test_a_readers_sealed_cell_finds_no_route_to_pyodides_api(open_context, site_url):
    """Issue 42: as at build time (test_cell_sandbox.py), nothing in sys.modules or the garbage collector's view exposes
    Pyodide's API in the page's cells' worker."""
    page = open_cell_page(open_context, site_url, EDIT_PAGE)
    cell = page.locator(CELL).first
    paste_code(page, cell, SCAN_PROBE.read_text(encoding="utf-8"))
    run_and_wait(cell)
    assert cell.locator("[data-cell-output]").text_content() == "scanned\n"


def test_issue_42s_attacks_from_a_readers_cell_reach_no_other_origin(open_context, site_url, other_origin):
    """What a cell did with Pyodide's API on a host without _headers: read another origin's response through a lazy
    file or loadBinaryFile, load a package from there, take over the worker's output."""
    origin, asked = other_origin
    page = open_cell_page(open_context, site_url, EDIT_PAGE)
    cell = page.locator(CELL).first
    attempts = [
        f"import pyodide_js._api as api; api._module.FS_createLazyFile('/', 'x', '{origin}/lazy', True, False)",
        f"import pyodide_js._api as api; api.loadBinaryFile('{origin}/binary')",
        f"import pyodide_js._api as api; api.public_api.loadPackage('{origin}/package.whl')",
        "import pyodide_js._api as api; api.public_api.setStdout({'batched': print})",
        # Imported by the attempts above, sys.modules holds the cell's own pyodide_js._api: none of the API.
        "import sys; sys.modules['pyodide_js._api'].public_api",
        "import pyodide_js; pyodide_js.FS",
    ]
    assert run_attempts(page, cell, attempts) == (
        "AttributeError: _module\n"
        "AttributeError: loadBinaryFile\n"
        "AttributeError: public_api\n"
        "AttributeError: public_api\n"
        "AttributeError: public_api\n"
        "AttributeError: FS\n"
    )
    assert asked == []


@pytest.fixture(scope="module")
def site_without_headers(built_site: Path) -> Iterator[str]:
    """Serve the built site as a host that sends none of its _headers does (GitHub Pages); yield its URL."""
    server = SubPathServer(built_site, SITE_PREFIX)
    server.header_rules = ()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}{SITE_PREFIX}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("server", ["site_url", "site_without_headers"])
def test_the_cells_worker_refuses_other_origins_and_code_whatever_the_host_sends(browser: Browser, request, server, other_origin):
    """The worker's own layers and the page's policy, which the cells' worker runs under (a blob: worker follows the
    policy of the page that made it), with or without the host's headers: JavaScript run in the cells' worker after
    Python's start (through the debugging protocol: Playwright's own evaluate needs eval, which the sandbox refuses)
    cannot fetch, request, cache, import or open anything of another origin, reach the site's caches or IndexedDB,
    start a worker or import a blob: script, nor undo the lock; it still reaches its own origin's files.
    """
    origin, asked = other_origin
    site = request.getfixturevalue(server)
    context = browser.new_context(service_workers="block")
    try:
        page = context.new_page()
        page.goto(site + EDIT_PAGE)
        cell = page.locator(CELL).first
        paste_code(page, cell, "print('started')")
        run_and_wait(cell)
        (worker,) = [worker for worker in page.workers if worker.url.startswith("blob:")]
        refused = evaluate_in_worker(
            context.browser,
            worker.url,
            f"""(async (origin, own) => {{
                const outcome = {{}};
                const attempt = async (name, action) => {{
                  try {{ await action(); outcome[name] = "ran"; }} catch (error) {{ outcome[name] = error.name; }}
                }};
                await attempt("fetch", () => fetch(`${{origin}}/fetch`));
                await attempt("request", () => fetch(new Request(`${{origin}}/request`)));
                await attempt("xhr", () => {{ const x = new XMLHttpRequest(); x.open("GET", `${{origin}}/xhr`, false); x.send(); }});
                await attempt("cache", () => caches.open("x").then((cache) => cache.add(`${{origin}}/cache`)));
                await attempt("storage", () => indexedDB.open("x"));
                await attempt("import", () => import(`${{origin}}/import.mjs`));
                await attempt("socket", () => new WebSocket(origin.replace("http", "ws")));
                await attempt("events", () => new EventSource(`${{origin}}/events`));
                await attempt("worker", () => new Worker(`${{own}}assets/`));
                await attempt("blob", () => import(URL.createObjectURL(new Blob(["export default 1"], {{ type: "text/javascript" }}))));
                await attempt("wasm", () => WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])));
                await attempt("undo", () => {{
                  const undone = [
                    Reflect.set(self, "fetch", () => 1),
                    Reflect.defineProperty(self, "fetch", {{ value: () => 1 }}),
                    Reflect.deleteProperty(self, "fetch"),
                    Reflect.deleteProperty(XMLHttpRequest.prototype, "open"),
                    Reflect.deleteProperty(self, "Worker"),
                    Reflect.deleteProperty(self, "caches"),
                  ];
                  if (!undone.some(Boolean)) throw new TypeError("locked");
                }});
                await attempt("own", () => fetch(`${{own}}{EDIT_PAGE}`).then((response) => response.ok || Promise.reject()));
                return JSON.stringify(outcome);
            }})({json.dumps(origin)}, {json.dumps(site)})""",
        )
    finally:
        context.close()
    assert json.loads(refused) == {
        "fetch": "TypeError",
        "request": "TypeError",
        "xhr": "TypeError",
        "cache": "TypeError",
        "storage": "TypeError",
        "import": "TypeError",
        "socket": "TypeError",
        "events": "TypeError",
        "worker": "TypeError",
        "blob": "TypeError",
        "wasm": "ran",
        "undo": "TypeError",
        "own": "ran",
    }
    assert asked == []


def evaluate_in_worker(browser: Browser, worker_url: str, expression: str) -> str:
    """Evaluate `expression` (a promise of a string) in the worker at `worker_url` through Chromium's debugging
    protocol, attached to the worker's target without flattening (its messages travel inside the browser session's)."""
    session = browser.new_browser_cdp_session()
    targets = session.send("Target.getTargets")["targetInfos"]
    (target,) = [target["targetId"] for target in targets if target["url"] == worker_url]
    attached = session.send("Target.attachToTarget", {"targetId": target, "flatten": False})["sessionId"]
    replies: list[dict] = []
    session.on("Target.receivedMessageFromTarget", lambda event: replies.append(json.loads(event["message"])))
    request = {"id": 1, "method": "Runtime.evaluate", "params": {"expression": expression, "awaitPromise": True}}
    session.send("Target.sendMessageToTarget", {"sessionId": attached, "message": json.dumps(request)})
    deadline = time.monotonic() + 60
    while not any(reply.get("id") == 1 for reply in replies) and time.monotonic() < deadline:
        session.send("Target.getTargets")  # lets the session's events be delivered meanwhile
        time.sleep(0.1)
    (reply,) = [reply for reply in replies if reply.get("id") == 1]
    session.detach()
    return str(reply["result"]["result"]["value"])


# Issue 60's escape: a getter planted on an intrinsic's prototype catches what Pyodide or Emscripten reads through it
# (Pyodide's API as `API.Comlink` whenever a proxy is made; the global object as `window`), then what it caught reaches
# for Function, import(), a nested worker, fetch, a WebSocket and the caches. Each attempt tells what it caught and
# reached; frozen intrinsics refuse the getter itself, whatever the host sends.
ESCAPE = (
    "from pyodide.ffi import to_js, create_proxy\n"
    "O = to_js({}).constructor\n"
    "caught = []\n"
    "getter = create_proxy(lambda this: caught.append(this), capture_this=True)\n"
    "O.defineProperty(TARGET, NAME, O.fromEntries(to_js([['get', getter], ['configurable', True]])))\n"
    "create_proxy(print)\n"
    "reached = []\n"
    "for found in caught:\n"
    "    scope = getattr(found, 'self', None) or getattr(getattr(found, 'public_api', None), '_module', None)\n"
    "    for name in ['Function', 'Worker', 'fetch', 'WebSocket', 'caches', 'importScripts']:\n"
    "        if getattr(scope, name, None) is not None: reached.append(name)\n"
    "raise RuntimeError(f'caught {len(caught)}, reached {sorted(set(reached))}')\n"
)
ESCAPE_VARIANTS = [
    ESCAPE.replace("TARGET", "O.prototype").replace("NAME", "'Comlink'"),
    ESCAPE.replace("TARGET", "O.prototype").replace("NAME", "'window'"),
    ESCAPE.replace("TARGET", "O.prototype").replace("NAME", "'then'"),
    ESCAPE.replace("TARGET", "O.getPrototypeOf(O)").replace("NAME", "'Comlink'"),
    ESCAPE.replace("TARGET", "O.getPrototypeOf(to_js([]))").replace("NAME", "'length'"),
    ESCAPE.replace("TARGET", "O.getPrototypeOf(O.keys)").replace("NAME", "'call'"),
    "from pyodide.ffi import to_js\nto_js({}).constructor.prototype.Comlink = 1",
    "from pyodide.ffi import to_js\nO = to_js({}).constructor\nO.setPrototypeOf(O.getPrototypeOf(to_js([])), to_js({}))",
    "print(sum(range(10)))",
]


@pytest.mark.parametrize("server", ["site_url", "site_without_headers"])
def test_issue_60s_getter_on_an_intrinsic_reaches_nothing_whatever_the_host_sends(open_context, request, server):
    page = open_cell_page(open_context, request.getfixturevalue(server), EDIT_PAGE)
    cell = page.locator(CELL).first
    frozen = "JsException: TypeError: Cannot {} property {}, object is not extensible"
    assert run_attempts(page, cell, ESCAPE_VARIANTS) == (
        f"{frozen.format('define', 'Comlink')}\n"
        f"{frozen.format('define', 'window')}\n"
        f"{frozen.format('define', 'then')}\n"
        f"{frozen.format('define', 'Comlink')}\n"
        "JsException: TypeError: Cannot redefine property: length\n"
        "JsException: TypeError: Cannot redefine property: call\n"
        f"{frozen.format('add', 'Comlink')}\n"
        "JsException: TypeError: [object Array] is not extensible\n"
        "45\n"
        "ran\n"
    )
