"""CPU seconds a sweep cost each process taking part in it, read from ``/proc`` (Linux).

On a shared 2-core machine a sweep's wall time moves with whatever else the machine runs; the
CPU seconds its processes spent move far less, and say what the service costs beside the
engine: the workers (their Celery main process and pool processes), PostgreSQL's backends,
Redis and the client that started the run and waited for it.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

CLOCK_TICKS_PER_S = os.sysconf("SC_CLK_TCK")
# The roles a sweep's processes play, in the order they are printed.
ROLES = ("workers", "PostgreSQL", "Redis", "client")
# The machine's own counts (``/proc/stat``, every core): time no process ran, and time the
# hypervisor gave the virtual cores to someone else.
MACHINE = ("idle", "stolen")

Snapshot = dict[str, dict[int, float]]


def cpu_snapshot(worker_group: int) -> Snapshot | None:
    """Each role's processes and the CPU seconds (user + system, all threads) each has spent so
    far, and the cores' idle and stolen seconds (``MACHINE``, under key 0); None where there is
    no ``/proc``. ``worker_group`` is the worker's process group."""
    if not Path("/proc/self/stat").exists():
        return None
    roles: Snapshot = {role: {} for role in ROLES}
    # user nice system idle iowait irq softirq steal, in clock ticks.
    ticks = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:9]]
    roles["idle"] = {0: (ticks[3] + ticks[4]) / CLOCK_TICKS_PER_S}
    roles["stolen"] = {0: ticks[7] / CLOCK_TICKS_PER_S}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # the process ended while we looked
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text.rsplit(")", 1)[1].split()
        pid, group = int(stat.parent.name), int(fields[2])  # fields 1 and 5 of stat
        role = ("workers" if group == worker_group else "PostgreSQL" if name == "postgres"
                else "Redis" if name.startswith("redis-server") else "client" if pid == os.getpid()
                else None)
        if role is not None:
            # utime and stime, fields 14 and 15 of stat, in clock ticks.
            roles[role][pid] = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS_PER_S
    return roles


def cpu_spent(before: Snapshot | None, after: Snapshot | None) -> dict[str, float] | None:
    """CPU seconds each role spent between two snapshots, and the cores' idle and stolen
    seconds; a process started in between counts whole, one that ended in between is not
    counted (a worker's processes and PostgreSQL's backends live on across runs)."""
    if before is None or after is None:
        return None
    return {role: sum(seconds - before[role].get(pid, 0.0) for pid, seconds in after[role].items())
            for role in (*ROLES, *MACHINE)}


def cpu_total(spent: Mapping[str, float]) -> float:
    """The CPU seconds the sweep's processes spent."""
    return sum(spent[role] for role in ROLES)


def cpu_line(spent: Mapping[str, float], engine_cpu_s: float) -> str:
    """'workers 1.62 s, PostgreSQL 0.05 s, ...: 1.76 s, 1.19x the engine alone's 1.48 s; cores
    idle 0.20 s, stolen 0.01 s'."""
    total = cpu_total(spent)
    parts = ", ".join(f"{role} {spent[role]:.2f} s" for role in ROLES)
    return (f"{parts}: {total:.2f} s, {total / engine_cpu_s:.2f}x the engine alone's {engine_cpu_s:.2f} s; "
            f"cores idle {spent['idle']:.2f} s, stolen {spent['stolen']:.2f} s")
