"""Every figure the core draws, as the built pages show it on a 390 px phone: its type at least 12 px.

The core draws the figures of the FIGURES registry (rollout_lab/figures/,
placed by `::: figure NAME`) and the labs' charts. The token tree keeps its
branches off its labels and has a legend, as the token lab's completions
chart does. Python is kept from starting (reader_fixtures): the charts a lab
shows before it is live are the ones the build drew with the same code.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from reader_fixtures import CHAPTERS
from rollout_lab.figures import FIGURES

pytestmark = pytest.mark.browser

# Each core-drawn SVG of the page with text: which it is, and the size on screen of its smallest text.
MEASURE_FIGURES = """(names) => {
  const drawn = [
    ...names.map((name) => [name, document.querySelector(`#figure-${name} svg`)]),
    ...[...document.querySelectorAll('section.lab svg')].map((svg) => [`${svg.closest('section.lab').dataset.lab} lab: ${svg.getAttribute('class')}`, svg]),
  ].filter(([, svg]) => svg !== null && svg.querySelector('text') !== null);
  return drawn.map(([name, svg]) => {
    const sizes = [...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
    return [name, Math.round(Math.min(...sizes) * 10) / 10];
  });
}"""

# Every branch of the token tree that crosses a label's box, and the tree's legend.
MEASURE_TREE = """() => {
  const svg = document.querySelector('svg.token-tree');
  const texts = [...svg.querySelectorAll('text')];
  const boxes = texts.map((t) => t.getBBox());
  const crossing = [];
  for (const line of svg.querySelectorAll('line.token-edge')) {
    const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map((a) => line[a].baseVal.value);
    for (let step = 0; step <= 50; step += 1) {
      const x = x1 + (x2 - x1) * step / 50, y = y1 + (y2 - y1) * step / 50;
      boxes.forEach((b, i) => {
        if (x > b.x && x < b.x + b.width && y > b.y && y < b.y + b.height) crossing.push(texts[i].textContent);
      });
    }
  }
  return { crossing: [...new Set(crossing)], texts: texts.map((t) => t.textContent) };
}"""


@pytest.fixture(scope="module")
def phone(open_reader_context) -> Page:
    return open_reader_context(viewport={"width": 390, "height": 844}).new_page()


def test_every_figure_the_core_draws_has_type_of_12_px_or_more_on_a_phone(phone: Page, site_url: str):
    measured: dict[str, float] = {}
    for chapter in CHAPTERS:
        phone.goto(site_url + chapter)
        for name, smallest in phone.evaluate(MEASURE_FIGURES, list(FIGURES)):
            measured[f"{chapter} {name}"] = smallest
    # Every figure of the registry is placed, and measured, somewhere; so are the labs' charts.
    assert {name for name in FIGURES if not any(key.endswith(f" {name}") for key in measured)} == set()
    assert any("tokens lab: lab-chart token-tree" in key for key in measured), measured
    assert {key: size for key, size in measured.items() if size < 12} == {}


def test_the_token_tree_keeps_branches_off_its_labels_and_says_what_its_marks_mean(phone: Page, site_url: str):
    phone.goto(site_url + "01-rollout.html")
    tree = phone.evaluate(MEASURE_TREE)
    assert tree["crossing"] == []
    assert tree["texts"][:3] == [
        "this group\u2019s paths (heavier: more)",
        "0.5896 = the token\u2019s probability at T",
        "\u00d73 = taken by 3 of the group\u2019s rollouts",
    ]
    # The legend's orange sample is drawn as a taken branch is.
    sample, taken = phone.evaluate(
        "() => ['.token-legend-sample', '.token-edge-taken:not(.token-legend-sample)']"
        ".map((s) => getComputedStyle(document.querySelector('svg.token-tree ' + s)).stroke)"
    )
    assert sample == taken


def test_the_completions_chart_says_which_bar_is_before_and_which_after(phone: Page, site_url: str):
    phone.goto(site_url + "07-signal.html")
    texts = phone.locator("svg.token-completions text").all_text_contents()
    assert texts[:2] == ["before the step (outlined)", "after it (filled; the number, with its change)"]
