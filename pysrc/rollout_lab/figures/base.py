"""What a figure the core draws is: the interface every page figure in rollout_lab/figures/ fills in.

A figure is one `Figure` subclass in the module that draws it and one line in
`FIGURES` (figures/__init__.py). It declares its `name` (what a chapter
writes, `::: figure NAME`) and its `title`, and `draw` returns its
description (the text alternative) and its SVG. The build draws the figures a
book places (sitegen/render/generated_figures.py) and names none; a file in
content/figures/ with the same name takes precedence.

Standard library only: the browser imports this package in Pyodide (the labs
draw their own charts with the same modules).
"""

from typing import ClassVar


class Figure:
    """One figure the core draws. Subclasses set `name` and `title` and implement `draw`."""

    name: ClassVar[str]
    title: ClassVar[str]

    def draw(self) -> tuple[str, str]:
        """Return the figure's description and its SVG (with `title` as its <title> and the description as its <desc>)."""
        raise NotImplementedError
