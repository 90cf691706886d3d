"""Following a run until it ends, woken by its changes (migration 0031) rather than polling."""
from __future__ import annotations

import time
from collections.abc import Callable

from core.db_notify import listening
from tco.models import SweepRun

# Without notifications (SQLite), how often the row is read.
POLL_EVERY_S = 0.5
# With them, the row is read again after this long with none, should one never come (a run's
# row changed by hand in a database without the trigger).
LISTEN_AT_MOST_S = 5.0
# What is read while the run is active: its inputs, spec and summary are kilobytes of JSON.
PROGRESS_FIELDS = ("status", "progress", "chunks_done", "chunks_total", "error")


def sweep_run_wait(run: SweepRun, *, timeout_s: float | None = None,
                   on_change: Callable[[SweepRun], None] | None = None) -> SweepRun:
    """``run`` refreshed once it has ended (done, failed or cancelled), or when ``timeout_s`` has
    passed (then still active). ``on_change`` is called with it at the start, after each change
    of its status or counted chunks, and every few seconds (a progress bar). Raises
    SweepRun.DoesNotExist when the run is deleted meanwhile.

    On PostgreSQL a change wakes the wait when its transaction commits: the client learns of it
    without a poll's delay, and reads the row once per change instead of once per poll.
    """
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    with listening(f"tco_run_{int(run.pk)}", poll_s=POLL_EVERY_S) as wait:
        while True:
            run.refresh_from_db(fields=PROGRESS_FIELDS)
            if on_change is not None:
                on_change(run)
            left = LISTEN_AT_MOST_S if deadline is None else deadline - time.monotonic()
            if not run.is_active or left <= 0:
                run.refresh_from_db()
                return run
            wait(min(left, LISTEN_AT_MOST_S))
