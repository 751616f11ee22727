"""The figures the core draws at build time (sitegen/render/generated_figures.py)."""

from __future__ import annotations

from rollout_lab.figures import FIGURES
from sitegen.render.generated_figures import generate_figures


def test_each_generated_figure_names_its_chart_module_and_only_wanted_ones_are_drawn():
    figures = generate_figures({"update-step", "draw-rule", "not-generated"})
    assert [(figure.name, figure.location.path) for figure in figures] == [
        ("draw-rule", "pysrc/rollout_lab/figures/draw_rule.py"),
        ("update-step", "pysrc/rollout_lab/figures/update_step.py"),
    ]
    assert all(figure.svg.startswith("<svg") and figure.description for figure in figures)


def test_a_figure_is_drawn_once_per_process_so_a_dev_server_edit_does_not_draw_it_again():
    first = generate_figures(set(FIGURES))
    again = generate_figures(set(FIGURES))
    assert len(first) == len(FIGURES)
    assert all(earlier is later for earlier, later in zip(first, again, strict=True))
