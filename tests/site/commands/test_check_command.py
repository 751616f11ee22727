"""`build.py check`: the build's validation without writing, an external-link report, and --strict.

Link fetching is tested against a server on 127.0.0.1 only: tests never
contact another host.
"""

from __future__ import annotations

import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from site_testing import PROJECT_ROOT, SITE_TESTS, copy_sample, run_cli
from test_bad_inputs import CASE_PARAMS, prepare_content

SAMPLE_LINKS = (
    "content/references.yaml:8: https://arxiv.org/abs/2402.03300\n"
    "content/references.yaml:17: https://arxiv.org/abs/2203.02155\n"
    "content/references.yaml:24: https://spinningup.openai.com/\n"
)


def test_the_real_content_passes_strict_and_its_external_links_are_listed(capsys):
    run = run_cli(["check", "--strict"], PROJECT_ROOT, capsys)
    assert (run.status, run.stderr) == (0, "")
    header, *links = run.stdout.splitlines()
    assert header == f"External links: {len(links)} (listed, not fetched; --fetch-external fetches them)"
    assert links and all(line.startswith("content/") and ": http" in line for line in links)


def test_check_lists_external_links_with_file_and_line_and_writes_nothing(tmp_path, capsys):
    content = copy_sample(tmp_path)
    chapter = content / "02-possibilities.md"
    chapter.write_text(
        chapter.read_text(encoding="utf-8") + "\nSee <https://example.org/a> and [b](http://example.org/b#x).\n", encoding="utf-8"
    )
    lines = chapter.read_text(encoding="utf-8").count("\n")
    run = run_cli(["check", "--content", "content"], tmp_path, capsys)
    assert (run.status, run.stderr) == (0, "")
    assert run.stdout == (
        "External links: 5 (listed, not fetched; --fetch-external fetches them)\n"
        f"content/02-possibilities.md:{lines}: http://example.org/b#x\n"
        f"content/02-possibilities.md:{lines}: https://example.org/a\n" + SAMPLE_LINKS
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content"]


@pytest.mark.parametrize("name", CASE_PARAMS)
def test_check_reports_each_bad_input_exactly_as_the_build_does(name, tmp_path, capsys):
    case = SITE_TESTS / "bad_inputs" / name
    prepare_content(case, tmp_path)
    run = run_cli(["check", "--content", "content"], tmp_path, capsys)
    assert run.status == 1
    assert run.stderr == (case / "expected.txt").read_text(encoding="utf-8")
    assert "Traceback" not in run.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["content"]


def add_unused_term(tmp_path):
    content = copy_sample(tmp_path)
    glossary = content / "glossary.md"
    glossary.write_text(glossary.read_text(encoding="utf-8") + "\nZebra\n: Not a term the chapters use.\n", encoding="utf-8")


WARNING = "content/glossary.md:30: warning: glossary term 'zebra' is not used in any chapter\n"


def status_and_errors(run) -> tuple[int, str]:
    return run.status, run.stderr


def test_warnings_fail_check_and_build_only_with_strict(tmp_path, capsys):
    add_unused_term(tmp_path)
    assert status_and_errors(run_cli(["check", "--content", "content"], tmp_path, capsys)) == (0, WARNING)
    assert status_and_errors(run_cli(["check", "--content", "content", "--strict"], tmp_path, capsys)) == (1, WARNING)
    build_strict = run_cli(["build", "--content", "content", "--out", "dist", "--strict"], tmp_path, capsys)
    assert status_and_errors(build_strict) == (1, WARNING)
    assert not (tmp_path / "dist").exists()
    assert status_and_errors(run_cli(["build", "--content", "content", "--out", "dist"], tmp_path, capsys)) == (0, WARNING)
    assert (tmp_path / "dist" / "index.html").is_file()


class LinkTarget(BaseHTTPRequestHandler):
    """Answers /ok with 200, /no-head with 405 to HEAD and 200 to GET, anything else with 404."""

    def do_HEAD(self):
        self.answer(HTTPStatus.METHOD_NOT_ALLOWED if self.path == "/no-head" else None)

    def do_GET(self):
        self.answer(None)

    def answer(self, status):
        if status is None:
            status = HTTPStatus.OK if self.path in ("/ok", "/no-head") else HTTPStatus.NOT_FOUND
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def link_target():
    """A local HTTP server for links to point at; returns its base URL."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), LinkTarget)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_fetch_external_reports_each_status_and_warns_about_failures(tmp_path, capsys, link_target):
    content = copy_sample(tmp_path)
    references = content / "references.yaml"
    text = references.read_text(encoding="utf-8")
    for old, path in (
        ("https://arxiv.org/abs/2402.03300", "/ok"),
        ("https://arxiv.org/abs/2203.02155", "/no-head"),
        ("https://spinningup.openai.com/", "/gone"),
    ):
        text = text.replace(old, link_target + path)
    references.write_text(text, encoding="utf-8")
    chapter = content / "03-scoring.md"
    chapter.write_text(
        chapter.read_text(encoding="utf-8") + "\nA [closed port](http://127.0.0.1:1/x) and [mail](mailto:a@example.org).\n",
        encoding="utf-8",
    )
    lines = chapter.read_text(encoding="utf-8").count("\n")

    run = run_cli(["check", "--content", "content", "--fetch-external"], tmp_path, capsys)

    assert run.status == 0
    stdout = run.stdout.splitlines()
    assert stdout[0] == "External links: 5 (fetched, 5 s timeout)"
    assert stdout[1].startswith(f"content/03-scoring.md:{lines}: http://127.0.0.1:1/x (no answer: ")
    assert stdout[2:] == [
        f"content/03-scoring.md:{lines}: mailto:a@example.org (not fetched: not an http(s) link)",
        f"content/references.yaml:8: {link_target}/ok (200 OK)",
        f"content/references.yaml:17: {link_target}/no-head (200 OK)",
        f"content/references.yaml:24: {link_target}/gone (404 Not Found)",
    ]
    stderr = run.stderr.splitlines()
    assert stderr[0].startswith(f"content/03-scoring.md:{lines}: warning: external link http://127.0.0.1:1/x failed: no answer: ")
    assert stderr[1:] == [f"content/references.yaml:24: warning: external link {link_target}/gone failed: 404 Not Found"]
    strict = run_cli(["check", "--content", "content", "--fetch-external", "--strict"], tmp_path, capsys)
    assert (strict.status, strict.stderr) == (1, run.stderr)


def test_ten_thousand_references_are_each_listed_at_their_url_line(tmp_path, capsys):
    # Finding each url's line once split the whole file per reference: 10,000 took 38 s. The time is printed, not asserted.
    content = copy_sample(tmp_path)
    references = content / "references.yaml"
    text = references.read_text(encoding="utf-8")
    first_line = text.count("\n") + 1
    entries = [  # short, so 10,000 stay under references.yaml's 1 MiB limit
        f"- key: r{index}\n  short: R\n  authors: [A]\n  year: 2020\n  title: T\n  url: https://e.org/{index}\n"
        for index in range(10_000)
    ]
    references.write_text(text + "".join(entries), encoding="utf-8")
    started = time.perf_counter()
    run = run_cli(["check", "--content", "content"], tmp_path, capsys)
    print(f"check with 10,003 references: {time.perf_counter() - started:.1f} s")
    listed = run.stdout.splitlines()
    assert listed[0] == "External links: 10003 (listed, not fetched; --fetch-external fetches them)"
    expected = [f"content/references.yaml:{first_line + 6 * index + 5}: https://e.org/{index}" for index in range(10_000)]
    assert sorted(set(listed[1:]) & set(expected)) == sorted(expected)
