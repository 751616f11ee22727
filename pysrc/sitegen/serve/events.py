"""Server-sent events: what every open tab is told (a rebuild to reload for, a failed build's problems).

The dev server's pages subscribe at /__rollouts__/events (overlay.py's
script); a tab that connects late is first told the current state ("hello").
"""

from __future__ import annotations

import json
import queue
import threading

# A comment on the stream now and then keeps proxies and browsers from closing it.
KEEP_ALIVE_SECONDS = 15


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


def next_message(client: queue.Queue[str | None]) -> str | None:
    """Return a tab's next event, a keep-alive comment after KEEP_ALIVE_SECONDS of quiet, or None when the stream ends."""
    try:
        return client.get(timeout=KEEP_ALIVE_SECONDS)
    except queue.Empty:
        return ": keep-alive\n\n"
