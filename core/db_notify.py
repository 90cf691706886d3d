"""Waiting for a row's change without polling it: PostgreSQL's LISTEN on this process's connection.

    with listening("tco_run_42", poll_s=0.5) as wait:
        while not done():   # read the row: LISTEN came first, so no change is missed
            wait(5.0)       # returns when a NOTIFY on the channel has committed, or after 5 s

On another database (SQLite), or inside a transaction (where LISTEN waits for the commit),
``wait`` sleeps ``poll_s`` at most instead: the caller's loop polls.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from collections.abc import Iterator
from contextlib import contextmanager
from contextlib import suppress

from django.db import Error
from django.db import connection


@contextmanager
def listening(channel: str, *, poll_s: float) -> Iterator[Callable[[float], None]]:
    """Within the block, ``wait(seconds)`` returns as soon as a notification on ``channel`` arrives
    (one sent since the block began and not yet waited for returns at once), or after ``seconds``.

    ``channel`` is a PostgreSQL identifier of letters, digits and underscores.
    """
    if not channel.replace("_", "").isalnum():
        raise ValueError(f"channel must be letters, digits and underscores, got {channel!r}")
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        yield lambda seconds: time.sleep(max(0.0, min(seconds, poll_s)))
        return
    with connection.cursor() as cursor:
        cursor.execute(f"LISTEN {channel}")

    def wait(seconds: float) -> None:
        # Notifications that came during the caller's queries are held by psycopg: returned at once.
        # A dropped connection raises Django's OperationalError, as a query would.
        with connection.wrap_database_errors:
            for _ in connection.connection.notifies(timeout=max(0.0, seconds), stop_after=1):
                break

    try:
        yield wait
    finally:
        # A connection that broke meanwhile took its LISTEN with it: the caller's error is the news.
        with suppress(Error), connection.cursor() as cursor:
            cursor.execute(f"UNLISTEN {channel}")
