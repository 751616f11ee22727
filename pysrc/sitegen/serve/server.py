"""`build.py serve`: build, serve the site on 127.0.0.1, rebuild on every change, reload open tabs.

Three parts, each on its own thread of control:

- the HTTP server (ThreadingHTTPServer) serves the output folder with the
  MIME types the lab needs (static_server.py's handler), and a
  server-sent-events stream at /__rollouts__/events. HTML pages get one extra tag on the way out,
  `<script src="/__rollouts__/reload.js" data-build="N" defer>`, a
  same-origin file (the pages' CSP forbids inline scripts) that reloads the
  tab after each rebuild and shows build errors over the page. The tag is
  added while serving, never written: dist/ stays exactly what `build.py`
  writes;
- a watcher thread (watchfiles) reports changes under the content folder,
  site_templates/ and pysrc/;
- the main thread turns changes into rebuild requests for the build process
  (build_worker.py, which see for why it is a separate process) and tells
  the browsers the outcome.

A failed build prints its problems in the terminal and sends them to the
browsers; the output folder keeps the last good site, which stays served.
Ctrl-C (or SIGTERM) stops the watcher, the server, the build process and its
KaTeX process, without a traceback.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from http import HTTPStatus
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any, TextIO

from sitegen.diagnostics import excerpt
from sitegen.paths import TEMPLATES_FOLDER, find_project_root
from sitegen.publish.output_folder import OutputFolderRefused, adopt_folder, check_output_folder
from sitegen.publish.up_to_date import find_recorded_files
from sitegen.serve.static_server import StaticRequestHandler

DEV_PREFIX = "/__rollouts__/"
EVENTS_PATH = DEV_PREFIX + "events"
DEV_FILES = {
    DEV_PREFIX + "reload.js": ("dev_reload.js", "text/javascript; charset=utf-8"),
    DEV_PREFIX + "reload.css": ("dev_reload.css", "text/css; charset=utf-8"),
}
# watchfiles yields a change once nothing else changed for STEP_MS (an editor's
# save is a burst of events within a millisecond or two); DEBOUNCE_MS caps the wait.
STEP_MS = 20
DEBOUNCE_MS = 300
KEEP_ALIVE_SECONDS = 15
WATCH_RETRY_SECONDS = 0.2
WORKER_STOP_SECONDS = 3
_HEAD_END = re.compile(rb"</head>", re.IGNORECASE)
NOT_BUILT_PAGE = (
    b'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>Not built yet</title>\n</head>\n'
    b"<body>\n<main>\n<h1>Not built yet</h1>\n<p>The first build has not succeeded yet; the terminal lists the problems. "
    b"This page reloads by itself after the next good build.</p>\n</main>\n</body>\n</html>\n"
)


# --- what the browsers are told ------------------------------------------------


class EventHub:
    """Server-sent events for every open tab, and the state a newly connected tab is told first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clients: list[queue.Queue[str | None]] = []
        self.build = 0
        self.problems: list[str] = []
        self._closed = False

    def connect(self) -> queue.Queue[str | None]:
        """Register a tab; its queue starts with the current state ("hello")."""
        client: queue.Queue[str | None] = queue.Queue()
        with self._lock:
            client.put(format_event("hello", {"build": self.build, "problems": self.problems}))
            if self._closed:
                client.put(None)
            self._clients.append(client)
        return client

    def disconnect(self, client: queue.Queue[str | None]) -> None:
        """Forget a tab that went away."""
        with self._lock:
            if client in self._clients:
                self._clients.remove(client)

    def announce_build(self, changed: list[str], seconds: float) -> None:
        """Record a good build and tell every tab to reload."""
        with self._lock:
            self.build += 1
            self.problems = []
            self._send(format_event("reload", {"build": self.build, "changed": changed, "seconds": seconds}))

    def announce_problems(self, problems: list[str]) -> None:
        """Record a failed build and send its problems to every tab."""
        with self._lock:
            self.problems = list(problems)
            self._send(format_event("build-error", {"build": self.build, "problems": self.problems}))

    def close(self) -> None:
        """End every event stream (the server is stopping)."""
        with self._lock:
            self._closed = True
            self._send(None)

    def _send(self, message: str | None) -> None:
        for client in self._clients:
            client.put(message)


def format_event(name: str, data: dict[str, object]) -> str:
    """Return one server-sent event."""
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"


# --- serving the site ----------------------------------------------------------


