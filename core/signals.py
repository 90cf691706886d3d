"""Signals about long jobs, so apps that tell people (notifications) hear of them without the
apps that run the jobs (tco, reports) importing them."""
from __future__ import annotations

from functools import partial

from django.db import transaction
from django.dispatch import Signal

#: Sent once the transaction that marked a long job done has committed. Keyword arguments:
#: ``kind`` ("run", "plan" or "export"), ``job_id``, ``scenario_id`` and ``label`` (the job in
#: words: "Sweep run 12 of 8x H100 training cluster").
job_finished = Signal()


def job_finished_on_commit(*, kind: str, job_id: int, scenario_id: int, label: str) -> None:
    """Send ``job_finished`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(partial(job_finished.send, sender=None, kind=kind, job_id=job_id,
                                  scenario_id=scenario_id, label=label))
