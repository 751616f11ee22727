"""The dev server's HTTP side: the output folder with the lab's MIME types, pages with the reload script, the event stream."""

from __future__ import annotations

import sys
from functools import partial
from http import HTTPStatus
from pathlib import Path
from typing import Any

from sitegen.diagnostics import excerpt
from sitegen.serve.events import KEEP_ALIVE, KEEP_ALIVE_SECONDS, EventHub
from sitegen.serve.overlay import DEV_FILES, EVENTS_PATH, NOT_BUILT_PAGE, add_reload_script, read_dev_file
from sitegen.serve.static_server import PatientHTTPServer, StaticRequestHandler, is_file, is_folder


class DevServer(PatientHTTPServer):
    """The HTTP server: serves one folder, knows the event hub (static_server.py: bounded threads, timed reads)."""

    allow_reuse_address = True

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
        if is_folder(local):
            local = local / "index.html"
        return local if local.suffix == ".html" and is_file(local) else None

    def is_missing(self, path: str) -> bool:
        """Say whether nothing is served at the URL path, a folder without index.html included (it gets the 404 page)."""
        return self.find_page(path) is None and not is_file(Path(self.translate_path(path)))

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
        html = add_reload_script(html, self.server.hub.build)
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(html)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(html)

    def send_dev_file(self, name: str, content_type: str) -> None:
        """Send the reload script or its stylesheet (read on each request, so editing them needs no restart)."""
        data = read_dev_file(name)
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def stream_events(self) -> None:
        """Hand the connection to the outbox, held open: each event is sent as it comes, a comment now and then keeps it
        alive. This thread is free at once (a tab's stream lasts as long as the tab)."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.end_headers()
        self.wfile.write(b"retry: 500\n\n")
        outgoing = self.request.outgoing
        hub = self.server.hub
        outgoing.stream(KEEP_ALIVE, KEEP_ALIVE_SECONDS, on_close=lambda: hub.disconnect(outgoing.push))
        hub.connect(outgoing.push)
        if outgoing.is_finished:  # its client left before it was connected: on_close came first
            hub.disconnect(outgoing.push)

    def end_headers(self) -> None:
        """Keep pages out of the browser's cache; let it revalidate the rest.

        A page's URL holds new bytes after every rebuild, and a revalidation
        by modification time (1 s resolution) could miss two saves within a
        second, hence no-store. Assets carry their content hash in their name
        and the Pyodide runtime its version, so revalidating them is safe and
        spares the lab a 10 MB download on every reload.
        """
        path = getattr(self, "path", "").split("?", 1)[0]  # no path: a request line too long to read (414)
        cacheable = path.startswith(("/assets/", "/pyodide/")) or (path.startswith("/lab/") and path.endswith(".zip"))
        self.send_header("Cache-Control", "no-cache" if cacheable else "no-store")
        super().end_headers()
