"""`::: lab WIDGET key=value...`: one of the core's widgets, run at build time and live in the browser."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup

from rollout_lab.widgets import WIDGETS, normalise_settings, render_widget, settings_json
from sitegen.context import SiteContext
from sitegen.diagnostics import Location, suggest_name
from sitegen.kinds.blocks.base import BlockKind, BlockStart, PageRecord
from sitegen.kinds.computed import split_settings
from sitegen.messages import (
    BAD_LAB_OPTION,
    BAD_LAB_SETTING,
    LAB_SETTING_TWICE,
    LAB_WITHOUT_WIDGET,
    MALFORMED_LAB_SETTING,
    UNKNOWN_LAB_SETTING,
    UNKNOWN_LAB_WIDGET,
)
from sitegen.model import LAB_PLACEMENTS, LabPlacement


@dataclass(frozen=True)
class LabData:
    """A lab slot: its anchor (lab-N), its widget, and the core's rendering of its settings."""

    anchor: str
    widget: str
    rendered: dict[str, Any]
    # The slot's options (`Widget.slot_options`) that differ from their defaults, e.g. {"update": "hidden"}.
    view: Mapping[str, str]


class LabKind(BlockKind[LabData]):
    """A lab slot: the recorded result in the HTML, made live by lab.js."""

    name = "lab"
    # The widget draws its slot with its own template (`Widget.partial`); this one only includes it.
    partial = "partials/lab-slot.html"
    needs_lab_runtime = True

    def check(self, start: BlockStart) -> LabData:
        """Check the widget and its settings with the core; pre-render its results."""
        if not start.arguments:
            raise start.fail(LAB_WITHOUT_WIDGET, widgets=", ".join(sorted(WIDGETS)))
        widget, words = start.arguments[0], list(start.arguments[1:])
        if widget not in WIDGETS:
            raise start.fail(
                UNKNOWN_LAB_WIDGET, widget=widget, suggestion=suggest_name(widget, WIDGETS), widgets=", ".join(sorted(WIDGETS))
            )
        settings, malformed, repeated = split_settings(words)
        if malformed:
            raise start.fail(MALFORMED_LAB_SETTING, word=malformed[0])
        if repeated:
            raise start.fail(LAB_SETTING_TWICE, key=repeated[0])
        names = WIDGETS[widget].setting_names
        options = WIDGETS[widget].slot_options
        view = {key: value for key, value in settings.items() if key in options}
        for key, value in view.items():
            if value not in options[key]:
                raise start.fail(BAD_LAB_OPTION, key=key, value=value, widget=widget, values=", ".join(options[key]))
        for key in settings:
            if key not in names and key not in options:
                known = (*names, *options)
                raise start.fail(
                    UNKNOWN_LAB_SETTING, key=key, widget=widget, suggestion=suggest_name(key, known), settings=", ".join(known)
                )
        view = {key: value for key, value in view.items() if value != options[key][0]}
        try:
            rendered = render_widget(widget, normalise_settings(widget, {k: v for k, v in settings.items() if k in names}), view)
        except ValueError as error:  # SettingError: the core's own message, as the browser shows it
            raise start.fail(BAD_LAB_SETTING, problem=error) from error
        return LabData(anchor=f"lab-{start.number}", widget=widget, rendered=rendered, view=view)

    def anchor(self, data: LabData) -> str:
        """Return lab-N."""
        return data.anchor

    def record(self, data: LabData, location: Location, page: PageRecord) -> None:
        """Note the lab and the settings it starts from: a `lab:` link on the page sets them (kinds/links/lab.py)."""
        settings = tuple((name, str(value)) for name, value in data.rendered["settings"].items())
        view = tuple(data.view.items())
        page.add_record(LAB_PLACEMENTS, LabPlacement(data.anchor, data.widget, settings, location, view))

    def page_context(self, blocks: Sequence[tuple[LabData, Markup]]) -> Mapping[str, object]:
        """Return the address parameters the page's labs read, space-separated ("" if none): with any of them in the
        address, lab.js starts Python at once, so the head asks for the snapshot early (base.html)."""
        names: set[str] = set()
        for data, _body in blocks:
            widget = WIDGETS[data.widget]
            if widget.in_address:  # the controls partials/lab.html marks data-url-parameter, which lab.js reads
                hidden = widget.hidden_controls(data.view)
                names |= {
                    control.url_parameter for control in widget.controls if control.url_parameter and control.name not in hidden
                }
        return {"lab_address_parameters": " ".join(sorted(names))}

    def render_context(self, data: LabData, body: Markup, site: SiteContext) -> Mapping[str, object]:
        """Return the slot, its widget (title, controls, Reset, template: rollout_lab.widgets), the recorded results and the JSON lab.js starts from."""
        rendered = data.rendered
        return {
            "slot": data.anchor,
            "widget": WIDGETS[data.widget],
            "hidden": WIDGETS[data.widget].hidden_controls(data.view),
            "view_json": json.dumps(dict(data.view), separators=(",", ":")) if data.view else "",
            "intro": body,
            "settings": rendered["settings"],
            "results": Markup(rendered["html"]),
            "settings_json": Markup(settings_json(rendered)),
        }


KIND = LabKind()
