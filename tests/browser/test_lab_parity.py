"""The browser's numbers are the build's: the worker's render results equal CPython's, exactly.

The test talks to a fresh worker from the very URL the lab pages use, through
the worker's one real protocol ({id, fn, args} → {id, ok, result | error});
there is no test-only entry point. It runs on the contents page, which loads
no lab of its own, so only this worker starts Python.
"""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path

import pytest

from browser_testing import LIVE_TIMEOUT_MS, SAMPLER_PAGE
from rollout_lab import SettingError
from rollout_lab.widgets import render_widget

pytestmark = pytest.mark.browser

SAMPLER_GRID = [
    ("sampler", {"temperature": t, "group_size": k, "seed": s})
    for t, k, s in itertools.product(
        ["0.05", "0.3", "0.5", "1", "1.7", "2", "5", "20"],
        ["1", "3", "6", "8", "64"],
        ["0", "20260903", "4294967295"],
    )
]
PROBABILITY_GRID = [
    ("probabilities", {"temperature": t})
    for t in ["0.05", "0.1", "0.25", "0.5", "0.75", "1", "1.2", "1.5", "2", "3.3", "7", "20"]
]
CALCULATOR_GRID = [
    ("calculator", {"rewards": r})
    for r in ["1, 0.75, 0, 1", "1, 0.6, 0, 1", "0", "1,1,1", "0.1, 0.2, 0.3", "-1, 1", "1000, -1000, 0.001", "1e-3, 2"]
]
TOKENS_GRID = [
    ("tokens", {"temperature": t, "group_size": k, "seed": s, "learning_rate": a, "length_rule": r})
    for t, k, s, a, r in [
        ("1", "6", "20260903", "1", "sequence_mean"),
        ("1", "6", "20260903", "1", "token_sum"),
        ("0.05", "64", "4294967295", "5", "token_sum"),
        ("20", "1", "0", "0", "sequence_mean"),
        ("0.3", "17", "12345", "2.5", " Token_Sum "),
        ("2", "8", "20260903", "0.5", "sequence_mean"),
    ]
]
BAD_SETTINGS = [
    ("sampler", {"temperature": ""}),
    ("sampler", {"temperature": "abc"}),
    ("sampler", {"temperature": "0"}),
    ("sampler", {"temperature": "-1"}),
    ("sampler", {"group_size": "0"}),
    ("sampler", {"group_size": "65"}),
    ("sampler", {"group_size": "2.5"}),
    ("sampler", {"seed": "4294967296"}),
    ("probabilities", {"temperature": "nan"}),
    ("calculator", {"rewards": "1,,2"}),
    ("calculator", {"rewards": ""}),
    ("tokens", {"learning_rate": "6"}),
    ("tokens", {"length_rule": "mean"}),
]
REQUESTS = SAMPLER_GRID + PROBABILITY_GRID + CALCULATOR_GRID + TOKENS_GRID + BAD_SETTINGS

# Starts a fresh worker, sends "init", "version" and every render request at
# once (the worker answers them in order once Python is up), and returns the
# responses in request order.
_ASK_A_FRESH_WORKER = """async ({ worker, pyodide, core, stdlib, requests }) => {
  const resolve = (url) => new URL(url, document.baseURI).href;
  const lab = new Worker(resolve(worker), { type: "module" });
  const messages = [
    { id: "init", op: "init", args: [{ pyodide: resolve(pyodide), core: resolve(core), stdlib: resolve(stdlib) }] },
    { id: "version", op: "version", args: [] },
    ...requests.map(([name, settings], index) => ({ id: index, op: "render", args: [name, settings] })),
  ];
  const responses = new Map();
  const answered = new Promise((done, fail) => {
    lab.addEventListener("message", (event) => {
      responses.set(event.data.id, event.data);
      if (responses.size === messages.length) done();
    });
    // A worker script that cannot load never answers; fail instead of waiting forever.
    lab.addEventListener("error", (event) => fail(new Error(`the worker failed: ${event.message}`)));
  });
  messages.forEach((message) => lab.postMessage(message));
  await answered;
  lab.terminate();
  return messages.map((message) => responses.get(message.id));
}"""


def expected_response(name: str, settings: dict) -> dict:
    """Return the protocol response CPython's render_widget gives for one request."""
    try:
        return {"ok": True, "result": render_widget(name, settings)}
    except SettingError as error:
        return {"ok": False, "error": {"field": error.field, "message": str(error)}}


def read_lab_meta(built_site: Path) -> dict:
    """Return the runtime URLs (relative, as written) from chapter 4's rollouts-lab JSON data block."""
    html = (built_site / SAMPLER_PAGE).read_text(encoding="utf-8")
    return json.loads(re.search(r'<script type="application/json" id="rollouts-lab"[^>]*>(.*?)</script>', html).group(1))


def test_the_worker_renders_exactly_what_cpython_renders(open_context, site_url: str, built_site: Path):
    assert len(REQUESTS) >= 50
    page = open_context().new_page()
    page.set_default_timeout(LIVE_TIMEOUT_MS * 2)
    page.goto(site_url + "index.html")

    init, version, *renders = page.evaluate(
        _ASK_A_FRESH_WORKER, {**read_lab_meta(built_site), "requests": [list(r) for r in REQUESTS]}
    )

    assert init["ok"] is True and re.fullmatch(r"3\.14\.\d+", init["result"]["version"])
    assert version == {"id": "version", "ok": True, "result": init["result"]["version"]}
    mismatches = [
        (name, settings)
        for (name, settings), response in zip(REQUESTS, renders, strict=True)
        if {key: response[key] for key in response if key != "id"} != expected_response(name, settings)
    ]
    assert mismatches == []
    # html is the heart of it: compare the strings themselves, not only equality of parsed structures.
    for (name, settings), response in zip(REQUESTS, renders, strict=True):
        if response["ok"]:
            assert response["result"]["html"] == render_widget(name, settings)["html"]
