"""The training lab's results markup (rollout_lab.widgets.training_results through render_widget)."""

import re

import pytest

from rollout_lab import SettingError, format_fixed
from rollout_lab.learning.training import run_training
from rollout_lab.widgets import WIDGETS, render_widget
from rollout_lab.widgets.training_results import announce_training, clipped_count


def test_the_widget_runs_the_core_at_its_own_defaults():
    widget = render_widget("training", {})
    assert widget["settings"] == {
        "rounds": "5",
        "group_size": "8",
        "seed": "20260903",
        "learning_rate": "1",
        "epochs": "4",
        "clip": "0.2",
        "kl_weight": "0",
        "signal_rule": "mean",
    }
    # Defaults are per widget: the sampler keeps its group of 6.
    assert WIDGETS["sampler"].defaults["group_size"] == "6" and WIDGETS["training"].defaults["group_size"] == "8"
    assert render_widget("sampler", {})["settings"]["group_size"] == "6"
    assert widget["announcement"] == "Round 5: expected reward 0.9358, KL 0.1827, 0 of 32 (sample, epoch) pairs clipped"


def test_the_round_table_has_the_contracts_columns_and_one_row_per_round():
    for settings in ({}, {"rounds": "10", "group_size": "64"}, {"rounds": "1", "epochs": "1"}):
        html = render_widget("training", settings)["html"]
        record = run_training(**settings)
        table = re.search(r'<table class="lab-table lab-rounds">.*?</table>', html, re.S).group(0)
        assert re.findall(r'<th scope="col"(?: class="num")?>([^<]+)</th>', table) == [
            "Round",
            "Expected reward",
            "KL",
            "Clipped",
        ]
        rows = re.findall(
            r'<tr><th scope="row" data-field="round">(\d+)</th><td data-field="expected-reward">([^<]+)</td>'
            r'<td data-field="kl">([^<]+)</td><td data-field="clipped">(\d+ of \d+)</td></tr>',
            table,
        )
        assert rows == [
            (
                str(r["round"]),
                format_fixed(r["expected_reward"]),
                format_fixed(r["kl"]),
                f"{clipped_count(r)} of {record['settings']['group_size'] * record['settings']['epochs']}",
            )
            for r in record["rounds"]
        ]


def test_clipped_counts_every_clipped_sample_in_every_epoch_of_the_round():
    third = run_training()["rounds"][2]
    assert clipped_count(third) == sum(flag for epoch in third["epochs"] for flag in epoch["clipped"]) == 6


def test_the_three_figures_are_drawn_with_their_point_in_words():
    html = render_widget("training", {})["html"]
    labels = re.findall(r'<svg class="lab-chart train-chart" [^>]*role="img" aria-label="([^"]+)"', html)
    assert len(labels) == 3
    assert labels[0].startswith("The probability of each answer before training (round 0) and after each round: ")
    assert "\u201c5\u201d from 0.5896 to 0.8653" in labels[0]
    assert (
        "against the shaded band 0.8 to 1.2, on an axis where a ratio of 2 sits as far above 1 as a ratio of 0.5 below it;"
        " 16 (sample, epoch) pairs were clipped in all." in labels[1]
    )
    # The axis is not linear (issue 58): the chart says how it reads.
    assert ">ratio axis: 2 is as far above 1 as 0.5 is below</text>" in re.findall(r"<svg.*?</svg>", html, re.S)[1]
    assert labels[2].startswith(
        "Expected reward from 0.7884 before training to 0.9358 after round 5; KL to the reference from 0 to 0.1827."
    )
    # One marker per drawn answer per epoch; the clipped ones filled (plus the key's own filled marker).
    ratio_chart = re.findall(r"<svg.*?</svg>", html, re.S)[1]
    record = run_training()
    clipped_markers = sum(
        len({i for i, c in zip(r["indices"], e["clipped"]) if c}) for r in record["rounds"] for e in r["epochs"]
    )
    assert ratio_chart.count(" train-clipped") == clipped_markers + 1
    assert 'class="train-band"' in ratio_chart


def test_the_numbers_behind_the_figures_list_every_epoch():
    html = render_widget("training", {"rounds": "2", "epochs": "3"})["html"]
    details = re.search(r'<details class="lab-details">.*?</details>', html, re.S).group(0)
    assert details.count("<tbody>") == 2 and details.count("<tr>") == 1 + 2 * 3
    record = run_training(rounds=2, epochs=3)
    for r in record["rounds"]:
        for epoch in r["epochs"]:
            shown = "; ".join(
                f"{name} {format_fixed(epoch['ratios'][r['indices'].index(i)])}{' clipped' if epoch['clipped'][r['indices'].index(i)] else ''}"
                for i, name in enumerate(["5", "The answer is 5.", "6"])
                if i in r["indices"]
            )
            assert f"<td>{shown}</td>" in details


def test_a_bad_setting_raises_the_cores_error_with_its_field():
    with pytest.raises(SettingError) as error:
        render_widget("training", {"kl_weight": "-0.1"})
    assert (error.value.field, str(error.value)) == ("kl_weight", "KL weight must be a number from 0 to 1; \u22120.1 is too low")


def test_the_announcement_reads_the_last_row_of_the_table():
    # The reader review: it counted the last epoch's samples while the table counts the round's pairs.
    record = run_training(rounds=3)
    assert announce_training(record) == "Round 3: expected reward 0.9127, KL 0.1054, 6 of 32 (sample, epoch) pairs clipped"


def test_the_table_writes_four_fixed_decimals():
    # 0.94 read as less precise than its neighbours: every expected reward and KL has four decimals.
    assert format_fixed(0.94) == "0.9400"
    assert format_fixed(0.123) == "0.1230"
    assert format_fixed(-0.00001) == "0.0000"
    assert format_fixed(-0.5) == "\u22120.5000"


def test_the_controls_are_the_contracts_with_link_parameters_and_presets():
    widget = WIDGETS["training"]
    assert [c.label for c in widget.controls] == [
        "Rounds",
        "Group size",
        "Seed",
        "Learning rate",
        "Epochs",
        "Clip",
        "KL weight",
        "Signal rule",
    ]
    assert [c.url_parameter for c in widget.controls] == ["R", "K", "seed", "lr", "E", "eps", "beta", "rule"]
    assert widget.resettable and widget.in_address
    presets = {c.name: c.presets for c in widget.controls if c.presets}
    assert presets == {
        "learning_rate": ("0", "0.5", "1", "2", "5"),
        "clip": ("0.1", "0.2", "0.3", "1"),
        "kl_weight": ("0", "0.1", "0.5", "1"),
    }
    assert [value for value, _ in widget.controls[-1].choices] == ["mean", "std"]
