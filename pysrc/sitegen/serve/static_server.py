"""Serve a folder over HTTP on 127.0.0.1 with the content types the site needs.

One table of types for every server of the built site: `build.py serve`
(handler.py builds its handler on StaticRequestHandler), and the preview
(`build.py preview`, the browser tests and the benchmarks: serve_preview). The
types are explicit because Python's mimetypes table depends on the machine,
and Pyodide needs application/wasm to compile while streaming.

The preview behaves like a static host serving a project site: the folder
under a sub-path (/rollouts/), the site's 404.html with status 404 for any
missing address under it, the headers of the folder's `_headers` file (as
Netlify and Cloudflare Pages send them), validators for conditional requests,
and nothing a host would not send (no reload script, no no-store).
"""

from __future__ import annotations

import contextlib
import io
import os
import queue
import selectors
import socket
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from http import HTTPStatus
from http.server import HTTPServer, SimpleHTTPRequestHandler
from pathlib import Path
from typing import Any, BinaryIO

from sitegen.publish.host_headers import HEADERS_FILE, find_headers, read_headers
from sitegen.serve.outbox import Outbox, Outgoing

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".bin": "application/octet-stream",
    ".svg": "image/svg+xml",
    ".woff2": "font/woff2",
    ".xml": "application/xml",
}


# The names this machine's own browser uses for a server on 127.0.0.1. A page of another site whose name
# its DNS points at 127.0.0.1 (DNS rebinding) sends its own name: it is refused, so it reads nothing here.
LOCAL_HOST_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})


# A connection's request head (request line and headers) is read without a thread, and must arrive whole within
# HEAD_SECONDS; then one of HANDLER_THREADS threads answers it, each read waiting at most READ_SECONDS, and the
# answer goes out without a thread (outbox.py). A thread per connection (http.server's ThreadingMixIn) let 5,000
# abandoned connections make 5,000 threads that waited for ever: the server took about 70 s to answer the next request.
HANDLER_THREADS = 32
HEAD_SECONDS = 15.0
READ_SECONDS = 10.0
HEAD_LIMIT = 128 * 1024  # past http.server's own limits (64 KB a line, 100 headers): it answers 414 or 431 itself


class PatientHTTPServer(HTTPServer):
    """An HTTP server whose cost a client that connects and says nothing (or says it slowly) cannot drive up.

    The accepting thread only hands each connection to a waiting room (one
    thread, a selector) that reads its request head as it comes; a whole head
    goes to one of a fixed set of daemon threads, which answers it. A head not
    whole within HEAD_SECONDS is dropped with its connection. The answer is
    sent by the outbox (outbox.py: one thread, a selector), as its client
    takes it: a slow reader or an event stream holds no handler's thread.
    """

    # socketserver's default backlog is 5: a page's first burst (stylesheet, scripts, fonts, icon, the
    # runtime's files) can overflow it while a loaded machine is slow to accept, and the browser then
    # sees a reset connection. Static hosts accept far more. At 128, a burst still overflowed it whenever
    # the accepting thread waited a few ms for the GIL: each dropped connection then waits for its client's
    # retry (1 s, then 3 s), and 5,000 connections took 14 s to open here against 0.2 s at 1024 (Linux caps
    # the backlog at net.core.somaxconn, 4096 by default).
    request_queue_size = 1024
    # Set once everything the threads use is made, just before they start. A Ctrl-C can cut activation short
    # anywhere, and TCPServer then closes the server at once (server_close): before this, there is nothing to end.
    _activated = False

    def server_activate(self) -> None:
        """Listen, and start the waiting room's thread and the handlers' threads."""
        super().server_activate()
        self._closed = False
        self._waiting = selectors.DefaultSelector()
        self._waiting_lock = threading.Lock()  # the accepting thread registers while the waiting room's selects
        self._wake_reader, self._wake_writer = socket.socketpair()
        self._wake_reader.setblocking(False)
        self._waiting.register(self._wake_reader, selectors.EVENT_READ, None)
        self._ready: queue.Queue[tuple[socket.socket, WaitingHead] | None] = queue.Queue()
        self._outbox = Outbox()
        self._outbox.start()
        self._threads = [threading.Thread(target=self._watch_waiting, name="http-waiting", daemon=True)]
        self._threads += [
            threading.Thread(target=self._handle_ready, name=f"http-{n}", daemon=True) for n in range(HANDLER_THREADS)
        ]
        self._activated = True
        for thread in self._threads:
            thread.start()

    def process_request(self, request: socket.socket, client_address: object) -> None:  # type: ignore[override]
        """Put an accepted connection in the waiting room until it sends something (called by the accepting thread)."""
        request.setblocking(False)
        with self._waiting_lock:
            self._waiting.register(request, selectors.EVENT_READ, WaitingHead(client_address, time.monotonic()))
        self._wake_writer.send(b"\0")

    def server_close(self) -> None:
        """Stop listening, close the connections still waiting, and end the threads once their requests are done."""
        super().server_close()
        if not self._activated:
            return
        self._closed = True
        self._wake_writer.send(b"\0")
        self._outbox.stop()
        for _thread in range(HANDLER_THREADS):
            self._ready.put(None)

    def _watch_waiting(self) -> None:
        last_sweep = time.monotonic()
        while not self._closed:
            events = self._waiting.select(timeout=1.0)
            readable = [key for key, _mask in events if key.data is not None]
            whole = [key for key in readable if read_head(key.fileobj, key.data)]  # type: ignore[arg-type]
            now = time.monotonic()
            late = []
            with self._waiting_lock:
                if self._closed or now - last_sweep >= 1.0:  # once a second: thousands may be waiting
                    last_sweep = now
                    late = [
                        key
                        for key in self._waiting.get_map().values()
                        if key.data is not None and key not in whole and (self._closed or now - key.data.since > HEAD_SECONDS)
                    ]
                for key in whole + late:
                    self._waiting.unregister(key.fileobj)
            with contextlib.suppress(BlockingIOError):
                self._wake_reader.recv(4096)
            for key in whole:
                key.fileobj.setblocking(True)  # type: ignore[union-attr]
                self._ready.put((key.fileobj, key.data))  # type: ignore[arg-type]
            for key in late:
                self.shutdown_request(key.fileobj)  # type: ignore[arg-type]
        self._waiting.close()
        self._wake_reader.close()
        self._wake_writer.close()

    def _handle_ready(self) -> None:
        while (item := self._ready.get()) is not None:
            request, head = item
            client_address = head.client_address
            outgoing = Outgoing(request, self._outbox, self.shutdown_request)
            try:
                self.finish_request(HeadFirst(request, bytes(head.data), outgoing), client_address)  # type: ignore[arg-type]
            except Exception:  # noqa: BLE001 - as socketserver's own loop: reported by handle_error, the server goes on
                self.handle_error(request, client_address)
                outgoing.break_off()
            else:
                if not outgoing.streaming:
                    outgoing.end()


