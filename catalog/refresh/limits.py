"""Time limits of a price refresh, kept below the Redis visibility timeout (3,600 s).

A refresh acknowledges late, so a hard limit above the visibility timeout would let Redis
hand the same refresh to a second worker while the first is still running.
"""

from __future__ import annotations

# Three AWS regions' offer files are a few hundred MB each; downloading and parsing them is
# the slow part, minutes on a normal link.
REFRESH_SOFT_TIME_LIMIT_S = 1500
REFRESH_TIME_LIMIT_S = 1800
# A job still "running" this long after it started lost its worker: no run lasts that long.
ABANDONED_AFTER_S = 2 * REFRESH_TIME_LIMIT_S
# A run whose database went away waits this long for it to come back to record its failure (a
# PostgreSQL restart or fail-over takes seconds), trying again every interval: a job row left
# RUNNING would read as in progress until ABANDONED_AFTER_S.
FAILURE_RECORD_PATIENCE_S = 60
FAILURE_RECORD_RETRY_INTERVAL_S = 1
