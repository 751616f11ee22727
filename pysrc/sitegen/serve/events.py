"""Server-sent events: what every open tab is told (a rebuild to reload for, a failed build's problems).

The dev server's pages subscribe at /__rollouts__/events (overlay.py's
script); a tab that connects late is first told the current state ("hello").
Each tab's stream is held by the server's outbox (outbox.py), which takes
its events as they come: the hub only calls each tab's `send`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable

# A comment on the stream after this much quiet keeps proxies and browsers from closing it.
KEEP_ALIVE_SECONDS = 15
KEEP_ALIVE = b": keep-alive\n\n"

# How the hub reaches one tab: an event's text, or None when the stream ends.
Send = Callable[[str | None], None]


class EventHub:
    """Server-sent events for every open tab, and the state a newly connected tab is told first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._clients: list[Send] = []
        self.build = 0
        self.problems: list[str] = []
        self._closed = False

    def connect(self, send: Send) -> None:
        """Register a tab; it is told the current state first ("hello")."""
        with self._lock:
            send(format_event("hello", {"build": self.build, "problems": self.problems}))
            if self._closed:
                send(None)
            self._clients.append(send)

    def disconnect(self, send: Send) -> None:
        """Forget a tab that went away."""
        with self._lock:
            if send in self._clients:
                self._clients.remove(send)

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
        for send in self._clients:
            send(message)


def format_event(name: str, data: dict[str, object]) -> str:
    """Return one server-sent event."""
    return f"event: {name}\ndata: {json.dumps(data)}\n\n"
