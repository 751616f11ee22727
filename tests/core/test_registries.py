"""The core's three registries, each entry held to its contract by iterating the registry.

`WIDGETS` (rollout_lab/widgets/), `list_values()` (rollout_lab/computed/: the
registry's `VALUES` and each widget's `values`) and `FIGURES`
(rollout_lab/figures/) are what the build and the browser look up by name. A
widget, value or figure added to one is checked here with no test of its
own; what is particular to one entry stays in that entry's tests.
"""

import json
import re
import sys
from html import escape
from pathlib import Path

import pytest

from rollout_lab import SettingError
from rollout_lab.computed import VALUES, list_values
from rollout_lab.figures import FIGURES
from rollout_lab.values import ParameterError
from rollout_lab.widgets import WIDGETS, render_widget

REPOSITORY = Path(__file__).resolve().parents[2]
NAME = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")

# --- widgets -----------------------------------------------------------------------


def test_the_widgets_are_registered_in_the_order_the_chapters_meet_them():
    assert list(WIDGETS) == ["tokens", "probabilities", "calculator", "sampler", "training", "credit", "batch"]


@pytest.mark.parametrize("name", list(WIDGETS))
def test_a_widget_is_registered_under_its_own_name(name):
    assert WIDGETS[name].name == name


@pytest.mark.parametrize("name", list(WIDGETS))
def test_a_widgets_default_run_shows_only_what_the_page_shows(name):
    widget = WIDGETS[name]
    rendered = render_widget(name, {})
    # Only what the page shows: the lab's record stays in the worker (nothing on the page reads it).
    assert sorted(rendered) == ["announcement", "html", "settings"]
    assert rendered["settings"] == widget.defaults
    assert rendered["html"] == widget.render(widget.compute(widget.defaults))
    assert rendered["announcement"] and "\n" not in rendered["announcement"]
    record = widget.compute(widget.defaults)
    assert widget.format_table(record).strip()
    assert json.loads(widget.format_json(record)) == json.loads(json.dumps(record))


@pytest.mark.skipif(sys.platform == "emscripten", reason="the templates are not copied into Pyodide")
@pytest.mark.parametrize("name", list(WIDGETS))
def test_a_widgets_template_exists(name):
    assert (REPOSITORY / "site_templates" / WIDGETS[name].partial).is_file()


def written_another_way(default: str) -> str:
    """The same setting as a reader might type it: spaced, with a trailing zero or in capitals."""
    if re.fullmatch(r"[0-9]+", default):
        return f" {default}.0 " if len(default) < 9 else f" {default} "
    if re.fullmatch(r"[0-9]+\.[0-9]+", default):
        return f" {default}0 "
    return f" {default.upper()} " if re.fullmatch(r"[a-z_]+", default) else f" {default} "


@pytest.mark.parametrize("name", list(WIDGETS))
def test_the_same_settings_typed_another_way_render_the_same_bytes(name):
    widget = WIDGETS[name]
    typed = {control.name: written_another_way(control.default) for control in widget.controls if control.kind != "stepper"}
    spaced = {control.name: f" {control.default} " for control in widget.controls if control.kind == "stepper"}
    assert render_widget(name, {**typed, **spaced}) == render_widget(name, {})


@pytest.mark.parametrize("name", list(WIDGETS))
def test_every_preset_is_a_value_the_core_accepts(name):
    for control in WIDGETS[name].controls:
        for preset in control.presets:
            assert render_widget(name, {control.name: preset})["settings"][control.name] == preset


@pytest.mark.parametrize("name", list(WIDGETS))
def test_a_setting_the_widget_lacks_is_a_value_error_naming_its_settings(name):
    # Another widget's settings too: the training lab has no temperature, the calculator no seed.
    own = WIDGETS[name].setting_names
    lacking = sorted({setting for widget in WIDGETS.values() for setting in widget.setting_names} - set(own))
    for setting in [*lacking, "no_such_setting"]:
        with pytest.raises(ValueError) as error:
            render_widget(name, {setting: "1"})
        assert not isinstance(error.value, SettingError)
        assert str(error.value) == f"the {name} widget has no setting '{setting}' (settings: {', '.join(own)})"


@pytest.mark.parametrize("name", list(WIDGETS))
def test_a_bad_value_of_each_control_names_that_control(name):
    for control in WIDGETS[name].controls:
        for typed in ("abc", ""):
            with pytest.raises(SettingError) as error:
                render_widget(name, {control.name: typed})
            assert error.value.field == control.name
            if control.kind != "text":  # a text control's rule, and so its message, is its widget's
                assert str(error.value).startswith(f"{control.label} must be "), str(error.value)


# --- computed values ----------------------------------------------------------------