@dataclass
class WaitingHead:
    """A connection in the waiting room: who, since when, and the bytes of its request head so far."""

    client_address: object
    since: float
    data: bytearray = field(default_factory=bytearray)


def read_head(connection: socket.socket, head: WaitingHead) -> bool:
    """Read what a waiting connection has sent; say whether its head is whole (or it ended, or sent too much)."""
    try:
        chunk = connection.recv(65536)
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:
        return True  # the handler meets the same error, and ends
    head.data += chunk
    return not chunk or b"\r\n\r\n" in head.data or b"\n\n" in head.data or len(head.data) > HEAD_LIMIT


class HeadFirst:
    """A connection whose first bytes (the head the waiting room read) are read again first, and what is still to be
    sent on it (its `outgoing`, the handler's wfile): what a handler is given."""

    def __init__(self, connection: socket.socket, head: bytes, outgoing: Outgoing) -> None:
        self._connection = connection
        self._head = head
        self.outgoing = outgoing

    def makefile(self, mode: str = "r", buffering: int = -1, **options: object) -> Any:
        """Return the connection's file: for reading, the head first, then the socket."""
        if "r" not in mode:
            return self._connection.makefile(mode, buffering, **options)  # type: ignore[call-overload]
        return io.BufferedReader(HeadThenSocket(self._head, self._connection))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._connection, name)


class HeadThenSocket(io.RawIOBase):
    """Raw reads of some bytes already read, then of the socket."""

    def __init__(self, head: bytes, connection: socket.socket) -> None:
        self._head = memoryview(head)
        self._connection = connection

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            count = min(len(buffer), len(self._head))
            buffer[:count] = self._head[:count]
            self._head = self._head[count:]
            return count
        return self._connection.recv_into(buffer)


class StaticRequestHandler(SimpleHTTPRequestHandler):
    """Files of one folder with explicit content types, only for this machine's names, no folder listings, no log."""

    timeout = READ_SECONDS  # each read of a request: a client that stops mid-request frees its thread

    extensions_map = {**SimpleHTTPRequestHandler.extensions_map, **CONTENT_TYPES}  # noqa: RUF012 - http.server reads it from the class

    def setup(self) -> None:
        """Read the request from the connection; write the answer into what the outbox sends (HeadFirst.outgoing)."""
        super().setup()
        self.wfile = self.request.outgoing

    def copyfile(self, source: Any, outputfile: Any) -> None:
        """Hand a file to the outbox whole (a duplicate of its handle, read as it is sent); write anything else."""
        try:
            handle = source.fileno()
        except (AttributeError, OSError, io.UnsupportedOperation):
            super().copyfile(source, outputfile)
            return
        if not isinstance(outputfile, Outgoing):
            super().copyfile(source, outputfile)
            return
        # A duplicate shares the file's position (a subclass may have sent its start) and outlives do_GET's close.
        outputfile.send_file(os.fdopen(os.dup(handle), "rb"))

    def parse_request(self) -> bool:
        """Read the request, then refuse it (403) unless its Host is 127.0.0.1, localhost or [::1] with this port."""
        if not super().parse_request():
            return False
        host = self.headers.get("Host")
        address = self.server.server_address
        port = int(address[1]) if isinstance(address, tuple) else 0
        if host is None or is_local_host(host, port):
            return True  # no Host: HTTP/1.0, never a browser
        self.send_error(HTTPStatus.FORBIDDEN, None, f"This server answers only requests for http://127.0.0.1:{port}/.")
        return False

    def list_directory(self, path: str | os.PathLike[str]) -> io.BytesIO | None:
        """List no folder (static hosts do not): a folder without index.html is not found."""
        self.send_error(HTTPStatus.NOT_FOUND)
        return None

    def log_message(self, format: str, *args: object) -> None:
        """Keep the terminal for build reports and test failures, not one line per request."""


