"""The credit and batch labs (issue 57) in Chromium: the page shows exactly what the core computes here in CPython.

No chapter places them yet, so this module builds the book with two pages of
its own added: one with both labs (the credit lab first, so it mirrors the
address) and one with the batch lab alone (its shared links). Expected values
come from the core (render_widget, the widgets' records); the results are
compared as the browser's own serialisation of the core's HTML.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from browser_testing import (
    PROJECT_ROOT,
    SITE_PREFIX,
    choose_setting,
    open_live_lab,
    setting_error,
    shown_and_expected_html,
    wait_for_rows,
)
from rollout_lab.display import format_fixed, format_fixed_signal
from rollout_lab.figures.token_charts import show_token
from rollout_lab.widgets import WIDGETS, render_widget
from sitegen.serve.static_server import serve_preview

pytestmark = pytest.mark.browser

CREDIT = 'section.lab[data-lab="credit"]'
BATCH = 'section.lab[data-lab="batch"]'
BOTH_PAGE, BATCH_PAGE = "08-credit-labs.html", "09-batch-lab.html"
DEFAULTS = {name: {c.name: c.default for c in WIDGETS[name].controls} for name in ("credit", "batch")}
PAGES = {
    "08-credit-labs.md": (
        "---\ntitle: Credit labs\nlede: Both labs of issue 57, for the browser tests.\nchapter: 8\n---\n\n"
        "## Credit\n\n::: lab credit temperature=1 group_size=6 seed=20260903 lam=0\nChange λ.\n:::\n\n"
        "## Batch\n\n::: lab batch temperature=1 group_size=6 seed=20260903 signal_rule=mean\nChange the rule.\n:::\n"
    ),
    "09-batch-lab.md": (
        "---\ntitle: Batch lab\nlede: The batch lab alone, for its shared links.\nchapter: 9\n---\n\n"
        "## Batch\n\n::: lab batch temperature=1 group_size=6 seed=20260903 signal_rule=mean\nChange the rule.\n:::\n"
    ),
}


@pytest.fixture(scope="module")
def labs_site(tmp_path_factory) -> Path:
    """The book's content with the two pages added, built by the real pipeline."""
    folder = tmp_path_factory.mktemp("credit-labs")
    content = folder / "content"
    shutil.copytree(PROJECT_ROOT / "content", content)
    for name, text in PAGES.items():
        (content / name).write_text(text, encoding="utf-8")
    build = subprocess.run(
        [sys.executable, "build.py", "build", "--quiet", "--content", str(content), "--out", str(folder / "dist")],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stderr
    return folder / "dist"


@pytest.fixture(scope="module")
def labs_url(labs_site: Path) -> Iterator[str]:
    with serve_preview(labs_site, SITE_PREFIX) as url:
        yield url


def credit_rows(settings: dict[str, str]) -> list[list[str]]:
    """The credit table as a reader sees it, computed here."""
    record = WIDGETS["credit"].compute({**DEFAULTS["credit"], **settings})
    return [
        [
            str(r["rollout"]),
            show_token(token),
            format_fixed(v),
            format_fixed_signal(a),
            format_fixed_signal(g),
            format_fixed_signal(s),
        ]
        for r in record["rollouts"]
        for token, v, a, g, s in zip(r["tokens"], r["values"], r["advantages"], r["gae"], r["group_signal"], strict=True)
    ]


def batch_rows(settings: dict[str, str]) -> list[list[str]]:
    """The batch table as a reader sees it, computed here."""
    record = WIDGETS["batch"].compute({**DEFAULTS["batch"], **settings})
    return [
        [
            row["prompt"],
            ", ".join(row["answers"]),
            format_fixed(row["mean"]),
            format_fixed(row["sigma"]),
            format_fixed(row["gradient_size"]) + (" (no signal: every reward equal)" if row["zero_variance"] else ""),
        ]
        for row in record["prompts"]
    ]


def expect_lab(page: Page, name: str, settings: dict[str, str]) -> None:
    """Wait until the lab shows the core's table for these settings, then compare every byte of its results."""
    selector, table, rows = {
        "credit": (CREDIT, "table.lab-credit", credit_rows),
        "batch": (BATCH, "table.lab-batch", batch_rows),
    }[name]
    wait_for_rows(page, selector, table, rows(settings))
    shown, wanted = shown_and_expected_html(page, selector, render_widget(name, {**DEFAULTS[name], **settings})["html"])
    assert shown == wanted


def test_the_built_page_holds_the_cores_numbers_at_first_paint(labs_site: Path):
    page = (labs_site / BOTH_PAGE).read_text(encoding="utf-8")
    for name in ("credit", "batch"):
        assert render_widget(name, {})["html"] in page
    labels = [c.label for c in WIDGETS["credit"].controls], [c.label for c in WIDGETS["batch"].controls]
    assert labels == (
        ["Temperature", "Group size", "Seed", "Lambda (\u03bb)"],
        ["Temperature", "Group size", "Seed", "Signal rule"],
    )


def test_lambda_and_the_signal_rule_recompute_live_and_a_bad_value_keeps_the_last_result(open_context, labs_url: str):
    page = open_live_lab(open_context, labs_url + BOTH_PAGE, CREDIT)
    expect_lab(page, "credit", {})
    choose_setting(page, CREDIT, "Lambda (\u03bb)", "0.5")
    expect_lab(page, "credit", {"lam": "0.5"})
    # The address holds the settings of the lab the reader changed last, and names it.
    expect(page).to_have_url(labs_url + BOTH_PAGE + "?T=1&K=6&seed=20260903&lam=0.5#lab-1")

    choose_setting(page, CREDIT, "Lambda (\u03bb)", "2")
    field, message = setting_error(lambda **s: WIDGETS["credit"].compute(s), DEFAULTS["credit"], lam="2")
    assert message == "Lambda (\u03bb) must be a number from 0 to 1; 2 is too high"
    section = page.locator(CREDIT)
    expect(section.locator(f'[data-error-for="{field}"]')).to_have_text(message)
    expect(section.locator("[data-lab-results]")).to_have_class("lab-results lab-results-stale")
    expect_lab(page, "credit", {"lam": "0.5"})

    page.locator(BATCH).scroll_into_view_if_needed()
    choose_setting(page, BATCH, "Signal rule", "std")
    expect_lab(page, "batch", {"signal_rule": "std"})
    expect(page).to_have_url(labs_url + BOTH_PAGE + "?T=1&K=6&seed=20260903&rule=std#lab-2")
    choose_setting(page, BATCH, "Group size", "65")
    field, message = setting_error(lambda **s: WIDGETS["batch"].compute(s), DEFAULTS["batch"], group_size="65")
    expect(page.locator(BATCH).locator(f'[data-error-for="{field}"]')).to_have_text(message)
    expect_lab(page, "batch", {"signal_rule": "std"})


def test_the_address_sets_each_lab(open_context, labs_url: str):
    page = open_live_lab(open_context, labs_url + BOTH_PAGE + "?T=2&K=4&seed=7&lam=0.9", CREDIT)
    expect_lab(page, "credit", {"temperature": "2", "group_size": "4", "seed": "7", "lam": "0.9"})
    expect(page.locator(CREDIT).get_by_label("Lambda (\u03bb)", exact=True)).to_have_value("0.9")
    page = open_live_lab(open_context, labs_url + BATCH_PAGE + "?rule=std&K=9", BATCH)
    expect_lab(page, "batch", {"signal_rule": "std", "group_size": "9"})
    expect(page.locator(BATCH).get_by_label("Signal rule", exact=True)).to_have_value("std")


# Each text's size on screen, and every branch that crosses a label's box.
MEASURE_TREE = """() => {
  const svg = document.querySelector('svg.credit-tree');
  const texts = [...svg.querySelectorAll('text')];
  const sizes = texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
  const boxes = texts.map((t) => t.getBBox());
  const crossing = [];
  for (const line of svg.querySelectorAll('line')) {
    const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map((a) => line[a].baseVal.value);
    for (let step = 0; step <= 50; step += 1) {
      const x = x1 + (x2 - x1) * step / 50, y = y1 + (y2 - y1) * step / 50;
      boxes.forEach((b, i) => {
        if (x > b.x && x < b.x + b.width && y > b.y && y < b.y + b.height) crossing.push(texts[i].textContent);
      });
    }
  }
  return { smallest: Math.min(...sizes), crossing: [...new Set(crossing)] };
}"""


def test_on_a_phone_the_trees_type_is_12_px_or_more_and_no_branch_crosses_a_label(open_context, labs_url: str):
    page = open_context(viewport={"width": 390, "height": 844}).new_page()
    page.goto(labs_url + BOTH_PAGE)
    page.locator("svg.credit-tree").scroll_into_view_if_needed()
    measured = page.evaluate(MEASURE_TREE)
    assert measured["smallest"] >= 12, measured
    assert measured["crossing"] == [], measured
