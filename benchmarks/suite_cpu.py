"""Where the test suite's CPU goes: a pytest plugin that counts each test's CPU in a cgroup, and its summary.

`/usr/bin/time` around pytest misses the Chromium and node processes the xdist
workers start (no process it waits for reaps them): about half the suite's
CPU. Here each worker moves itself into a cpuacct cgroup of its own (cgroup v1,
as root), which every process it starts inherits, reaped or not, and writes
one line per test: its start, its end and the CPU its worker's cgroup used
meanwhile. Run from the project root (docs/benchmarks.md, "The test loop"):

    mkdir -p /sys/fs/cgroup/cpuacct/suite && sh -c 'echo $$ > /sys/fs/cgroup/cpuacct/suite/cgroup.procs &&
        exec env SUITE_CGROUP=/sys/fs/cgroup/cpuacct/suite PYTHONPATH=benchmarks \\
        .venv/bin/python -m pytest -p suite_cpu -n 2 --dist loadfile -q'
    .venv/bin/python benchmarks/suite_cpu.py /tmp/suite-cpu

The first prints the suite as usual; the second sums the lines per worker, per
folder and per file. The run's total is in the cgroup's own cpuacct.usage
(nanoseconds).
"""

from __future__ import annotations

import collections
import glob
import json
import os
import sys
import time
from pathlib import Path

import pytest

GROUP = Path(os.environ.get("SUITE_CGROUP", "/sys/fs/cgroup/cpuacct/suite"))
PREFIX = os.environ.get("SUITE_CPU_LINES", "/tmp/suite-cpu")
_worker: dict[str, object] = {}


def pytest_configure(config: pytest.Config) -> None:
    """In an xdist worker, move into a cgroup of the worker's own and open its file of lines."""
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker is None:
        return
    group = GROUP / worker
    group.mkdir(exist_ok=True)
    (group / "cgroup.procs").write_text(str(os.getpid()))
    _worker["usage"] = group / "cpuacct.usage"
    _worker["lines"] = open(f"{PREFIX}-{worker}.jsonl", "w", encoding="utf-8")  # noqa: SIM115 - open for the session


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """Write the test's start, end and its worker's CPU in between (set-up and tear-down included)."""
    if not _worker:
        yield
        return
    usage = _worker["usage"]
    assert isinstance(usage, Path)
    start, cpu = time.time(), int(usage.read_text())
    yield
    line = {"id": item.nodeid, "start": start, "end": time.time(), "cpu": (int(usage.read_text()) - cpu) / 1e9}
    lines = _worker["lines"]
    lines.write(json.dumps(line) + "\n")  # type: ignore[attr-defined]
    lines.flush()  # type: ignore[attr-defined]


def summarise(prefix: str) -> None:
    """Print CPU and wall time per worker, per folder and per file (the 30 largest by CPU)."""
    tests = [
        {**json.loads(line), "worker": path[len(prefix) + 1 : -len(".jsonl")]}
        for path in sorted(glob.glob(f"{prefix}-gw*.jsonl"))
        for line in Path(path).read_text(encoding="utf-8").splitlines()
    ]
    first = min(test["start"] for test in tests)
    for part in (
        lambda test: test["worker"],
        lambda test: "/".join(test["id"].split("/")[:2]),
        lambda test: test["id"].split("::")[0],
    ):
        totals: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0, 0.0])
        for test in tests:
            total = totals[part(test)]
            total[0] += test["cpu"]
            total[1] += test["end"] - test["start"]
            total[2] += 1
            total[3] = max(total[3], test["end"] - first)
        for name, (cpu, wall, count, last) in sorted(totals.items(), key=lambda item: -item[1][0])[:30]:
            print(f"{cpu:8.1f} s CPU {wall:8.1f} s wall {count:5d} tests, last ends at {last:6.0f} s  {name}")
        print()


if __name__ == "__main__":
    summarise(sys.argv[1] if len(sys.argv) > 1 else PREFIX)
