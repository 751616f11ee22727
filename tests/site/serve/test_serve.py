"""`build.py serve` as an author uses it: edit, see the reload; break, see the error; fix, see the recovery; Ctrl-C.

The server runs as a subprocess on a free port over a copy of the sample
content, with its own output folder; every wait is bounded.
"""

from __future__ import annotations

import resource
import signal
import socket
import time

import pytest

from serve_testing import EventStream, ServeProcess, is_running, list_children, list_processes_mentioning, send_raw_request
from site_testing import copy_sample, snapshot_folder
from sitegen.serve.static_server import HANDLER_THREADS
from sitegen.serve.watcher import WatchedFolders


@pytest.fixture
def server(tmp_path):
    """A dev server over a copy of the sample content; always stopped at the end."""
    content = copy_sample(tmp_path)
    serving = ServeProcess(content, tmp_path / "dist")
    try:
        yield serving
    finally:
        serving.stop(signal.SIGKILL if serving.process.poll() is None else None)


def edit(path, old: str, new: str) -> None:
    """Replace one exact piece of text in a file (it must be there)."""
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_an_edit_changes_the_served_page_and_sends_a_reload_event(server, tmp_path):
    events = EventStream(server.port)
    try:
        hello = events.next_event()
        assert (hello.name, hello.data) == ("hello", {"build": 1, "problems": []})
        chapter = tmp_path / "content/02-possibilities.md"
        chapter.write_text(chapter.read_text(encoding="utf-8"), encoding="utf-8")  # saved without a change
        assert server.read_stdout_until("Rebuilt in ").endswith("rendered no page; 0 file(s) changed\n")
        edit(chapter, "## ", "A sentence typed just now.\n\n## ")
        reload = events.next_event()  # the save without a change sent nothing
        assert reload.name == "reload"
        assert reload.data["build"] == 2
        # Prose is in the search index; the service worker's manifest (and so its version) holds every page's hash.
        assert reload.data["changed"] == ["02-possibilities.html", "offline.json", "search-index.json", "sw.js"]
    finally:
        events.close()
    status, headers, body = server.get("/02-possibilities.html")
    assert status == 200
    assert b"A sentence typed just now." in body
    assert b'<script src="/__rollouts__/reload.js" data-build="2" data-rollouts-dev defer></script>\n</head>' in body
    assert headers["cache-control"] == "no-store"
    # The script is added while serving; the output folder is exactly what `build.py` writes.
    written = (tmp_path / "dist/02-possibilities.html").read_bytes()
    assert b"__rollouts__" not in written
    assert (
        body.replace(b'<script src="/__rollouts__/reload.js" data-build="2" data-rollouts-dev defer></script>\n', b"") == written
    )


def test_a_build_error_is_sent_and_printed_the_last_good_page_stays_and_a_fix_recovers(server, tmp_path):
    chapter = tmp_path / "content/03-scoring.md"
    good = chapter.read_text(encoding="utf-8")
    _status, _headers, before = server.get("/03-scoring.html")
    events = EventStream(server.port)
    try:
        assert events.next_event().name == "hello"
        edit(chapter, "[reward](term:)", "[reward](term:rewrd)")
        error = events.next_event()
        assert error.name == "build-error"
        assert error.data == {
            "build": 1,
            "problems": [
                "content/03-scoring.md:6: unknown glossary term 'rewrd' (did you mean 'reward'?)",
                "content/glossary.md:11: warning: glossary term 'reward' is not used in any chapter",
            ],
        }
        assert server.get("/03-scoring.html")[2] == before  # the last good build is still served
        # A tab that connects now is told about the problems at once.
        late = EventStream(server.port)
        try:
            assert late.next_event().data["problems"][0].startswith("content/03-scoring.md:6: unknown glossary term")
        finally:
            late.close()

        chapter.write_text(good, encoding="utf-8")
        recovered = events.next_event()
        assert recovered.name == "reload"
        assert recovered.data["build"] == 2
    finally:
        events.close()
    status, _headers, after = server.get("/")
    assert status == 200 and b'data-build="2"' in after
    stderr = "".join(server.drain_stderr())
    assert (
        "Build failed; still serving the last good build:\n"
        "content/03-scoring.md:6: unknown glossary term 'rewrd' (did you mean 'reward'?)\n"
        "content/glossary.md:11: warning: glossary term 'reward' is not used in any chapter\n"
    ) in stderr
    assert "Traceback" not in stderr


def test_a_first_build_that_fails_serves_a_page_that_reloads_once_it_is_fixed(tmp_path):
    content = copy_sample(tmp_path)
    chapter = content / "01-rollout.md"
    good = chapter.read_text(encoding="utf-8")
    chapter.write_text(good.replace("[rollout](term:)", "[rollout](term:rollot)", 1), encoding="utf-8")
    serving = ServeProcess(content, tmp_path / "dist", first_line="Build failed")
    try:
        status, _headers, body = serving.get("/")
        assert status == 503
        assert b"<h1>Not built yet</h1>" in body
        assert b'<script src="/__rollouts__/reload.js" data-build="0" data-rollouts-dev defer></script>\n</head>' in body
        events = EventStream(serving.port)
        try:
            hello = events.next_event()
            assert (
                hello.data["problems"][0] == "content/01-rollout.md:6: unknown glossary term 'rollot' (did you mean 'rollout'?)"
            )
            chapter.write_text(good, encoding="utf-8")
            assert events.next_event().name == "reload"
        finally:
            events.close()
        assert serving.get("/")[0] == 200
    finally:
        serving.stop(signal.SIGKILL if serving.process.poll() is None else None)


