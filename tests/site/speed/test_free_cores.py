"""How many cores other work leaves a build (sitegen/speed/free_cores.py), from data: CPU use, /proc's files, quotas.

The one live case starts a busy child and sees its time counted as the
build's own, reaped or not: what the build's node and git use never keeps
it from its copy.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import sitegen.speed.free_cores
from sitegen.speed.free_cores import CpuUse, count_free_cores, measure_cpu_use, read_cpu_quota, read_process_ticks


@pytest.mark.parametrize(
    ("busy", "ours", "seconds", "free"),
    [
        (0.1, 0.1, 0.1, 1.0),  # only this build worked: one core left of two
        (0.3, 0.1, 0.2, 0.0),  # another process took a whole core
        (0.4, 0.2, 0.1, -1.0),  # two others' worth: the machine is full
        (0.05, 0.1, 0.1, 1.0),  # the counts' ticks disagree a little: never less than nobody
    ],
)
def test_other_processes_cpu_while_the_build_started_is_what_they_take(monkeypatch, busy, ours, seconds, free):
    monkeypatch.setattr(sitegen.speed.free_cores, "count_cores", lambda: 2.0)
    since = CpuUse(when=100.0, busy=50.0, ours=1.0)
    now = CpuUse(when=100.0 + seconds, busy=50.0 + busy, ours=1.0 + ours)
    assert count_free_cores(since, now) == pytest.approx(free)


@pytest.mark.parametrize("since", [None, CpuUse(when=100.0, busy=50.0, ours=1.0)], ids=["no start", "too short a start"])
def test_without_a_long_enough_measure_the_load_stands_in(monkeypatch, since):
    monkeypatch.setattr(sitegen.speed.free_cores, "count_cores", lambda: 2.0)
    monkeypatch.setattr(os, "getloadavg", lambda: (1.25, 3.0, 4.0))
    now = CpuUse(when=100.01, busy=51.0, ours=1.0)
    assert count_free_cores(since, now) == pytest.approx(0.75)


def test_the_cpu_time_of_this_process_tree_and_of_all_is_read_from_proc(tmp_path):
    (tmp_path / "stat").write_text("cpu  1000 20 300 9000 40 5 6 7 0 0\ncpu0 500 10 150 4500 20 2 3 3 0 0\n", encoding="ascii")
    task = tmp_path / "proc" / "self" / "task" / "1"
    task.mkdir(parents=True)
    (task / "children").write_text("4242 ", encoding="ascii")
    (tmp_path / "proc" / "4242").mkdir()
    # A name with a space and a parenthesis: the fields are counted after the name's last ")".
    fields = ["S", "1"] + ["0"] * 9 + ["30", "20", "5", "5"] + ["0"] * 30
    (tmp_path / "proc" / "4242" / "stat").write_text(f"4242 (node (katex) x) {' '.join(fields)}\n", encoding="ascii")
    ticks = os.sysconf("SC_CLK_TCK")
    before = os.times()
    use = measure_cpu_use(tmp_path / "stat", tmp_path / "proc")
    after = os.times()
    assert use is not None
    assert use.busy == pytest.approx((1000 + 20 + 300 + 5 + 6 + 7) / ticks)
    own = [t.user + t.system + t.children_user + t.children_system for t in (before, after)]
    assert own[0] + 60 / ticks <= use.ours <= own[1] + 60 / ticks


@pytest.mark.parametrize("damage", ["no /proc/stat", "a short first line", "no children file"])
def test_proc_files_that_cannot_be_read_give_no_measure(tmp_path, damage):
    if damage != "no /proc/stat":
        (tmp_path / "stat").write_text("cpu  1 2 3\n" if damage == "a short first line" else "cpu  1 2 3 4 5 6 7 8 0 0\n")
    (tmp_path / "proc" / "self" / "task" / "1").mkdir(parents=True)
    assert measure_cpu_use(tmp_path / "stat", tmp_path / "proc") is None


def test_a_busy_child_counts_as_this_builds_own_reaped_or_not():
    since = measure_cpu_use()
    assert since is not None
    child = subprocess.Popen(
        [sys.executable, "-c", "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass"]
    )
    while read_process_ticks_of(child.pid) / os.sysconf("SC_CLK_TCK") < 0.25 and child.poll() is None:
        time.sleep(0.02)
    living = measure_cpu_use()  # the child still running, or exited and not yet reaped
    child.wait()
    reaped = measure_cpu_use()
    assert living is not None and reaped is not None
    assert living.ours - since.ours >= 0.25
    assert reaped.ours - since.ours >= 0.25


def read_process_ticks_of(pid: int) -> int:
    return read_process_ticks(Path(f"/proc/{pid}/stat"))


@pytest.mark.parametrize(
    ("cgroup", "files", "quota"),
    [
        ("0::/box\n", {"box/cpu.max": "100000 100000\n"}, 1.0),  # cgroup v2, a container run with --cpus 1
        ("0::/box\n", {"box/cpu.max": "150000 100000\n"}, 1.5),
        ("0::/box\n", {"box/cpu.max": "max 100000\n"}, None),  # no quota
        (
            "4:memory:/x\n1:cpu,cpuacct:/box\n",
            {"cpu,cpuacct/box/cpu.cfs_quota_us": "50000\n", "cpu,cpuacct/box/cpu.cfs_period_us": "100000\n"},
            0.5,
        ),
        ("1:cpu:/\n", {"cpu/cpu.cfs_quota_us": "-1\n", "cpu/cpu.cfs_period_us": "100000\n"}, None),  # v1, no quota
        ("1:cpu:/\n0::/\n", {"cpu.max": "200000 100000\n"}, 2.0),  # v1's cpu files missing: v2's answer
        ("0::/box\n", {}, None),  # the group's file cannot be read
        ("4:memory:/x\n", {}, None),  # no cpu controller
        ("", {}, None),
    ],
)
def test_a_control_groups_cpu_quota_caps_the_cores_counted(tmp_path, cgroup, files, quota):
    (tmp_path / "cgroup").write_text(cgroup, encoding="utf-8")
    for name, text in files.items():
        (tmp_path / "fs" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "fs" / name).write_text(text, encoding="utf-8")
    assert read_cpu_quota(tmp_path / "cgroup", tmp_path / "fs") == quota