# One expression per value and the text it gives (docs/authoring.md shows the same ones): a value added without
# an example here fails the first test below.
EXAMPLES = {
    "probability-ratio": ("T=0.5 over=1 candidate=0", "1.3431"),
    "clipped-term": ("T=2 candidate=0 advantage=1 epsilon=0.2", "0.7826"),
    "importance": ("T=0.25 field=effective-size places=2", "3.60"),
    "kl": ("T=0.5 over=1", "0.0996"),
    "kl-sample": ("T=0.5 candidate=0", "0.0395"),
    "kl-estimate": ("T=0.5 candidate=0 estimator=k1", "0.2950"),
    "kl-estimate-mean": ("T=0.5 estimator=k3 draws=current", "0.0996"),
    "logit-move": ("K=8 candidate=1", "+0.0352"),
    "log-probability-slope": ("candidate=0 logit=1", "−0.2649"),
    "policy-gradient": ("candidate=0", "+0.1248"),
    "expected-update": ("rule=mean candidate=0", "+0.1040"),
    "update-ratio": ("rule=mean candidate=0", "0.8333"),
    "update-cosine": ("rule=std", "0.9606"),
    "update-variance": ("rule=raw", "0.0433"),
    "update-relative-variance": ("rule=raw", "1.5027"),
    "probability-after": ("K=8 step=0.5 candidate=1", "0.2612"),
    "step-direction": ("K=8 candidate=1", "lower"),
    "std": ("sigma=population", "0.3536"),
    "normalised-signal": ("n=6 sigma=population", "−2.12"),
    "normalised-signals": ("sigma=sample", "+0.65, +0.65, 0, 0, +0.65, −1.94"),
    "logit": ("candidate=1", "1.2"),
    "reward": ("candidate=1", "0.75"),
    "completion": ("candidate=1", "The answer is 5."),
    "prompt": ("", "A box has 3 red labels and 2 blue labels. How many labels? Reply with one digit."),
    "token-rollout": ("n=2 field=text", "The answer is 5"),
    "token-step": ("n=2 t=4 field=token", "<end>"),
    "token-completion": ("completion=1 when=change", "+0.0082"),
    "token-branch": ("state=0 option=2", "0.2649"),
    "token-mean": ("K=3", "0.8333"),
    "probability": ("T=1 candidate=0", "58.96\xa0%"),
    "probability-value": ("T=0.5 candidate=0 places=4", "0.7919"),
    "expected-reward": ("T=1", "0.7884"),
    "shown-total": ("T=1", "99.99\xa0%"),
    "group-mean": ("rewards=1,0.75,0,1", "0.6875"),
    "group-signal": ("rewards=1,0.75,0,1 n=2", "+0.0625"),
    "group-signals": ("rewards=1,0.6,0,1", "+0.35, −0.05, −0.65, +0.35"),
    "mean": ("T=1 K=3 seed=20260903", "0.9167"),
    "draw": ("T=1 K=6 n=3 field=completion", "The answer is 5."),
    "indices": ("T=1 K=6", "0, 0, 1, 1, 0, 2"),
    "rewards": ("T=1 K=6", "1, 1, 0.75, 0.75, 1, 0"),
    "signals": ("T=1 K=6", "+0.25, +0.25, 0, 0, +0.25, −0.75"),
    "comparison": ("T=1 n=3 K=3", "below"),
    "training-expected-reward": ("round=3", "0.9127"),
    "training-kl": ("beta=0.5", "0.0294"),
    "training-probability": ("round=5 candidate=1", "0.094"),
    "training-clipped": ("round=3 epoch=4", "2"),
    "training-ratio": ("round=3 epoch=4 candidate=2", "0.7154"),
    "token-value": ("state=4", "0.6132"),
    "token-credit": ("n=2 t=3 field=advantage", "+0.1368"),
    "batch-row": ("prompt=3 field=mean", "0.1667"),
}


def test_no_value_is_declared_twice():
    names = list(VALUES) + [name for widget in WIDGETS.values() for name in widget.values]
    assert len(names) == len(set(names))
    assert set(list_values()) == set(names)


def test_every_value_has_an_example():
    assert sorted(EXAMPLES) == sorted(list_values())


def compute(name: str, words: str) -> str:
    """Compute a value as the build does: its defaults, overridden by the `key=value` words."""
    definition = list_values()[name]
    given = dict(word.split("=", 1) for word in words.split())
    assert set(given) <= set(definition.parameters)
    settings = {key: given.get(key, default) for key, default in definition.parameters.items()}
    assert None not in settings.values(), f"the example leaves out a required parameter of {name}"
    return definition.compute(settings)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_a_value_computes_its_examples_text(name):
    words, text = EXAMPLES[name]
    assert compute(name, words) == text
    assert compute(name, words) == text  # nothing kept from one call changes the next


@pytest.mark.parametrize("name", sorted(list_values()))
def test_a_values_name_and_parameters_are_as_an_author_writes_them(name):
    assert NAME.fullmatch(name)
    for key, default in list_values()[name].parameters.items():
        assert re.fullmatch(r"[A-Za-z]+", key)
        assert default is None or (isinstance(default, str) and default == default.strip() and default)


@pytest.mark.parametrize("name", sorted(name for name, value in list_values().items() if "places" in value.parameters))
def test_a_value_with_places_refuses_more_than_ten(name):
    words, _ = EXAMPLES[name]
    with pytest.raises(ParameterError) as error:
        compute(name, f"{words} places=11")
    assert str(error.value) == "places must be a whole number from 0 to 10, got 11"


# --- figures ------------------------------------------------------------------------


def test_the_figures_are_registered_in_the_order_the_chapters_place_them():
    assert list(FIGURES) == ["draw-rule", "clipped-objective", "update-step", "estimator-variance", "reward-kl-frontier"]


@pytest.mark.parametrize("name", list(FIGURES))
def test_a_figure_is_registered_under_its_own_name_by_the_module_that_draws_it(name):
    figure = FIGURES[name]
    assert figure.name == name and NAME.fullmatch(name)
    assert type(figure).__module__ == f"rollout_lab.figures.{name.replace('-', '_')}"


@pytest.mark.parametrize("name", list(FIGURES))
def test_a_figure_draws_an_svg_titled_and_described_in_words(name):
    figure = FIGURES[name]
    description, svg = figure.draw()
    assert description and "\n" not in description
    assert svg.startswith(f'<svg xmlns="http://www.w3.org/2000/svg" class="{name}"')
    assert svg.rstrip().endswith("</svg>")
    assert f"<title>{escape(figure.title)}</title>" in svg
    assert f"<desc>{escape(description)}</desc>" in svg
    assert figure.draw() == (description, svg)
