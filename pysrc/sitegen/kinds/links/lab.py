"""`[set T = 2](lab:sampler?T=2)`: a link in the prose that sets a lab on its page, brings it into view and computes.

The address names the widget and, after `?`, the settings by the widget's own
address parameters (a control's `url_parameter`, T, K, seed, lr...; its
setting name where it has none, the calculator's `rewards`). The link sets the
page's lab of that widget nearest before it (else the first after it). It is
rendered as an ordinary relative link, `?T=2#lab-1`, which leads to the lab
without JavaScript; with it, lab.js reads the settings from the link
(`data-lab-settings`, by setting name), sets the lab's controls and computes
without reloading the page. The build checks every link against the lab it
sets: the widget, a lab of it on the page, each parameter's name and value, and that
the lab shows its control (chapter 1's `update=hidden` token lab has no learning rate).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from html import escape
from urllib.parse import unquote

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import EnvType, OptionsDict

from rollout_lab.widgets import WIDGETS, normalise_settings
from rollout_lab.widgets.base import Widget
from sitegen.diagnostics import Diagnostic, Finding, finding, quote, report, suggest_name
from sitegen.kinds.links.base import LinkScheme, list_uses
from sitegen.messages import (
    LAB_LINK_BAD_VALUE,
    LAB_LINK_HIDDEN_PARAMETER,
    LAB_LINK_MALFORMED_SETTING,
    LAB_LINK_PARAMETER_TWICE,
    LAB_LINK_UNKNOWN_PARAMETER,
    LAB_LINK_UNKNOWN_WIDGET,
    LAB_LINK_WITHOUT_LAB,
    LAB_LINK_WITHOUT_SETTINGS,
)
from sitegen.model import LabPlacement, NameUse, Page, ParsedProject
from sitegen.session import SESSION


def address_parameters(widget: Widget) -> dict[str, str]:
    """Return {address parameter: setting name} for a widget's controls: T → temperature, rewards → rewards."""
    return {control.url_parameter or control.name: control.name for control in widget.controls}


def split_query(query: str, link: str) -> list[tuple[str, str]] | Finding:
    """Return the query's (parameter, value) pairs, or what is wrong with it ("" and "T" are; "T=2&K=8" is not)."""
    if not query:
        return finding(LAB_LINK_WITHOUT_SETTINGS, link=link)
    pairs = []
    for part in query.split("&"):
        parameter, equals, value = part.partition("=")
        if not equals or not parameter:
            return finding(LAB_LINK_MALFORMED_SETTING, link=link, part=quote(part))
        pairs.append((unquote(parameter), unquote(value)))
    return pairs


def find_lab(labs: Iterable[LabPlacement], widget: str, line: int) -> LabPlacement | None:
    """Return the lab of `widget` nearest before `line`, else the first after it, else None."""
    candidates = [lab for lab in labs if lab.widget == widget]
    before = [lab for lab in candidates if lab.location.line <= line]
    if before:
        return before[-1]
    return candidates[0] if candidates else None


