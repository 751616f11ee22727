"""The servers' common base (sitegen/serve/static_server.py): a Ctrl-C while it starts ends it with the Ctrl-C alone.

TCPServer closes a server whose activation raised, whatever raised: a Ctrl-C
that came before everything the close ends was made once turned into an
AttributeError and a traceback (`build.py serve` exited 1 instead of 130).
Each case interrupts activation at one point.
"""

from __future__ import annotations

import socket
import threading
from http.server import HTTPServer

import pytest

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
