"""Goodput: the share of paid accelerator-hours that does useful work.

A job of n accelerators, each failing at rate lambda per hour, and (rented on
spot) interrupted at rate s per hour, stops on average every
MTBF = 1 / (lambda x n + s) hours. It writes a checkpoint (cost C hours) every
tau hours of work; a failure loses on average half a segment, (tau + C) / 2,
plus the restart time R. First-order model (Young 1974; Daly 2006):

    efficiency = tau / (tau + C) x (1 - ((tau + C) / 2 + R) / MTBF)

whose optimum is tau = sqrt(2 x C x MTBF) (Young's interval). Goodput is
utilisation x efficiency: with no failures and no checkpoint cost it equals
the utilisation.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from costmodel.elementwise import Figure
from costmodel.elementwise import as_float
from costmodel.elementwise import clip
from costmodel.elementwise import divide_where
from costmodel.elementwise import isinf
from costmodel.elementwise import isnan
from costmodel.elementwise import where
from costmodel.inputs import Goodput
from costmodel.inputs import Numeric


def job_mtbf_h(
    failures_per_accelerator_hour: ArrayLike,
    accelerators_per_job: Numeric,
    interruptions_per_hour: Numeric = 0.0,
) -> Figure:
    """Mean time between interruptions of one job [h]; inf when nothing interrupts it.

    Examples
    --------
    Llama 3 (Meta, 2024): 419 interruptions in 54 days on 16,384 GPUs, i.e.
    ~1.97e-5 per GPU-hour; a 16,384-GPU job stops every ~3.1 h:

    >>> round(float(job_mtbf_h(419 / (54 * 24 * 16384), 16384)), 2)
    3.09
    """
    rate = as_float(failures_per_accelerator_hour) * accelerators_per_job + interruptions_per_hour
    return where(rate > 0.0, 1.0 / where(rate > 0.0, rate, 1.0), np.inf)


def young_daly_interval_h(checkpoint_cost_h: ArrayLike, mtbf_h: ArrayLike) -> Figure:
    """Optimal hours of work between checkpoints, sqrt(2 x C x MTBF) [h].

    Examples
    --------
    >>> float(young_daly_interval_h(0.1, 20.0))
    2.0
    >>> float(young_daly_interval_h(0.0, np.inf))  # nothing fails: never checkpoint
    inf
    """
    mtbf = as_float(mtbf_h)
    infinite = isinf(mtbf)
    return where(infinite, np.inf, np.sqrt(2.0 * as_float(checkpoint_cost_h) * where(infinite, 1.0, mtbf)))


def efficiency(
    interval_h: ArrayLike, checkpoint_cost_h: Numeric, restart_h: Numeric, mtbf_h: ArrayLike
) -> Figure:
    """Share of a job's running time that is useful work [-] (0 when failures swamp it).

    Examples
    --------
    tau = 2 h, C = 0.1 h, R = 0.5 h, MTBF 20 h: 2 / 2.1 x (1 - (1.05 + 0.5) / 20):

    >>> round(float(efficiency(2.0, 0.1, 0.5, 20.0)), 6)
    0.878571
    >>> float(efficiency(np.inf, 0.1, 0.5, np.inf))
    1.0
    """
    tau = as_float(interval_h)
    segment = tau + checkpoint_cost_h
    mtbf = as_float(mtbf_h)
    # No checkpoint ever, or checkpoints that cost nothing: all running time is work.
    working = where(isinf(tau) | (segment <= 0.0), 1.0, divide_where(segment > 0.0, tau, segment, 1.0))
    lost = divide_where(mtbf != np.inf, segment / 2.0 + restart_h, mtbf, 0.0)
    return working * clip(1.0 - lost, 0.0, 1.0)


def checkpoint_interval_h(goodput: Goodput, mtbf_h: ArrayLike) -> Figure:
    """The interval given, or the Young/Daly optimum where it is NaN [h].

    With no checkpoint cost the optimum is to checkpoint continuously (0 h).
    """
    given = as_float(goodput.checkpoint_interval_h)
    return where(isnan(given), young_daly_interval_h(goodput.checkpoint_cost_h, mtbf_h), given)


def fleet_efficiency(
    goodput: Goodput, accelerators: ArrayLike, interruptions_per_hour: Numeric = 0.0
) -> tuple[Figure, Figure, Figure]:
    """(efficiency [-], checkpoint interval used [h], MTBF of a job [h]) of a fleet's jobs.

    ``accelerators_per_job`` NaN means the whole fleet of ``accelerators`` is one job.
    """
    per_job = as_float(goodput.accelerators_per_job)
    job_size = where(isnan(per_job), accelerators, per_job)
    mtbf = job_mtbf_h(goodput.failures_per_accelerator_hour, job_size, interruptions_per_hour)
    interval = checkpoint_interval_h(goodput, mtbf)
    return efficiency(interval, goodput.checkpoint_cost_h, goodput.restart_h, mtbf), interval, mtbf