class DevServer(ThreadingHTTPServer):
    """The HTTP server: serves one folder, knows the event hub."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128  # a page's first burst of requests must not overflow the default backlog of 5

    def __init__(self, address: tuple[str, int], site_dir: Path, hub: EventHub) -> None:
        self.site_dir = site_dir
        self.hub = hub
        super().__init__(address, partial(DevRequestHandler, directory=str(site_dir)))

    def handle_error(self, request: object, client_address: Any) -> None:
        """A browser that drops a connection mid-file is normal: say nothing. Anything else: one line, no traceback."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return
        print(
            f"build.py serve: a request from {client_address[0]} failed: {excerpt(str(error) or type(error).__name__, 200)}",
            file=sys.stderr,
        )


class DevRequestHandler(StaticRequestHandler):
    """Static files with the right types, pages with the reload script, and the event stream."""

    server: DevServer

    def do_GET(self) -> None:
        """Answer a GET: events, the dev script, a page (with the script added), or a file."""
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if path == EVENTS_PATH:
            self.stream_events()
        elif path in DEV_FILES:
            self.send_dev_file(*DEV_FILES[path])
        elif self.find_page(path) is not None or self.is_missing(path):
            self.send_page(path)
        else:
            super().do_GET()

    def do_HEAD(self) -> None:
        """Answer a HEAD like the GET it stands for, without the body."""
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if self.find_page(path) is not None or self.is_missing(path):
            self.send_page(path)
        else:
            super().do_HEAD()

    def find_page(self, path: str) -> Path | None:
        """Return the HTML file a URL path names (a folder means its index.html), or None."""
        local = Path(self.translate_path(path))
        if local.is_dir():
            local = local / "index.html"
        return local if local.suffix == ".html" and local.is_file() else None

    def is_missing(self, path: str) -> bool:
        """Say whether nothing exists at the URL path (it gets the site's 404 page)."""
        return not Path(self.translate_path(path)).exists()

    def send_page(self, path: str) -> None:
        """Send a page with the reload script added before </head>; a missing page gets 404.html and status 404."""
        page = self.find_page(path)
        status = HTTPStatus.OK
        if page is None:
            status = HTTPStatus.NOT_FOUND
            page = self.server.site_dir / "404.html"
        try:
            html = page.read_bytes()
        except OSError:  # no good build yet: a page that still reloads (and shows the problems) by itself
            html, status = NOT_BUILT_PAGE, HTTPStatus.SERVICE_UNAVAILABLE
        tag = f'<script src="{DEV_PREFIX}reload.js" data-build="{self.server.hub.build}" defer></script>\n'.encode()
        html = _HEAD_END.sub(lambda match: tag + match.group(0), html, count=1)
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(html)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(html)

    def send_dev_file(self, name: str, content_type: str) -> None:
        """Send the reload script or its stylesheet (read on each request, so editing them needs no restart)."""
        data = Path(__file__).with_name(name).read_bytes()
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def stream_events(self) -> None:
        """Hold the connection open and write each event as it comes, with a comment now and then to keep it alive."""
        client = self.server.hub.connect()
        try:
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/event-stream; charset=utf-8")
            self.end_headers()
            self.wfile.write(b"retry: 500\n\n")
            while True:
                try:
                    message = client.get(timeout=KEEP_ALIVE_SECONDS)
                except queue.Empty:
                    message = ": keep-alive\n\n"
                if message is None:
                    return
                self.wfile.write(message.encode())
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            self.server.hub.disconnect(client)
            self.close_connection = True

    def end_headers(self) -> None:
        """Keep pages out of the browser's cache; let it revalidate the rest.

        A page's URL holds new bytes after every rebuild, and a revalidation
        by modification time (1 s resolution) could miss two saves within a
        second, hence no-store. Assets carry their content hash in their name
        and the Pyodide runtime its version, so revalidating them is safe and
        spares the lab a 10 MB download on every reload.
        """
        path = self.path.split("?", 1)[0]
        cacheable = path.startswith(("/assets/", "/pyodide/")) or (path.startswith("/lab/") and path.endswith(".zip"))
        self.send_header("Cache-Control", "no-cache" if cacheable else "no-store")
        super().end_headers()


# --- the build process -----------------------------------------------------------


@dataclass(frozen=True)
class BuildOutcome:
    """One answer of the build process."""

    ok: bool
    written: tuple[str, ...] = ()
    rendered: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    seconds: float = 0.0
    traceback: str = ""
    fatal: bool = False