def is_local_host(host: str, port: int) -> bool:
    """Say whether a Host header names this machine (LOCAL_HOST_NAMES) and this port."""
    value = host.strip().lower()
    if value.endswith("]") or ":" not in value:  # no port: HTTP's 80
        name, given_port = value, "80"
    else:
        name, _colon, given_port = value.rpartition(":")
    return name in LOCAL_HOST_NAMES and given_port == str(port)


def is_folder(path: Path) -> bool:
    """Say whether path is a folder; False for any path the system refuses (a name over 255 bytes, say)."""
    return os.path.isdir(path)


def is_file(path: Path) -> bool:
    """Say whether path is a file; False for any path the system refuses (a name over 255 bytes, say)."""
    return os.path.isfile(path)


class SubPathRequestHandler(StaticRequestHandler):
    """Serve the folder under the server's sub-path only, like a static host; anything else is 404."""

    server: SubPathServer
    # The `_headers` file's headers for this response; they replace any the handler would send under the same name.
    host_headers: dict[str, str] = {}  # noqa: RUF012 - a default only: each response assigns its own dict

    def send_head(self) -> io.BytesIO | BinaryIO | None:
        """Map <prefix>... to the folder; refuse paths outside the prefix; send 404.html for what a host would not serve."""
        prefix = self.server.prefix
        path = self.path.split("?", 1)[0].split("#", 1)[0]
        if not (path + "/").startswith(prefix):
            self.host_headers = {}
            self.send_error(HTTPStatus.NOT_FOUND, "outside the site's sub-path")
            return None
        site_path = "/" + path[len(prefix) :]
        local = Path(self.translate_path(site_path))
        if is_folder(local) and not path.endswith("/"):
            self.redirect(path + "/")  # as hosts do; the base class would drop the prefix from the address
            return None
        if is_folder(local):
            local = local / "index.html"
        if local.name == HEADERS_FILE or not is_file(local):  # hosts list no folders and keep _headers to themselves
            return self.send_not_found_page()
        self.host_headers = dict(find_headers(self.server.header_rules, site_path))
        self.path = site_path
        return super().send_head()

    def redirect(self, location: str) -> None:
        """Answer 301 to the address with a trailing slash."""
        self.host_headers = {}
        self.send_response(HTTPStatus.MOVED_PERMANENTLY)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def send_not_found_page(self) -> io.BytesIO | None:
        """Send the site's 404.html (if any) with status 404 and its headers, as GitHub Pages, Netlify and Cloudflare Pages do."""
        page = Path(self.directory) / "404.html"
        if not page.is_file():
            self.host_headers = {}
            self.send_error(HTTPStatus.NOT_FOUND)
            return None
        data = page.read_bytes()
        self.host_headers = dict(find_headers(self.server.header_rules, "/404.html"))
        self.send_response(HTTPStatus.NOT_FOUND)
        self.send_header("Content-Type", CONTENT_TYPES[".html"])
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        return io.BytesIO(data)

    def send_header(self, keyword: str, value: str) -> None:
        """Send a header, unless the `_headers` file sets it for this response."""
        if keyword.lower() not in {name.lower() for name in self.host_headers}:
            super().send_header(keyword, value)

    def end_headers(self) -> None:
        """Add the `_headers` file's headers for this response."""
        for name, value in self.host_headers.items():
            super().send_header(name, value)
        self.host_headers = {}
        super().end_headers()


class SubPathServer(PatientHTTPServer):
    """Serves one folder under a sub-path on 127.0.0.1 (port 0: a free one)."""

    def __init__(self, folder: Path, prefix: str, port: int = 0) -> None:
        self.prefix = prefix
        headers = folder / HEADERS_FILE
        self.header_rules = read_headers(headers.read_text(encoding="utf-8")) if headers.is_file() else ()
        super().__init__(("127.0.0.1", port), partial(SubPathRequestHandler, directory=str(folder)))

    def handle_error(self, request: socket.socket | tuple[bytes, socket.socket], client_address: object) -> None:
        """Ignore connections the browser closed mid-transfer (page closed, worker terminated); report any other error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serve_in_background(server: SubPathServer) -> Iterator[str]:
    """Run `server` from a background thread; yield its prefix's URL; stop and close it on exit."""
    threading.Thread(target=server.serve_forever, name="static-server", daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}{server.prefix}"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def serve_preview(folder: Path, prefix: str = "/") -> Iterator[str]:
    """Serve `folder` under `prefix` on a free port of 127.0.0.1 from a background thread; yield the prefix's URL; stop on exit."""
    with serve_in_background(SubPathServer(folder, prefix)) as url:
        yield url
