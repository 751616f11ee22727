"""How many cores other work leaves this build: whether a copy of it (beside.py) would have a core of its own.

The 1-minute load average says how busy the machine was, but it counts
this build's own work and that of the builds just before it: builds run back
to back (a benchmark, a CI job building several books, `make site` right after
`make test`) kept it above 1.5 on an idle 2-core machine, and every one of them
ran without its copy (a 96-chapter book in 2.2 s instead of 1.4). So the build
command measures instead what other processes used while it started
(`measure_cpu_use` at its start and again before the build proper): all the
CPUs' busy time (/proc/stat) less this process's and its children's (node, git).
Where that cannot be read (not Linux), the load average stands in.

The cores counted are those the process may run on, capped by its control
group's CPU quota: a container started with `--cpus 1` often sees every core
of its host, and its load, while its quota pays for one.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

# Where Linux says which control group this process is in, and where the groups' files are.
CGROUP_FILE = Path("/proc/self/cgroup")
CGROUP_ROOT = Path("/sys/fs/cgroup")
# All the CPUs' time by kind since boot (its first line), and where each process's own times are.
CPU_STAT = Path("/proc/stat")
PROC = Path("/proc")
# A shorter start says too little: the kernel counts CPU time in ticks of 10 ms (USER_HZ 100).
SHORTEST_WINDOW = 0.05


@dataclass(frozen=True)
class CpuUse:
    """The CPU time used so far, in seconds: by every process (busy) and by this one with its children (ours)."""

    when: float  # time.monotonic()
    busy: float
    ours: float


def measure_cpu_use(cpu_stat: Path = CPU_STAT, proc: Path = PROC) -> CpuUse | None:
    """Return the CPU time used so far by all and by this process's tree, or None where /proc cannot say."""
    try:
        ticks = os.sysconf("SC_CLK_TCK")
        fields = cpu_stat.read_text(encoding="ascii").splitlines()[0].split()
        # user nice system idle iowait irq softirq steal (guest time is within user's): all but idle and iowait.
        user, nice, system, _idle, _iowait, irq, softirq, steal = (int(field) for field in fields[1:9])
        children = read_children(proc / "self" / "task")
        ours = os.times()
        own = ours.user + ours.system + ours.children_user + ours.children_system
        own += sum(read_process_ticks(proc / str(child) / "stat") for child in children) / ticks
    except (OSError, ValueError, IndexError):
        return None
    return CpuUse(time.monotonic(), (user + nice + system + irq + softirq + steal) / ticks, own)


def read_children(tasks: Path) -> list[int]:
    """Return the ids of the living (or not yet reaped) children of this process's threads."""
    return [int(pid) for task in tasks.iterdir() for pid in (task / "children").read_text(encoding="ascii").split()]


def read_process_ticks(stat_file: Path) -> int:
    """Return a process's CPU time in ticks: its own (utime, stime) and its reaped children's (cutime, cstime)."""
    # The name (second field) is in parentheses and may hold spaces: the fields are counted after its end.
    after_name = stat_file.read_text(encoding="ascii", errors="replace").rsplit(")", 1)[1].split()
    return sum(int(field) for field in after_name[11:15])  # fields 14-17 of proc(5)


def count_free_cores(since: CpuUse | None = None, now: CpuUse | None = None) -> float:
    """Return how many of this process's cores other work leaves, besides the one this build uses.

    `since`: the CPU use when the command started; other processes' use
    since then is what they take (`now` is measured when not given). Without
    it, or when it cannot be measured, the 1-minute load stands in (which
    counts this build too: about 1 for one build on a quiet machine).
    """
    cores = count_cores()
    now = now or (measure_cpu_use() if since is not None else None)
    if since is not None and now is not None and now.when - since.when >= SHORTEST_WINDOW:
        others = max(0.0, (now.busy - since.busy) - (now.ours - since.ours)) / (now.when - since.when)
        return cores - others - 1.0
    try:
        return cores - os.getloadavg()[0]
    except OSError:  # no load average to read: assume the machine is busy
        return 0.0


def count_cores() -> float:
    """Return how many cores this process may use: those it may run on, capped by its control group's quota."""
    try:
        cores = float(len(os.sched_getaffinity(0)))
    except AttributeError:  # not Linux
        cores = float(os.cpu_count() or 1)
    quota = read_cpu_quota(CGROUP_FILE, CGROUP_ROOT)
    return min(cores, quota) if quota is not None else cores


def read_cpu_quota(cgroup_file: Path, cgroup_root: Path) -> float | None:
    """Return how many cores' time this process's control group may use (a container started with `--cpus 1`: 1.0).

    None when no quota limits it or none can be read. A container often sees
    every core of its host, and the host's load, while its quota lets it use
    one: a copy of the build would then only take turns with the build.
    cgroup v2 says it in cpu.max ("100000 100000"), v1 in cpu.cfs_quota_us and
    cpu.cfs_period_us (a quota of -1: none).
    """
    try:
        lines = cgroup_file.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        _number, controllers, path = fields
        folder = path.lstrip("/")
        try:
            if controllers == "":  # cgroup v2's one hierarchy
                quota, period = (cgroup_root / folder / "cpu.max").read_text(encoding="utf-8").split()[:2]
                if quota == "max":
                    return None
            elif "cpu" in controllers.split(","):
                quota = (cgroup_root / controllers / folder / "cpu.cfs_quota_us").read_text(encoding="utf-8").strip()
                period = (cgroup_root / controllers / folder / "cpu.cfs_period_us").read_text(encoding="utf-8").strip()
                if int(quota) < 0:
                    return None
            else:
                continue
            return int(quota) / int(period) if int(period) > 0 else None
        except (OSError, ValueError):
            continue
    return None