def link_settings(widget: str, pairs: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Return a checked link's settings by setting name, as lab.js writes them into the controls."""
    names = address_parameters(WIDGETS[widget])
    return {names[parameter]: value for parameter, value in pairs}


class LabScheme(LinkScheme):
    """A link that sets a lab on its page: `lab:WIDGET?PARAMETER=VALUE&...`."""

    name = "lab"

    def classify(self, link: Token, target: str, siblings: Sequence[Token]) -> None:
        """Split `widget?query`; the lab it sets (and so its href) is known once the page's labs are."""
        link.meta["key"], _, link.meta["anchor"] = target.partition("?")

    def check(self, parsed: ParsedProject, figure_files: Mapping[str, str]) -> Iterable[Diagnostic]:
        """Each link must name a widget with a lab on its page, and settings that lab's controls take."""
        problems = []
        for page, use in list_uses(parsed.pages, self.name):
            problems += check_lab_link(page, use)
        return problems

    def render_open(self, renderer: RendererHTML, tokens: Sequence[Token], index: int, options: OptionsDict, env: EnvType) -> str:
        """Link to the lab with the settings in the query; lab.js reads them from data-lab-settings."""
        token = tokens[index]
        page: Page | None = env.get("page")
        lab = find_lab(page.lab_placements if page else (), token.meta["key"], token.meta.get("line", 0))
        pairs = split_query(token.meta["anchor"], describe_link(token.meta["key"], token.meta["anchor"]))
        if lab is None or isinstance(pairs, Finding):
            return '<a href="#">'  # only where check has reported the link (or a preview, which shows no labs)
        settings = json.dumps(link_settings(lab.widget, pairs), ensure_ascii=False)
        return (
            f'<a class="lab-link" href="?{escape(token.meta["anchor"])}#{lab.anchor}" '
            f'data-lab-link="{lab.anchor}" data-lab-settings="{escape(settings)}">'
        )


def check_lab_link(page: Page, use: NameUse) -> list[Diagnostic]:
    """Return the problems of one lab link: its widget, its lab on the page, each parameter's name and value."""
    at = use.location
    link = describe_link(use.key, use.anchor)
    if use.key not in WIDGETS:
        return [
            report(
                at,
                LAB_LINK_UNKNOWN_WIDGET,
                link=link,
                widget=quote(use.key),
                suggestion=suggest_name(use.key, WIDGETS),
                widgets=", ".join(WIDGETS),
            )
        ]
    lab = find_lab(page.lab_placements, use.key, at.line)
    if lab is None:
        shown = ", ".join(dict.fromkeys(lab.widget for lab in page.lab_placements)) or "none"
        return [report(at, LAB_LINK_WITHOUT_LAB, link=link, widget=use.key, shown=shown)]
    pairs = split_query(use.anchor, link)
    if isinstance(pairs, Finding):
        return [pairs.at(at)]
    return [problem.at(at) for problem in check_link_values(lab, pairs, link)]


def describe_link(key: str, query: str) -> str:
    """Return the link as its problems quote it: 'lab:sampler?T=2'."""
    return quote(f"lab:{key}" + (f"?{query}" if query else ""))


def check_link_values(lab: LabPlacement, pairs: Sequence[tuple[str, str]], link: str) -> list[Finding]:
    """Check each setting alone on the lab's own settings, so every bad one is named, with the core's message."""
    names = address_parameters(WIDGETS[lab.widget])
    hidden = WIDGETS[lab.widget].hidden_controls(dict(lab.view))
    problems = []
    seen: set[str] = set()
    for parameter, value in pairs:
        if parameter not in names:
            problems.append(
                finding(
                    LAB_LINK_UNKNOWN_PARAMETER,
                    link=link,
                    widget=lab.widget,
                    parameter=quote(parameter),
                    suggestion=suggest_name(parameter, names),
                    parameters=", ".join(names),
                )
            )
        elif parameter in seen:
            problems.append(finding(LAB_LINK_PARAMETER_TWICE, link=link, parameter=quote(parameter)))
        elif names[parameter] in hidden:
            view = " ".join(f"{key}={value}" for key, value in lab.view)
            problems.append(
                finding(LAB_LINK_HIDDEN_PARAMETER, link=link, widget=lab.widget, view=view, parameter=quote(parameter))
            )
        else:
            problem = check_settings(lab.widget, {**dict(lab.settings), names[parameter]: value})
            if problem is not None:
                problems.append(finding(LAB_LINK_BAD_VALUE, link=link, parameter=parameter, problem=problem))
        seen.add(parameter)
    return problems


# Each check of a widget's settings, by the widget and its settings: the dev server checks every link after any edit.
_CHECKED: dict[tuple[str, tuple[tuple[str, str], ...]], str | None] = SESSION.keep("lab settings checked", {})


def check_settings(widget: str, settings: Mapping[str, str]) -> str | None:
    """Return the core's message for the first bad setting (SettingError's, as the lab shows it), or None.

    Computing the widget's record checks every setting (`Widget.compute`); its HTML, which only a page shows, is not
    drawn. The answer is a pure function of the widget and its settings, so it is kept for the next link and build.
    """
    key = (widget, tuple(sorted(settings.items())))
    if key not in _CHECKED:
        try:
            WIDGETS[widget].compute(normalise_settings(widget, settings))
            _CHECKED[key] = None
        except ValueError as error:  # SettingError: the core's own message, as the browser shows it
            _CHECKED[key] = str(error)
    return _CHECKED[key]


SCHEME = LabScheme()
