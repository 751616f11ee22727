"""`build.py lab`: run one lab widget's core from the command line and print its record, or its table.

Every widget in the core's registry (`rollout_lab.widgets.WIDGETS`) is a
choice of `--widget`, and every setting of any widget an option named after it
(`--group-size K`), with the metavar and help its control declares: a new widget
needs nothing here. The settings stay strings, so the core parses and checks
them and the command line reports exactly what the browser lab would show.
"""

import argparse
from collections.abc import Mapping

from rollout_lab.widgets import WIDGETS
from rollout_lab.widgets.controls import Control


def list_lab_options() -> dict[str, tuple[Control, list[str]]]:
    """Return each setting's control (the first widget's to declare it) and the widgets that have it, in registry order."""
    options: dict[str, tuple[Control, list[str]]] = {}
    for widget in WIDGETS.values():
        for control in widget.controls:
            options.setdefault(control.name, (control, []))[1].append(widget.name)
    return options


def add_lab_arguments(parser: argparse.ArgumentParser) -> None:
    """Teach `build.py lab` its options: --widget, one per setting, --format."""
    parser.add_argument("--widget", choices=tuple(WIDGETS), default="sampler", help="which lab (default: sampler)")
    # A setting left out takes the widget's default (the recorded run's).
    for control, owners in list_lab_options().values():
        parser.add_argument(
            control.option, metavar=control.metavar or control.name.upper(), help=f"{' and '.join(owners)}: {control.help}"
        )
    parser.add_argument("--format", choices=("json", "table"), default="json", dest="output_format")


def read_lab_settings(arguments: argparse.Namespace) -> dict[str, str]:
    """Return the settings typed on the command line, by name."""
    return {name: value for name in list_lab_options() if (value := getattr(arguments, name, None)) is not None}


def render_lab_output(name: str, settings: Mapping[str, str], output_format: str) -> str:
    """Run a widget's core with the settings as typed (the rest default) and return JSON or a table; ValueError on a bad one."""
    widget = WIDGETS[name]
    foreign = [setting for setting in settings if setting not in widget.setting_names]
    if foreign:
        options = ", ".join(control.option for control in widget.controls)
        raise ValueError(f"--{foreign[0].replace('_', '-')} is not a setting of the {name} lab (its settings: {options})")
    record = widget.compute({**widget.defaults, **settings})
    return widget.format_table(record) if output_format == "table" else widget.format_json(record)