class BuildProcess:
    """The build process (build_worker.py): started, asked to rebuild, restarted after a code change, stopped."""

    def __init__(self, root: Path, out_dir: Path, content: str | None, strict: bool) -> None:
        self._command = [sys.executable, "-m", "sitegen.serve.build_worker", str(root), str(out_dir)]
        if content is not None:
            self._command += ["--content", content]
        if strict:
            self._command.append("--strict")
        self._root = root
        self._process: subprocess.Popen[str] | None = None
        self._errors: TextIO | None = None

    def start(self) -> None:
        """Start a fresh build process (imports the pipeline's current code)."""
        self._errors = tempfile.TemporaryFile("w+", encoding="utf-8")  # noqa: SIM115 - open while the process runs; stop() closes it
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(self._root / "pysrc"), os.environ.get("PYTHONPATH", "")])}
        self._process = subprocess.Popen(
            self._command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._errors,
            text=True,
            encoding="utf-8",
            env=environment,
            # Its own session: Ctrl-C in the terminal reaches only the server,
            # which then stops this process (and KaTeX) in order.
            start_new_session=True,
        )

    def rebuild(self, reload_everything: bool) -> BuildOutcome:
        """Ask for a rebuild and wait for the answer."""
        if self._process is None or self._process.poll() is not None:
            self.stop()
            self.start()
            reload_everything = True
        process = self._process
        assert process is not None and process.stdin is not None and process.stdout is not None
        try:
            process.stdin.write(json.dumps({"reload": "all" if reload_everything else "content"}) + "\n")
            process.stdin.flush()
            line = process.stdout.readline()
        except (BrokenPipeError, OSError):
            line = ""
        if not line:
            return BuildOutcome(ok=False, problems=(self.describe_crash(),), fatal=True)
        answer = json.loads(line)
        return BuildOutcome(
            ok=answer["ok"],
            written=tuple(answer.get("written", ())),
            rendered=tuple(answer.get("rendered", ())),
            warnings=tuple(answer.get("warnings", ())),
            problems=tuple(answer.get("problems", ())),
            seconds=answer.get("seconds", 0.0),
            traceback=answer.get("traceback", ""),
            fatal=answer.get("fatal", False),
        )

    def describe_crash(self) -> str:
        """Return one line saying why the build process ended (its last line of output, e.g. a SyntaxError)."""
        assert self._process is not None
        try:
            self._process.wait(timeout=WORKER_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self._process.kill()
        output = ""
        if self._errors is not None:
            self._errors.seek(0)
            output = self._errors.read()
        if output.strip():
            print(output.rstrip(), file=sys.stderr, flush=True)
        last = output.strip().splitlines()[-1] if output.strip() else f"exit status {self._process.returncode}"
        return f"build.py serve: the build process stopped ({last}); fix the code and save to try again"

    def stop(self) -> None:
        """End the build process: close its input (it stops KaTeX and exits), kill it if it does not."""
        process, self._process = self._process, None
        if process is not None:
            try:
                if process.stdin:
                    process.stdin.close()
            except OSError:
                pass
            try:
                process.wait(timeout=WORKER_STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout:
                process.stdout.close()
        if self._errors is not None:
            self._errors.close()
            self._errors = None


# --- watching ----------------------------------------------------------------------


@dataclass(frozen=True)
class WatchedFolders:
    """The folders a change in which means: new content, new templates, or new code."""

    content: Path
    templates: Path
    code: Path

    def classify(self, paths: Iterable[str]) -> str:
        """Return "code", "all" or "content": what the changed paths require (the widest wins)."""
        kinds = set()
        for name in paths:
            path = Path(name)
            if self.code in path.parents:
                kinds.add("code")
            elif self.templates in path.parents:
                kinds.add("all")
            else:
                kinds.add("content")
        for kind in ("code", "all", "content"):
            if kind in kinds:
                return kind
        return "content"


def watch_folders(folders: WatchedFolders, changes: queue.Queue[set[str]], stop: threading.Event) -> None:
    """Put each batch of changed paths on the queue until stopped (runs on its own thread).

    A watch follows the folder it started on: if the content folder is
    deleted (a `git checkout`, a script that recreates it), the watch is
    started again once the folder is back, and that counts as a change.
    """
    from watchfiles import watch

    paths = [folders.content, folders.templates, folders.code]
    while not stop.is_set():
        watched = identify_folders(paths)
        if watched is None:
            stop.wait(WATCH_RETRY_SECONDS)
            continue
        for batch in watch(*paths, debounce=DEBOUNCE_MS, step=STEP_MS, stop_event=stop, rust_timeout=500, raise_interrupt=False):
            changes.put({path for _change, path in batch})
            if identify_folders(paths) != watched:
                break
        else:
            return  # stopped
        while not stop.is_set() and identify_folders(paths) is None:
            stop.wait(WATCH_RETRY_SECONDS)
        changes.put({str(folders.content)})


def identify_folders(paths: list[Path]) -> list[tuple[int, int]] | None:
    """Return each folder's (device, inode), or None if one is missing: a folder deleted and made again is another one."""
    try:
        return [(status.st_dev, status.st_ino) for status in (path.stat() for path in paths)]
    except OSError:
        return None


# --- the command -----------------------------------------------------------------


def run_serve(content: str | None, out: str | None, port: int, strict: bool = False, stream: TextIO | None = None) -> int:
    """Build, serve and watch until Ctrl-C; return the exit status."""
    stream = stream or sys.stdout
    root = find_project_root()
    out_dir = (Path(out) if out is not None else root / "dist").resolve()
    content_dir = (Path(content) if content is not None else root / "content").resolve()
    if not content_dir.is_dir():
        print(f"{content or 'content'}: content folder not found", file=sys.stderr)
        return 1
    try:
        output = check_output_folder(out or "dist", out_dir, root, content_dir, find_recorded_files(root, out_dir))
    except OutputFolderRefused as refusal:
        print(f"build.py serve: {refusal}", file=sys.stderr)
        return 2
    if output.adopt:
        adopt_folder(out_dir)
    hub = EventHub()
    try:
        server = DevServer(("127.0.0.1", port), out_dir, hub)
    except OSError as error:
        print(
            f"build.py serve: cannot listen on 127.0.0.1:{port} ({error.strerror or error}); try --port {port + 1 if port else 8000}",
            file=sys.stderr,
        )
        return 1
    folders = WatchedFolders(content_dir, root / TEMPLATES_FOLDER, root / "pysrc")
    builder = BuildProcess(root, out_dir, content, strict)
    changes: queue.Queue[set[str]] = queue.Queue()
    stop = threading.Event()
    threads = [
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="http", daemon=True),
        threading.Thread(target=watch_folders, args=(folders, changes, stop), name="watch", daemon=True),
    ]
    previous_sigterm = signal.signal(signal.SIGTERM, stop_on_signal)
    previous_sigint = signal.getsignal(signal.SIGINT)
    try:
        for thread in threads:
            thread.start()
        host, actual_port = server.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host
        print(f"Serving {out_dir} at http://{host}:{actual_port}/ (Ctrl-C to stop)", file=stream, flush=True)
        builder.start()
        report_build(builder.rebuild(reload_everything=True), hub, stream, first=True)
        while True:
            try:
                batch = changes.get(timeout=1)
            except queue.Empty:
                continue
            while not changes.empty():  # changes made during the last build join this one
                batch |= changes.get_nowait()
            kind = folders.classify(batch)
            if kind == "code":
                builder.stop()
                builder.start()
            report_build(builder.rebuild(reload_everything=kind != "content"), hub, stream)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not interrupt the tidy-up
        stop.set()
        hub.close()
        server.shutdown()
        server.server_close()
        builder.stop()
        for thread in threads:
            thread.join(timeout=2)
        signal.signal(signal.SIGTERM, previous_sigterm)
        signal.signal(signal.SIGINT, previous_sigint)
    print("Stopped.", file=stream, flush=True)
    return 0


def stop_on_signal(signum: int, frame: object) -> None:
    """Treat SIGTERM like Ctrl-C, so the server stops in the same tidy way."""
    raise KeyboardInterrupt


def report_build(outcome: BuildOutcome, hub: EventHub, stream: TextIO, first: bool = False) -> None:
    """Tell the browsers the outcome (reload, or the problems), then print it in the terminal.

    Browsers first: once the terminal shows the outcome, a tab that connects
    is told the same state.
    """
    clock = time.strftime("%H:%M:%S")
    if outcome.ok:
        # Nothing new to show (a save without changes, a restart after a code
        # edit that changes no output): reload only to clear a shown error.
        if outcome.written or hub.problems or first:
            hub.announce_build(list(outcome.written), outcome.seconds)
        for warning in outcome.warnings:
            print(warning, file=sys.stderr, flush=True)
        pages = ", ".join(outcome.rendered) or "no page"
        verb = "Built" if first else "Rebuilt"
        print(
            f"[{clock}] {verb} in {outcome.seconds * 1000:.0f} ms: rendered {pages}; {len(outcome.written)} file(s) changed",
            file=stream,
            flush=True,
        )
        return
    hub.announce_problems(list(outcome.problems))
    if outcome.traceback:
        print(outcome.traceback.rstrip(), file=sys.stderr, flush=True)
    print(
        f"[{clock}] Build failed; {'still serving the last good build' if hub.build else 'no good build in this session yet'}:",
        file=sys.stderr,
        flush=True,
    )
    for problem in outcome.problems:
        print(problem, file=sys.stderr, flush=True)
