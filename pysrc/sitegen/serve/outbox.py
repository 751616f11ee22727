"""The servers' sending side: an answer goes out as its client takes it, and no thread waits for a slow reader.

A handler (static_server.py) writes its answer into the connection's
Outgoing: its head and small bodies as bytes, a file as the file itself (a
duplicate of the handle it opened, read as it is sent). Whatever the client
takes at once is sent there and then, without waiting; the rest, and every
event stream (handler.py), belongs to the Outbox: one thread and a selector
that send as each client takes, drop a client that takes nothing for
SEND_SECONDS, send a stream's keep-alive after its quiet, and notice a
stream's client going away. A handler's thread is free as soon as its answer
is written, so neither 40 event streams nor 40 readers that take a byte at a
time hold the server's HANDLER_THREADS (they once held all of them: the next
request waited for as long as they lasted).
"""

from __future__ import annotations

import contextlib
import queue
import selectors
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import BinaryIO

# What a file is read in, as it is sent.
CHUNK = 256 * 1024
# A client that takes nothing of what is waiting for it for this long is dropped, its connection closed.
SEND_SECONDS = 30.0


class Outgoing:
    """What is still to be sent on one connection, in order: bytes and files; the handler's `wfile`.

    Any thread may add to it (the handler's; the event hub's, for a stream);
    once anything waits, the Outbox's thread sends it and closes the
    connection, and only that thread does.
    """

    def __init__(self, connection: socket.socket, outbox: Outbox, close: Callable[[socket.socket], None]) -> None:
        self.connection = connection
        self.streaming = False  # held open after its handler returns, until `end`, the client leaves, or the server stops
        self.keep_alive = b""
        self.keep_alive_seconds = 0.0
        self.last_sent = time.monotonic()
        self._outbox = outbox
        self._close = close
        self._on_close: Callable[[], None] | None = None
        self._lock = threading.Lock()
        self._pending: deque[bytes | memoryview | BinaryIO] = deque()
        self._ended = False
        self._broken = False
        self._handed_over = False
        self._closed = False

    # The handler's wfile (StreamRequestHandler flushes and closes it when the request is done: that ends nothing).
    closed = False

    def write(self, data: bytes | bytearray | memoryview) -> int:
        """Send `data` after what is waiting (as much as the client takes now; the rest later)."""
        if data:
            with self._lock:
                self._pending.append(bytes(data))
            self._send_or_hand_over()
        return len(data)

    def flush(self) -> None:
        """Nothing to do: what is written is sent as the client takes it."""

    def close(self) -> None:
        """Nothing to do: the connection ends with `end` (the server's, once the handler returned)."""

    def send_file(self, file: BinaryIO) -> None:
        """Send the rest of `file` after what is waiting, read as it goes; close it once sent (or dropped)."""
        with self._lock:
            self._pending.append(file)
        self._send_or_hand_over()

    def stream(self, keep_alive: bytes, every: float, on_close: Callable[[], None]) -> None:
        """Hold the connection open once its handler returns, sending `keep_alive` after `every` seconds of quiet;
        `on_close` is called once it is closed."""
        self.keep_alive, self.keep_alive_seconds, self._on_close = keep_alive, every, on_close
        self.streaming = True
        self._send_or_hand_over()

    def push(self, message: str | None) -> None:
        """Send one event (the event hub's way to reach a stream); None ends the stream."""
        if message is None:
            self.end()
        else:
            self.write(message.encode())

    def end(self) -> None:
        """Close the connection once everything waiting is sent."""
        with self._lock:
            self._ended = True
        self._send_or_hand_over()

    def break_off(self) -> None:
        """Close the connection without sending what waits (its handler failed, its client left or took too long)."""
        with self._lock:
            self._broken = True
            self._drop_pending()
        self._send_or_hand_over()

    @property
    def is_finished(self) -> bool:
        """Say whether the connection is to be closed now: everything sent after `end`, or broken off."""
        return self._broken or (self._ended and not self._pending)

    @property
    def has_pending(self) -> bool:
        """Say whether anything waits to be sent."""
        return bool(self._pending)

    def send_now(self) -> None:
        """Send what the client takes without waiting (a closed or failed connection is broken off)."""
        with self._lock:
            if not self._pending or self._broken:
                return
            if self.connection.gettimeout() != 0:
                # Blocking until here: the request was read with a time-out. A send with one waits for room.
                self.connection.setblocking(False)
            while self._pending:
                item = self._pending[0]
                if not isinstance(item, (bytes, memoryview)):
                    chunk = item.read(CHUNK)
                    if chunk:
                        self._pending.appendleft(memoryview(chunk))
                    else:
                        item.close()
                        self._pending.popleft()
                    continue
                try:
                    sent = self.connection.send(item)
                except (BlockingIOError, InterruptedError):
                    return
                except OSError:  # the client went away
                    self._broken = True
                    self._drop_pending()
                    return
                self.last_sent = time.monotonic()
                if sent < len(item):
                    self._pending[0] = memoryview(item)[sent:]
                    return
                self._pending.popleft()

    def close_connection(self) -> None:
        """Close the connection (once) and drop what waits; tell the stream's owner."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._drop_pending()
        self._close(self.connection)
        if self._on_close is not None:
            self._on_close()

    def _drop_pending(self) -> None:
        for item in self._pending:
            if not isinstance(item, (bytes, memoryview)):
                item.close()
        self._pending.clear()

    def _send_or_hand_over(self) -> None:
        self.send_now()
        # Until handed over, only the handler's thread knows this connection: it may close it itself.
        if not self._handed_over and self.is_finished:
            self.close_connection()
        elif self._handed_over or self.has_pending or self.streaming:
            self._handed_over = True
            self._outbox.watch(self)


class Outbox:
    """One thread that sends what its connections' clients did not take at once, holds streams open, and closes them."""

    def __init__(self) -> None:
        self._selector = selectors.DefaultSelector()
        self._wake_reader, self._wake_writer = socket.socketpair()
        self._wake_reader.setblocking(False)
        self._selector.register(self._wake_reader, selectors.EVENT_READ, None)
        self._changed: queue.SimpleQueue[Outgoing] = queue.SimpleQueue()
        self._watched: set[Outgoing] = set()
        self._stopping = False
        self._thread = threading.Thread(target=self._run, name="http-sending", daemon=True)

    def start(self) -> None:
        """Start the sending thread."""
        self._thread.start()

    def watch(self, outgoing: Outgoing) -> None:
        """Take a connection whose state changed (data waits, a stream began or ended, it broke) into account."""
        if self._stopping:
            outgoing.close_connection()
            return
        self._changed.put(outgoing)
        with contextlib.suppress(OSError):  # the pair is closed once the thread ends: the connection was closed too
            self._wake_writer.send(b"\0")

    def stop(self) -> None:
        """Close every connection it holds, and end the thread."""
        self._stopping = True
        with contextlib.suppress(OSError):
            self._wake_writer.send(b"\0")

    def _run(self) -> None:
        last_sweep = time.monotonic()
        while not self._stopping:
            for key, mask in self._selector.select(timeout=1.0):
                outgoing = key.data
                if outgoing is None:
                    with contextlib.suppress(BlockingIOError):
                        self._wake_reader.recv(4096)
                    continue
                if mask & selectors.EVENT_READ:
                    read_and_forget(outgoing)
                if mask & selectors.EVENT_WRITE:
                    outgoing.send_now()
                self._settle(outgoing)
            while True:
                try:
                    outgoing = self._changed.get_nowait()
                except queue.Empty:
                    break
                outgoing.send_now()
                self._settle(outgoing)
            now = time.monotonic()
            if now - last_sweep >= 1.0:
                last_sweep = now
                self._sweep(now)
        for outgoing in list(self._watched):
            self._forget(outgoing)
        while True:
            try:
                self._changed.get_nowait().close_connection()
            except queue.Empty:
                break
        self._selector.close()
        self._wake_reader.close()
        self._wake_writer.close()

    def _sweep(self, now: float) -> None:
        for outgoing in list(self._watched):
            if outgoing.has_pending and now - outgoing.last_sent > SEND_SECONDS:
                outgoing.break_off()
            elif outgoing.streaming and not outgoing.has_pending and now - outgoing.last_sent > outgoing.keep_alive_seconds:
                outgoing.write(outgoing.keep_alive)
            self._settle(outgoing)

    def _settle(self, outgoing: Outgoing) -> None:
        """Close a finished connection; otherwise watch it for room to send (and a stream for its client leaving)."""
        if outgoing.is_finished:
            self._forget(outgoing)
            return
        events = (selectors.EVENT_READ if outgoing.streaming else 0) | (selectors.EVENT_WRITE if outgoing.has_pending else 0)
        registered = outgoing in self._watched
        if not events:  # its handler is still writing: it says when there is more
            if registered:
                self._selector.unregister(outgoing.connection)
                self._watched.discard(outgoing)
        elif registered:
            self._selector.modify(outgoing.connection, events, outgoing)
        else:
            self._selector.register(outgoing.connection, events, outgoing)
            self._watched.add(outgoing)

    def _forget(self, outgoing: Outgoing) -> None:
        if outgoing in self._watched:
            self._selector.unregister(outgoing.connection)
            self._watched.discard(outgoing)
        outgoing.close_connection()


def read_and_forget(outgoing: Outgoing) -> None:
    """Read what a stream's client sent (nothing is expected); the end of its stream, or an error, breaks it off."""
    try:
        data = outgoing.connection.recv(4096)
    except (BlockingIOError, InterruptedError):
        return
    except OSError:
        data = b""
    if not data:
        outgoing.break_off()
