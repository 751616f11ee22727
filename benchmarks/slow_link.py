"""A preview server behind one slow link: what a phone's connection does to a page and its workers.

Chromium's network throttling (CDP) does not reach a page's workers, which
fetch the runtime: the wasm arrived in 268 ms under "16 Mbit/s" (issue 40).
So the link is the server's: every response waits `latency` seconds before
its first byte, and every body goes out in small pieces through one shared
`Link`, which lets `rate` bits a second through for all requests together
(the next piece of any response waits its turn), as a phone's one radio link does.

The server logs what it sent: (seconds since it started, path, status, bytes)
per GET, and the link counts every body byte as it leaves, so a benchmark can
read how much had been sent at a given moment.
"""

from __future__ import annotations

import io
import os
import threading
import time
from functools import partial
from pathlib import Path
from typing import BinaryIO

from sitegen.serve.static_server import SubPathRequestHandler, SubPathServer

PIECE = 16 * 1024


class Link:
    """One link shared by every response: pieces are let through one after another at `rate` bits a second."""

    def __init__(self, rate: float) -> None:
        self.rate = rate
        self.lock = threading.Lock()
        self.free_at = 0.0  # when the link has sent everything booked so far (time.monotonic)
        self.sent = 0  # body bytes sent so far

    def send(self, size: int) -> None:
        """Book `size` bytes on the link and wait until they would have passed it."""
        with self.lock:
            start = max(time.monotonic(), self.free_at)
            self.free_at = start + size * 8 / self.rate
            done = self.free_at
        delay = done - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        with self.lock:
            self.sent += size


class SlowLinkServer(SubPathServer):
    """The preview server behind one `Link` of `rate` bits a second, each response `latency` seconds late."""

    def __init__(self, folder: Path, prefix: str, rate: float = 16e6, latency: float = 0.150) -> None:
        super().__init__(folder, prefix)
        self.link = Link(rate)
        self.latency = latency
        self.started = time.monotonic()
        self.sent: list[tuple[float, str, int, int]] = []
        self.RequestHandlerClass = partial(SlowLinkHandler, directory=str(folder))

    def clear(self) -> None:
        """Forget what was sent so far (the link's counter too)."""
        self.sent.clear()
        with self.link.lock:
            self.link.sent = 0


class SlowLinkHandler(SubPathRequestHandler):
    server: SlowLinkServer

    def send_head(self) -> io.BytesIO | BinaryIO | None:
        time.sleep(self.server.latency)
        self._status = 0
        body = super().send_head()
        if self.command == "GET" and body is not None:
            size = len(body.getvalue()) if isinstance(body, io.BytesIO) else os.fstat(body.fileno()).st_size
            self.server.sent.append((time.monotonic() - self.server.started, self.path, self._status, size))
        return body

    def send_response(self, code: int, message: str | None = None) -> None:
        self._status = int(code)
        super().send_response(code, message)

    def copyfile(self, source: BinaryIO, outputfile: BinaryIO) -> None:  # type: ignore[override]
        """Send the body through the shared link, piece by piece."""
        while piece := source.read(PIECE):
            self.server.link.send(len(piece))
            outputfile.write(piece)
