"""Signals about long jobs, so apps that tell people (notifications) hear of them without the
apps that run the jobs (tco, reports) importing them."""
from __future__ import annotations

from django.dispatch import Signal

#: Sent when a long job is marked done. Keyword arguments: ``kind`` ("run", "plan" or
#: "export"), ``job_id``, ``scenario_id`` and ``label`` (the job in words: "Sweep 12 of 8x H100
#: training cluster"). Sent inside the transaction that marked it: receivers write rows and queue
#: their work on commit, so a rolled-back job tells nobody.
job_finished = Signal()


def job_finished_send(*, kind: str, job_id: int, scenario_id: int, label: str) -> None:
    job_finished.send(sender=None, kind=kind, job_id=job_id, scenario_id=scenario_id, label=label)
