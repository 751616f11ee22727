"""The accelerators' off switch (sitegen/speed/__init__.py): ROLLOUTS_PLAIN, and a plain build's bytes are an accelerated one's."""

from __future__ import annotations

from pathlib import Path

import pytest

from site_testing import PROJECT_ROOT, run_cli, snapshot_folder
from sitegen.speed import ALL_OFF, Accelerators, read_accelerators

CONTENT = PROJECT_ROOT / "content"  # six chapters: enough for the forked copy when a core is free


@pytest.mark.parametrize(
    ("value", "accelerators"),
    [
        ("", Accelerators()),
        ("0", Accelerators()),
        ("1", ALL_OFF),
        ("all", ALL_OFF),
        ("beside", ALL_OFF),
        (" beside, ", ALL_OFF),
    ],
)
def test_rollouts_plain_turns_off_every_accelerator_or_those_it_names(value, accelerators):
    assert read_accelerators({"ROLLOUTS_PLAIN": value}) == accelerators
    assert read_accelerators({}) == Accelerators()


def test_an_unknown_accelerator_stops_the_command_before_it_starts(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.setenv("ROLLOUTS_PLAIN", "beside,memos")
    run = run_cli(["build", "--quiet", "--content", str(CONTENT), "--out", str(tmp_path / "out")], tmp_path, capsys)
    assert (run.status, run.stdout, run.stderr) == (
        2,
        "",
        "build.py: ROLLOUTS_PLAIN=beside,memos: no accelerator is called 'memos' (1 or all, or some of: beside)\n",
    )
    assert not (tmp_path / "out").exists()


def test_a_plain_build_writes_the_same_files_with_the_same_bytes_as_an_accelerated_one(tmp_path: Path, monkeypatch, capsys):
    built = {}
    for plain in ("", "1"):
        monkeypatch.setenv("ROLLOUTS_PLAIN", plain)
        out = tmp_path / f"out-{plain or 'accelerated'}"
        run = run_cli(["build", "--quiet", "--content", str(CONTENT), "--out", str(out)], tmp_path, capsys)
        assert (run.status, run.stderr) == (0, "")
        built[plain] = snapshot_folder(out)
    assert sorted(built[""]) == sorted(built["1"])
    assert [name for name in built[""] if built[""][name] != built["1"][name]] == []
