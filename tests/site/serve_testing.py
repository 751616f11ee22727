"""Helpers for the dev server's tests: run `build.py serve` as a subprocess, read its output and its event stream.

Every wait is bounded (a queue read with a timeout), and every process is
ended by the fixture that started it.
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from site_testing import PROJECT_ROOT

START_TIMEOUT = 60
EVENT_TIMEOUT = 30


@dataclass(frozen=True)
class ServerEvent:
    """One server-sent event: its name and its JSON data."""

    name: str
    data: dict


class ServeProcess:
    """A running `build.py serve`, its output lines as they come, and its port."""

    def __init__(self, content: Path, out_dir: Path, first_line: str = "Built in ") -> None:
        self.out_dir = out_dir
        self.process = subprocess.Popen(
            [
                sys.executable,
                str(PROJECT_ROOT / "build.py"),
                "serve",
                "--port",
                "0",
                "--content",
                content.name,
                "--out",
                str(out_dir),
            ],
            cwd=content.parent,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self.stdout: queue.Queue[str] = queue.Queue()
        self.stderr: queue.Queue[str] = queue.Queue()
        self.stdout_lines: list[str] = []
        self.stdout_ended = False
        self.stderr_ended = False
        self.stderr_lines: list[str] = []
        for stream, lines in ((self.process.stdout, self.stdout), (self.process.stderr, self.stderr)):
            threading.Thread(target=copy_lines, args=(stream, lines), daemon=True).start()
        banner = self.read_stdout_until("Serving ")
        self.port = int(re.search(r"127\.0\.0\.1:(\d+)/", banner).group(1))
        if first_line.startswith("Built"):
            self.read_stdout_until(first_line)
        else:
            self.read_stderr_until(first_line)

    def read_stdout_until(self, start: str, timeout: float = START_TIMEOUT) -> str:
        """Return the next stdout line that starts with `start` (after an optional [time] stamp)."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(
                    f"no line starting {start!r} in {timeout} s; stdout so far: {self.stdout_lines}; stderr: {self.drain_stderr()}"
                )
            try:
                line = self.stdout.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                self.stdout_ended = True
                raise AssertionError(f"the server ended; stdout: {self.stdout_lines}; stderr: {self.drain_stderr()}")
            self.stdout_lines.append(line)
            if re.sub(r"^\[\d\d:\d\d:\d\d\] ", "", line).startswith(start):
                return line

    def read_stderr_until(self, start: str, timeout: float = START_TIMEOUT) -> str:
        """Return the next stderr line that starts with `start` (after an optional [time] stamp)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.stderr.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                continue
            if line is None:
                self.stderr_ended = True
                break
            self.stderr_lines.append(line)
            if re.sub(r"^\[\d\d:\d\d:\d\d\] ", "", line).startswith(start):
                return line
        raise AssertionError(f"no stderr line starting {start!r}; stderr so far: {self.stderr_lines}")

    def drain_stderr(self) -> list[str]:
        """Return every stderr line printed so far."""
        while True:
            try:
                line = self.stderr.get_nowait()
            except queue.Empty:
                return self.stderr_lines
            if line is None:
                self.stderr_ended = True
            else:
                self.stderr_lines.append(line)

    def get(self, path: str) -> tuple[int, dict[str, str], bytes]:
        """GET a path from the server; return status, headers and body."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=EVENT_TIMEOUT)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            connection.close()

    def stop(self, signal_number: int | None = None) -> tuple[int, str, str]:
        """Stop the server (with the given signal, default SIGINT as Ctrl-C sends); return status, stdout, stderr."""
        import signal

        if self.process.poll() is None:
            self.process.send_signal(signal_number or signal.SIGINT)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        # Until the reader threads have seen both streams end (on a busy machine they may not have read the last
        # lines yet when the process is gone), not for a fixed time.
        deadline = time.monotonic() + EVENT_TIMEOUT
        while not (self.stdout_ended and self.stderr_ended) and time.monotonic() < deadline:
            self.stdout_ended = self.stdout_ended or self._take(self.stdout, self.stdout_lines)
            self.stderr_ended = self.stderr_ended or self._take(self.stderr, self.stderr_lines)
        return self.process.returncode, "".join(self.stdout_lines), "".join(self.drain_stderr())

    @staticmethod
    def _take(lines: queue.Queue[str], into: list[str]) -> bool:
        """Move one line (waiting a moment for it) from a reader's queue to `into`; say whether the stream ended."""
        try:
            line = lines.get(timeout=0.05)
        except queue.Empty:
            return False
        if line is None:
            return True
        into.append(line)
        return False


def send_raw_request(port: int, path: bytes, host: bytes | None) -> tuple[int, bytes]:
    """Send one GET as bytes (any path, any Host or none) and return the status and body; 0 when no answer came."""
    head = b"GET " + path + b" HTTP/1.1\r\n" + (b"Host: " + host + b"\r\n" if host is not None else b"")
    with socket.create_connection(("127.0.0.1", port), timeout=EVENT_TIMEOUT) as connection:
        connection.sendall(head + b"Connection: close\r\n\r\n")
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    return (int(status_line.split()[1]) if status_line else 0), rest.partition(b"\r\n\r\n")[2]


def copy_lines(stream, lines: queue.Queue) -> None:
    """Copy a pipe's lines into a queue; None marks its end."""
    for line in stream:
        lines.put(line)
    lines.put(None)


class EventStream:
    """A client of the server's event stream that queues each event as it arrives."""

    def __init__(self, port: int) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=EVENT_TIMEOUT * 4)
        self.connection.request("GET", "/__rollouts__/events")
        self.response = self.connection.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type") == "text/event-stream; charset=utf-8"
        self.events: queue.Queue[ServerEvent | None] = queue.Queue()
        threading.Thread(target=self.read_events, daemon=True).start()

    def read_events(self) -> None:
        """Parse the stream: `event:` and `data:` lines, a blank line ends each event."""
        name, data = "message", []
        try:
            for raw in self.response:
                line = raw.decode().rstrip("\n")
                if line.startswith("event: "):
                    name = line[len("event: ") :]
                elif line.startswith("data: "):
                    data.append(line[len("data: ") :])
                elif not line:
                    if data:
                        self.events.put(ServerEvent(name, json.loads("\n".join(data))))
                    name, data = "message", []
        except (OSError, ValueError):
            pass
        self.events.put(None)

    def next_event(self, timeout: float = EVENT_TIMEOUT) -> ServerEvent:
        """Return the next event (fail after `timeout` seconds)."""
        try:
            event = self.events.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no event within {timeout} s") from None
        assert event is not None, "the event stream ended"
        return event

    def close(self) -> None:
        """Close the connection."""
        self.connection.close()


def list_processes_mentioning(*texts: str) -> list[int]:
    """Return the ids of running processes whose command line contains every one of the texts."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if all(text in command for text in texts) and int(entry.name) != os.getpid():
            found.append(int(entry.name))
    return found


def list_children(process_id: int) -> list[int]:
    """Return the ids of a process's children (Linux /proc)."""
    children = []
    for task in Path(f"/proc/{process_id}/task").glob("*"):
        try:
            children += [int(p) for p in (task / "children").read_text().split()]
        except OSError:
            continue
    return children


def is_running(process_id: int) -> bool:
    """Say whether a process exists and is not a zombie."""
    try:
        status = Path(f"/proc/{process_id}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status
