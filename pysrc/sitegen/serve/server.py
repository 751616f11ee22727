"""`build.py serve`: build, serve the site on 127.0.0.1, rebuild on every change, reload open tabs.

Three parts, each on its own thread of control, each in a module of its own:

- the HTTP server (handler.py; ThreadingHTTPServer) serves the output folder
  with the MIME types the lab needs (static_server.py's handler), and a
  server-sent-events stream at /__rollouts__/events (events.py). HTML pages
  get one extra tag on the way out, `<script src="/__rollouts__/reload.js"
  data-build="N" defer>`, a same-origin file that reloads the tab after each
  rebuild and shows build errors over the page (overlay.py);
- a watcher thread (watcher.py; watchfiles) reports changes under the
  content folder, site_templates/, client/ and pysrc/;
- the main thread (this module) turns changes into rebuild requests for the
  build process (worker_client.py talks to build_worker.py, which see for
  why it is a separate process) and tells the browsers the outcome.

A failed build prints its problems in the terminal and sends them to the
browsers; the output folder keeps the last good site, which stays served.
Ctrl-C (or SIGTERM) stops the watcher, the server, the build process and its
KaTeX process, without a traceback.
"""

from __future__ import annotations

import queue
import signal
import sys
import threading
import time
from pathlib import Path
from typing import TextIO

from sitegen.files.paths import CLIENT_FOLDER, TEMPLATES_FOLDER, find_project_root
from sitegen.publish.output_folder import OutputFolderRefused, adopt_folder, check_output_folder
from sitegen.publish.up_to_date import find_recorded_files
from sitegen.serve.events import EventHub
from sitegen.serve.handler import DevServer
from sitegen.serve.watcher import WatchedFolders, watch_folders
from sitegen.serve.worker_client import BuildOutcome, BuildProcess


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
    folders = WatchedFolders(content_dir, root / TEMPLATES_FOLDER, root / CLIENT_FOLDER, root / "pysrc")
    builder = BuildProcess(root, out_dir, content, strict)
    changes: queue.Queue[set[str]] = queue.Queue()
    stop = threading.Event()
    threads = [
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="http", daemon=True),
        threading.Thread(target=watch_folders, args=(folders, changes, stop), name="watch", daemon=True),
    ]
    # Started before the try: a Ctrl-C while they start ends the command as one during the imports does (the
    # threads are daemons; the process's exit closes the socket). Inside it, the tidy-up would wait for a serve
    # loop that never began, or join a thread never started (a RuntimeError, exit status 1).
    for thread in threads:
        thread.start()
    previous_sigterm = signal.signal(signal.SIGTERM, stop_on_signal)
    previous_sigint = signal.getsignal(signal.SIGINT)
    try:
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
