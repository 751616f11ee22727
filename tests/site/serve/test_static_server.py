"""The servers' common base (sitegen/serve/static_server.py): a Ctrl-C while it starts ends it with the Ctrl-C alone,
and neither event streams nor slow readers hold the threads that answer requests.

TCPServer closes a server whose activation raised, whatever raised: a Ctrl-C
that came before everything the close ends was made once turned into an
AttributeError and a traceback (`build.py serve` exited 1 instead of 130).
Each case interrupts activation at one point.
"""

from __future__ import annotations

import hashlib
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from http.server import HTTPServer

import pytest

from sitegen.serve.events import EventHub
from sitegen.serve.handler import DevServer
from sitegen.serve.overlay import EVENTS_PATH
from sitegen.serve.static_server import PatientHTTPServer, StaticRequestHandler

# Where activation is cut short: the name of what raises KeyboardInterrupt when first called, and its owner.
INTERRUPTIONS = {
    "while it starts listening": (HTTPServer, "server_activate"),
    "while it makes its wake-up pair": (socket, "socketpair"),
    "while its first thread starts": (threading.Thread, "start"),
}


@pytest.mark.parametrize("where", INTERRUPTIONS)
def test_a_ctrl_c_while_the_server_starts_is_raised_as_it_came(monkeypatch, where):
    owner, name = INTERRUPTIONS[where]

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(owner, name, interrupted)
    with pytest.raises(KeyboardInterrupt):
        PatientHTTPServer(("127.0.0.1", 0), StaticRequestHandler)


def test_a_server_that_started_closes_and_ends_its_threads():
    before = set(threading.enumerate())
    server = PatientHTTPServer(("127.0.0.1", 0), StaticRequestHandler)
    server.server_close()
    for thread in set(threading.enumerate()) - before:
        thread.join(timeout=30)
        assert not thread.is_alive(), thread.name


BIG_FILE_BYTES = 8 * 2**20
LIVENESS_SECONDS = 60  # a bound on every wait, so a server that never answers fails the test instead of hanging it


def open_request(port: int, path: str, receive_buffer: int = 0) -> socket.socket:
    """Connect to the server and send a GET for `path` (a small receive buffer: the server's sends fill it at once)."""
    connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if receive_buffer:
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    connection.settimeout(LIVENESS_SECONDS)
    connection.connect(("127.0.0.1", port))
    connection.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
    return connection


def read_until(connection: socket.socket, marker: bytes) -> bytes:
    """Read until `marker` arrives (or the connection ends); return what was read."""
    data = b""
    while marker not in data:
        chunk = connection.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def read_all(connection: socket.socket) -> tuple[bytes, int, str]:
    """Read an answer to its end; return its status line, its body's size and the body's SHA-256."""
    head = read_until(connection, b"\r\n\r\n")
    head, _blank, start = head.partition(b"\r\n\r\n")
    digest, size = hashlib.sha256(start), len(start)
    while chunk := connection.recv(1 << 20):
        digest.update(chunk)
        size += len(chunk)
    return head.split(b"\r\n")[0], size, digest.hexdigest()


@pytest.fixture
def dev_server(tmp_path) -> Iterator[tuple[int, EventHub, bytes]]:
    """A dev server (real sockets, 127.0.0.1) over a page and an 8 MB file; yield its port, its event hub and the file."""
    site = tmp_path / "site"
    site.mkdir()
    big = bytes(range(256)) * (BIG_FILE_BYTES // 256)
    (site / "big.bin").write_bytes(big)
    (site / "index.html").write_text("<!doctype html><title>T</title><p>the page\n", encoding="utf-8")
    hub = EventHub()
    server = DevServer(("127.0.0.1", 0), site, hub)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield server.server_address[1], hub, big
    finally:
        hub.close()
        server.shutdown()
        server.server_close()


def test_forty_event_streams_hold_no_handler_thread(dev_server):
    """Issue 60: 40 event streams held all 32 handler threads for as long as their tabs stayed open, and the next
    request was never answered."""
    port, hub, _big = dev_server
    streams = []
    try:
        for _ in range(40):
            stream = open_request(port, EVENTS_PATH)
            streams.append(stream)
            assert b"event: hello" in read_until(stream, b"event: hello")
        page = open_request(port, "/index.html")
        assert read_until(page, b"the page").endswith(b"the page\n")
        page.close()
        hub.announce_build(["index.html"], 0.1)
        for stream in streams:
            assert b"event: reload" in read_until(stream, b"event: reload")
    finally:
        for stream in streams:
            stream.close()


def test_forty_stalled_readers_hold_no_handler_thread_and_each_gets_its_whole_file(dev_server):
    """Issue 60: a reader that takes nothing held its handler's thread until the write timed out (10 s), so 40 of them
    delayed every request, and each was dropped. Now the request is answered while they wait, and none is dropped."""
    port, _hub, big = dev_server
    # Each asks for 8 MB and reads nothing yet: the server's sends fill the sockets' buffers and wait.
    readers = [open_request(port, "/big.bin", receive_buffer=4096) for _ in range(40)]
    try:
        page = open_request(port, "/index.html")
        assert read_until(page, b"the page").endswith(b"the page\n")
        page.close()
        expected = (b"HTTP/1.0 200 OK", BIG_FILE_BYTES, hashlib.sha256(big).hexdigest())
        # All read at once, as 40 browsers would: read one after another, the last would take nothing until the
        # 39 before it had their 312 MB, which on a loaded machine can pass the server's SEND_SECONDS and drop it.
        with ThreadPoolExecutor(max_workers=len(readers)) as pool:
            assert list(pool.map(read_all, readers)) == [expected] * len(readers)
    finally:
        for reader in readers:
            reader.close()
