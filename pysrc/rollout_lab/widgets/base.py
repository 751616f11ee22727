"""What a lab widget is: the interface every module in rollout_lab/widgets/ fills in.

A widget is one module here and one line in `WIDGETS` (widgets/__init__.py).
Its `Widget` subclass declares everything about it in one place:

- its controls (widgets/controls.py: label, kind, range and default from
  world.py, address parameter, presets, the command line's metavar and help),
  which the page's template draws, `build.py lab` turns into options and
  lab.js reads back from the markup;
- `compute`: the settings checked by the core's own checks (a SettingError
  names the control) and the JSON-ready record they give, which `build.py lab
  --widget NAME` prints, and `format_table` for `--format table`;
- `render` and `announce`: the results fragment and the live region's sentence,
  drawn from the record, by the build and (in Pyodide) by the browser alike;
- `values`: the computed values the prose may ask about it (`{{ name ... }}`);
- `partial`: its template on the page, under site_templates/ (the shared
  partials/lab.html unless it draws a slot of its own).

Standard library only: the browser imports this in Pyodide.
"""

import json
from collections.abc import Mapping
from typing import Any, ClassVar

from rollout_lab.display import format_exact
from rollout_lab.values import ValueDefinition
from rollout_lab.widgets.controls import Control


class Widget:
    """One lab widget. Subclasses set the class attributes and implement `compute`, `render`, `announce` and `format_table`."""

    name: ClassVar[str]
    title: ClassVar[str]
    controls: ClassVar[tuple[Control, ...]]
    # Reset restores the recorded run; only widgets with several settings need it.
    resettable: ClassVar[bool] = False
    # The page's first such widget mirrors its settings in the address (?T=2&K=8).
    in_address: ClassVar[bool] = False
    # A link's query for the no-JavaScript note of a widget in the address.
    address_example: ClassVar[str] = ""
    # Its template under site_templates/: the section holding its controls and results.
    partial: ClassVar[str] = "partials/lab.html"
    # The computed values the prose may ask about this widget's record, by name.
    values: ClassVar[Mapping[str, ValueDefinition]] = {}
    # What a slot may ask of the widget's view beside its settings (`::: lab tokens update=hidden`):
    # {option: its values, the default first}. A view shows fewer controls and results, never other numbers.
    slot_options: ClassVar[Mapping[str, tuple[str, ...]]] = {}
    # Settings a narrow screen tucks under "More settings" (the ones the chapter asks about least), so the
    # controls make a grid with no sideways scrolling; a link or an address that sets one opens it.
    more_settings: ClassVar[frozenset[str]] = frozenset()

    @property
    def setting_names(self) -> tuple[str, ...]:
        """The settings, in the order of the controls."""
        return tuple(control.name for control in self.controls)

    @property
    def defaults(self) -> dict[str, str]:
        """Each setting's default as the page writes it: the recorded run's settings."""
        return {control.name: control.default for control in self.controls}

    def hidden_controls(self, view: Mapping[str, str]) -> frozenset[str]:
        """Return the settings a slot's view does not show (default: none); they keep the slot's values."""
        return frozenset()

    def render_view(self, record: dict[str, Any], view: Mapping[str, str]) -> str:
        """Return the results fragment as a slot's view shows it (default: `render`, the whole)."""
        return self.render(record)

    def announce_view(self, record: dict[str, Any], view: Mapping[str, str]) -> str:
        """Return the live region's sentence as a slot's view says it (default: `announce`)."""
        return self.announce(record)

    def compute(self, settings: Mapping[str, str]) -> dict[str, Any]:
        """Check every setting (SettingError names the first bad one) and return the JSON-ready record."""
        raise NotImplementedError

    def render(self, record: dict[str, Any]) -> str:
        """Return the results fragment the page shows for a record."""
        raise NotImplementedError

    def announce(self, record: dict[str, Any]) -> str:
        """Return one sentence for the polite live region: what changed, in words."""
        raise NotImplementedError

    def shown_settings(self, record: dict[str, Any]) -> dict[str, str]:
        """Return the checked settings as the fields show them (default: the record's `settings`, numbers written exactly)."""
        return {key: format_exact(value) if isinstance(value, float) else str(value) for key, value in record["settings"].items()}

    def format_json(self, record: dict[str, Any]) -> str:
        """Return what `build.py lab --widget NAME` prints by default: the record as JSON."""
        return json.dumps(record, indent=2, ensure_ascii=False)

    def format_table(self, record: dict[str, Any]) -> str:
        """Return what `build.py lab --widget NAME --format table` prints: the record as plain text for a terminal."""
        raise NotImplementedError
