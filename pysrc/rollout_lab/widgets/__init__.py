"""The lab widgets, one module each, and the one function the build and the browser call: `render_widget`.

The build calls `render_widget` to pre-render each lab slot; the browser lab
calls the very same function inside Pyodide after every change, so the first
paint and every live update are byte-for-byte the same HTML. The lab block
kind, `build.py lab` and the computed values look widgets up in `WIDGETS` and
name none. Add a widget: one module here (a `Widget` subclass, base.py) and
its instance below. Standard library only: this package ships to the browser.
"""

import json
from collections.abc import Mapping
from typing import Any

from rollout_lab.widgets import batch, calculator, credit, probabilities, sampler, tokens, training
from rollout_lab.widgets.base import Widget

# In the order the chapters meet them.
WIDGETS: dict[str, Widget] = {
    widget.name: widget
    for widget in (
        tokens.WIDGET,
        probabilities.WIDGET,
        calculator.WIDGET,
        sampler.WIDGET,
        training.WIDGET,
        credit.WIDGET,
        batch.WIDGET,
    )
}


def normalise_settings(name: str, settings: Mapping[str, Any]) -> dict[str, str]:
    """Return the widget's settings as strings, defaults filled in; ValueError for an unknown widget or setting."""
    if name not in WIDGETS:
        raise ValueError(f"unknown lab widget {name!r}")
    widget = WIDGETS[name]
    allowed = widget.setting_names
    for key in settings:
        if key not in allowed:
            raise ValueError(f"the {name} widget has no setting {key!r} (settings: {', '.join(allowed)})")
    defaults = widget.defaults
    return {key: str(settings.get(key, defaults[key])) for key in allowed}


def render_widget(name: str, settings: Mapping[str, Any], view: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Run the core for one widget and return its results HTML, live-region text and settings (all the page shows).

    `view` is the slot's options (`Widget.slot_options`, e.g. {"update": "hidden"}): what of the results it shows.
    Raises SettingError (a ValueError naming the control) for a bad setting.
    """
    given = normalise_settings(name, settings)
    widget = WIDGETS[name]
    record = widget.compute(given)
    shown = view or {}
    return {
        "html": widget.render_view(record, shown),
        "announcement": widget.announce_view(record, shown),
        "settings": widget.shown_settings(record),
    }


def settings_json(widget: dict[str, Any]) -> str:
    """Return a rendered widget's settings as compact JSON that is safe inside a <script type="application/json">."""
    text = json.dumps(widget["settings"], separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
