"""Serve a folder over HTTP on 127.0.0.1 with the content types the site needs.

One table of types for every server of the built site: `build.py serve`
(serve.py builds its handler on StaticRequestHandler), and the browser tests
and benchmarks (serve_folder, under a sub-path as on a static host's project
site). The types are explicit because Python's mimetypes table depends on the
machine, and Pyodide needs application/wasm to compile while streaming.
"""

from __future__ import annotations

import socket
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from io import BytesIO
from pathlib import Path
from typing import BinaryIO

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
    ".xml": "application/xml",
}


class StaticRequestHandler(SimpleHTTPRequestHandler):
    """Files of one folder with explicit content types, and no log line per request."""

    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **CONTENT_TYPES}  # noqa: RUF012 - http.server reads it from the class

    def log_message(self, format: str, *args: object) -> None:
        """Keep the terminal for build reports and test failures, not one line per request."""


class SubPathRequestHandler(StaticRequestHandler):
    """Serve the folder under the server's sub-path only; anything else is 404."""

    server: SubPathServer

    def send_head(self) -> BytesIO | BinaryIO | None:
        """Map <prefix>... to the folder; refuse paths outside the prefix."""
        prefix = self.server.prefix
        if not self.path.startswith(prefix):
            self.send_error(HTTPStatus.NOT_FOUND, "outside the site's sub-path")
            return None
        self.path = "/" + self.path[len(prefix) :]
        return super().send_head()


class SubPathServer(ThreadingHTTPServer):
    """Serves one folder under a sub-path on a free port of 127.0.0.1."""

    daemon_threads = True

    def __init__(self, folder: Path, prefix: str) -> None:
        self.prefix = prefix
        super().__init__(("127.0.0.1", 0), partial(SubPathRequestHandler, directory=str(folder)))

    def handle_error(self, request: socket.socket | tuple[bytes, socket.socket], client_address: object) -> None:
        """Ignore connections the browser closed mid-transfer (page closed, worker terminated); report any other error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serve_folder(folder: Path, prefix: str = "/") -> Iterator[str]:
    """Serve `folder` under `prefix` on a free port of 127.0.0.1 from a background thread; yield the prefix's URL; stop on exit."""
    server = SubPathServer(folder, prefix)
    threading.Thread(target=server.serve_forever, name="static-server", daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{prefix}"
    finally:
        server.shutdown()
        server.server_close()
