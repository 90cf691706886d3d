"""What waits on the broker's queues, as a task that could go on with more work reads it."""
from __future__ import annotations

from core import jobs
from tco.tasks import sweep_run_finish_task
from tests.faults.outages import broker


def test_it_counts_the_messages_no_worker_has_taken_on_the_queues_asked(live_celery):
    live_celery.control.purge()
    try:
        for queue in ("sweeps", "sweeps", "default"):
            assert jobs.send(sweep_run_finish_task, (0,), queue=queue)

        assert jobs.waiting({"sweeps"}) == 2
        assert jobs.waiting({"sweeps", "default"}) == 3
        assert jobs.waiting({"reports"}) == 0  # a queue with no message has no Redis key
    finally:
        live_celery.control.purge()


def test_it_says_nothing_when_the_broker_does_not_answer(live_celery):
    with broker(live_celery, "redis://127.0.0.1:1/0"):  # nothing listens on port 1
        assert jobs.waiting({"sweeps"}) is None

