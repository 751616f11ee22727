"""The preview server (`build.py preview`, and the browser tests): dist/ served as a static host serves a project site."""

from __future__ import annotations

import http.client
from urllib.parse import urlsplit

import pytest

from serve_testing import send_raw_request
from site_testing import run_cli
from sitegen.commands.preview import choose_prefix
from sitegen.publish.host_headers import IMMUTABLE, REVALIDATE
from sitegen.serve.static_server import serve_preview


@pytest.fixture(scope="module")
def preview(built_sample):
    with serve_preview(built_sample, "/rollouts/") as url:
        yield urlsplit(url).port


def get(port: int, path: str, headers: dict | None = None) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def test_pages_and_assets_get_the_headers_file_headers(preview, built_sample):
    status, headers, body = get(preview, "/rollouts/")
    assert (status, headers["cache-control"], body) == (200, REVALIDATE, (built_sample / "index.html").read_bytes())
    assert headers["x-content-type-options"] == "nosniff" and headers["content-security-policy"] == "frame-ancestors 'none'"
    (pyodide,) = (built_sample / "pyodide").iterdir()
    status, headers, _ = get(preview, f"/rollouts/pyodide/{pyodide.name}/pyodide.asm.wasm")
    assert (status, headers["content-type"], headers["cache-control"]) == (200, "application/wasm", IMMUTABLE)
    assert "no-store" not in str(get(preview, "/rollouts/glossary.html")[1])


def test_a_missing_address_at_any_depth_gets_the_404_page_and_the_rest_is_as_on_a_host(preview, built_sample):
    for path in ("/rollouts/missing.html", "/rollouts/a/b/c.html", "/rollouts/_headers"):
        status, headers, body = get(preview, path)
        assert (status, headers["cache-control"], body) == (404, REVALIDATE, (built_sample / "404.html").read_bytes()), path
    assert get(preview, "/elsewhere/index.html")[0] == 404
    for folder in ("/rollouts", "/rollouts/lab"):
        status, headers, _ = get(preview, folder)
        assert (status, headers["location"]) == (301, folder + "/")
    assert get(preview, "/rollouts/lab/")[0] == 404  # a folder without index.html: no listing
    last_modified = get(preview, "/rollouts/index.html")[1]["last-modified"]
    assert get(preview, "/rollouts/index.html", {"If-Modified-Since": last_modified})[0] == 304


def test_hostile_requests_get_a_clean_answer(preview, built_sample):
    here = f"127.0.0.1:{preview}".encode()
    page_404 = (built_sample / "404.html").read_bytes()
    assert send_raw_request(preview, b"/rollouts/" + b"a" * 300, here) == (404, page_404)
    assert send_raw_request(preview, b"/rollouts/assets/" + b"a" * 300 + b".js", here) == (404, page_404)
    assert send_raw_request(preview, b"/rollouts/" + b"a" * 100_000, here)[0] == 414
    for host in (f"rebind.example:{preview}".encode(), b"127.0.0.1:1"):
        status, body = send_raw_request(preview, b"/rollouts/index.html", host)
        assert status == 403 and body != (built_sample / "index.html").read_bytes(), host
    assert send_raw_request(preview, b"/rollouts/index.html", f"localhost:{preview}".encode()) == (
        200,
        (built_sample / "index.html").read_bytes(),
    )


def test_the_prefix_is_the_base_urls_path_or_rollouts():
    assert choose_prefix("https://user.github.io/tutorial/") == "/tutorial/"
    assert choose_prefix("https://example.org/") == "/"
    assert choose_prefix("") == "/rollouts/"


def test_preview_without_a_built_site_says_so(tmp_path, capsys):
    result = run_cli(["preview", "--out", str(tmp_path / "nothing")], tmp_path, capsys)
    assert (result.status, result.stderr) == (
        1,
        f"build.py preview: no built site in {tmp_path / 'nothing'} (run `make site` first)\n",
    )
