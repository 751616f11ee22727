"""Figures drawn by the core at build time, placed like any other with `::: figure NAME`.

The figures are the core's registry, `rollout_lab.figures.FIGURES` (each
one's name, title and `draw`); this module draws the ones a book places and
names none. Their numbers come from the same run and the same renderer as the
lab, so a figure of the recorded run cannot disagree with the lab beside it.
A file in content/figures/ with the same name would take precedence.
"""

from __future__ import annotations

from collections.abc import Mapping

from rollout_lab.figures import FIGURES
from sitegen.diagnostics import Location
from sitegen.model import Figure
from sitegen.session import SESSION


def generate_figures(wanted: set[str]) -> tuple[Figure, ...]:
    """Draw the generated figures among `wanted` (the names placed and not given as files), in name order."""
    return tuple(_draw(name) for name in sorted(wanted) if name in FIGURES)


def _place(name: str, description: str, svg: str) -> Figure:
    """Return the registered figure `name` with this description and drawing."""
    figure = FIGURES[name]
    return Figure(
        name=name,
        title=figure.title,
        description=description,
        svg=svg,
        # Where a diagnostic about the figure would point: the core module that draws it.
        location=Location(f"pysrc/{type(figure).__module__.replace('.', '/')}.py", 0),
    )


# Drawn once per process: the core they come from cannot change under a running build (the dev server restarts its
# build process after a code edit), and drawing them all costs ~0.1 s, which each edit in `serve` used to pay again.
# A build seeds this from the tool's cache (render/core_results.py).
_DRAWN: dict[str, Figure] = SESSION.keep("drawn figures", {})


def _draw(name: str) -> Figure:
    figure = _DRAWN.get(name)
    if figure is None:
        figure = _DRAWN[name] = _place(name, *FIGURES[name].draw())
    return figure


def remember_drawn_figures(drawn: Mapping[str, tuple[str, str]]) -> None:
    """Take these (description, svg) as drawn (the kept results of this very code); names no longer defined are skipped."""
    for name, (description, svg) in drawn.items():
        if name in FIGURES:
            _DRAWN[name] = _place(name, description, svg)


def list_drawn_figures() -> dict[str, tuple[str, str]]:
    """Return every figure drawn or remembered in this process: {name: (description, svg)}."""
    return {name: (figure.description, figure.svg) for name, figure in _DRAWN.items()}