def test_files_are_served_with_the_types_the_lab_needs_and_missing_pages_get_the_404_page(server, tmp_path):
    dist = tmp_path / "dist"
    (pyodide,) = (p.name for p in (dist / "pyodide").iterdir())
    status, headers, _body = server.get(f"/pyodide/{pyodide}/pyodide.asm.wasm")
    assert (status, headers["content-type"], headers["cache-control"]) == (200, "application/wasm", "no-cache")
    assert server.get(f"/pyodide/{pyodide}/pyodide.mjs")[1]["content-type"] == "text/javascript; charset=utf-8"
    script = next(p.name for p in (dist / "assets").glob("*.js"))
    assert server.get(f"/assets/{script}")[1]["content-type"] == "text/javascript; charset=utf-8"
    status, headers, body = server.get("/no-such-page.html")
    assert (status, headers["content-type"]) == (404, "text/html; charset=utf-8")
    assert (
        body.replace(b'<script src="/__rollouts__/reload.js" data-build="1" data-rollouts-dev defer></script>\n', b"")
        == (dist / "404.html").read_bytes()
    )
    status, headers, body = server.get("/__rollouts__/reload.js")
    assert (status, headers["content-type"]) == (200, "text/javascript; charset=utf-8")
    assert b'new EventSource(prefix + "events")' in body


def test_hostile_requests_get_a_clean_answer_and_the_terminal_stays_quiet(server, tmp_path):
    port = str(server.port).encode()
    here = b"127.0.0.1:" + port
    not_found = send_raw_request(server.port, b"/no-such-page.html", here)
    assert not_found[0] == 404
    # a name longer than any file system allows, a request line over http.server's 64 KB, a folder without index.html
    assert send_raw_request(server.port, b"/" + b"a" * 300, here) == not_found
    assert send_raw_request(server.port, b"/assets/" + b"a" * 300 + b".css", here)[0] == 404
    assert send_raw_request(server.port, b"/" + b"a" * 100_000, here)[0] == 414
    assert send_raw_request(server.port, b"/assets/", here) == not_found
    assert send_raw_request(server.port, b"/assets", here) == not_found
    # DNS rebinding: another site's page whose name resolves to 127.0.0.1 reads nothing
    for host in (b"rebind.example:" + port, b"127.0.0.1:1", b"127.0.0.1", b"localhost.example:" + port):
        status, body = send_raw_request(server.port, b"/index.html", host)
        assert status == 403 and b"rollouts" not in body.lower().replace(b"__rollouts__", b""), host
    for host in (here, b"localhost:" + port, b"LocalHost:" + port, b"[::1]:" + port, None):
        status, body = send_raw_request(server.port, b"/index.html", host)
        assert status == 200 and b"__rollouts__/reload.js" in body, host
    assert server.drain_stderr() == []


def test_ctrl_c_stops_the_server_the_build_process_and_katex_without_a_traceback(server, tmp_path):
    events = EventStream(server.port)
    try:
        assert events.next_event().name == "hello"
        # A formula no cache has seen makes the build process start KaTeX's node process.
        edit(tmp_path / "content/02-possibilities.md", "## ", f"A new formula $x_{{{time.time_ns()}}}$ here.\n\n## ")
        assert events.next_event().name == "reload"
    finally:
        events.close()
    [worker] = list_processes_mentioning("sitegen.serve.build_worker", str(server.out_dir))
    helpers = [worker, *list_children(worker)]
    assert len(helpers) == 2, "the build process and its KaTeX process"

    status, stdout, stderr = server.stop(signal.SIGINT)

    assert status == 0
    assert stdout.endswith("Stopped.\n")
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    deadline = time.monotonic() + 10
    while any(is_running(pid) for pid in helpers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(is_running(pid) for pid in helpers)
    assert b"__rollouts__" not in b"".join(snapshot_folder(tmp_path / "dist").values())


def test_changes_are_classified_by_the_folder_they_are_in(tmp_path):
    folders = WatchedFolders(tmp_path / "content", tmp_path / "site_templates", tmp_path / "client", tmp_path / "pysrc")
    assert folders.classify([str(tmp_path / "content/01-rollout.md")]) == "content"
    assert folders.classify([str(tmp_path / "content/figures/a.svg"), str(tmp_path / "site_templates/base.html")]) == "all"
    assert folders.classify([str(tmp_path / "site_templates/static/css/site.css")]) == "all"
    assert folders.classify([str(tmp_path / "client/python/pyodide-start.mjs")]) == "all"
    assert folders.classify([str(tmp_path / "content/01-rollout.md"), str(tmp_path / "pysrc/sitegen/render.py")]) == "code"


def count_threads(process_id: int) -> int:
    with open(f"/proc/{process_id}/status", encoding="ascii") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("Threads:"))


def test_five_thousand_abandoned_connections_cost_no_threads_and_the_next_request_is_answered(tmp_path):
    # Each connection once got a thread that waited for its request for ever: 5,000 threads, and about 70 s
    # before the server answered again. Half send nothing, half half a request.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 12_000:
        pytest.skip(f"needs 12,000 open files (the hard limit is {hard})")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 12_000), hard))  # inherited by the server
    server = ServeProcess(copy_sample(tmp_path), tmp_path / "dist")
    abandoned = []
    try:
        for index in range(5000):
            connection = socket.create_connection(("127.0.0.1", server.port), timeout=60)
            if index % 2:
                connection.sendall(b"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            abandoned.append(connection)
        status, _headers, body = server.get("/index.html")
        assert status == 200 and b"__rollouts__/reload.js" in body
        assert count_threads(server.process.pid) < HANDLER_THREADS + 20
    finally:
        for connection in abandoned:
            connection.close()
        server.stop(signal.SIGKILL)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
