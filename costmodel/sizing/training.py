"""How long a training run takes on a given number of accelerators, and how many a deadline needs.

time = 6 x parameters per token x tokens
       / (accelerators x dense peak x 1e12 x MFU x scaling efficiency x (1 - power-cap loss))
"""

from __future__ import annotations

import numpy as np

from costmodel.counting import ceil_count
from costmodel.inputs import Numeric
from costmodel.metrics import SECONDS_PER_HOUR
from costmodel.sizing.errors import SizingInputError
from costmodel.sizing.errors import check_range
from costmodel.sizing.fit import TOO_MANY_ACCELERATORS
from costmodel.sizing.fit import fit_training
from costmodel.sizing.inputs import AcceleratorSpec
from costmodel.sizing.inputs import FitPolicy
from costmodel.sizing.inputs import ModelShape
from costmodel.sizing.memory import training_memory_per_device_gb
from costmodel.sizing.results import Assumption
from costmodel.sizing.results import TrainingSizing
from costmodel.sizing.results import as_figure
from costmodel.sizing.results import as_output
from costmodel.sizing.units import FLOPS_PER_TFLOPS
from costmodel.sizing.units import SECONDS_PER_DAY
from costmodel.sizing.workloads import ScalingEfficiencyTable
from costmodel.sizing.workloads import TrainingJob

# Forward (2) plus backward (4) FLOPs per parameter per token (Kaplan et al. 2020).
TRAINING_FLOPS_PER_PARAMETER_PER_TOKEN = 6.0
BELOW_MEMORY_MINIMUM = "fewer accelerators than the memory minimum of the fit"
# Enough halvings to pin any count below 2**64 in the deadline search.
_BISECTION_STEPS = 64


def training_flops(model: ModelShape, tokens: Numeric) -> Numeric:
    """Model FLOPs of a training run.

    Parameters
    ----------
    model : ModelShape
        Its ``parameters_per_token`` (active parameters for mixture-of-experts).
    tokens : numeric
        Training tokens [tokens].

    Returns
    -------
    numeric
        6 x parameters per token x tokens [FLOP].

    Examples
    --------
    Llama 3 8B (8.03e9 parameters) on 1e12 tokens: 6 x 8.03e9 x 1e12 = 4.82e22 FLOP.
    """
    return TRAINING_FLOPS_PER_PARAMETER_PER_TOKEN * model.parameters_per_token * np.asarray(tokens)


def scaling_efficiency(
    accelerators: Numeric, table: ScalingEfficiencyTable | None = None
) -> Numeric:
    """Share of linear speed-up kept at a cluster size, interpolated linearly in log2(count).

    Parameters
    ----------
    accelerators : numeric
        Accelerators working on one job [count], at least 1.
    table : ScalingEfficiencyTable, optional
        Defaults to seed 003's table with 1.0 at one device; held flat beyond its ends.

    Returns
    -------
    numeric
        Efficiency [0-1].

    Examples
    --------
    1,024 is a third of the way from 512 (0.75) to 4,096 (0.60) in log2 steps:
    0.75 - (1/3) x 0.15 = 0.70.

    >>> round(float(scaling_efficiency(1024)), 6)
    0.7
    """
    table = table or ScalingEfficiencyTable()
    check_range("accelerators", accelerators, low=1.0)
    return as_figure(
        np.interp(
            np.log2(np.asarray(accelerators, dtype=np.float64)),
            np.log2(np.asarray(table.accelerator_counts, dtype=np.float64)),
            np.asarray(table.efficiencies, dtype=np.float64),
        )
    )


def _sustained_flops_per_accelerator(accelerator: AcceleratorSpec, job: TrainingJob) -> Numeric:
    """FLOP/s one accelerator delivers before scaling losses: peak x MFU x (1 - power-cap loss)."""
    peak_tflops = accelerator.tflops_at(job.precision, "TrainingJob.precision")
    return as_figure(
        np.asarray(peak_tflops) * FLOPS_PER_TFLOPS * np.asarray(job.mfu)
        * (1.0 - np.asarray(job.power_cap_throughput_loss))
    )


def training_time_s(
    model: ModelShape, accelerator: AcceleratorSpec, job: TrainingJob, accelerators: Numeric
) -> Numeric:
    """Wall-clock time of a training run.

    Parameters
    ----------
    model, accelerator, job
        The run; the accelerator needs a dense TFLOPS figure at ``job.precision``.
    accelerators : numeric
        Accelerators in the run [count].

    Returns
    -------
    numeric
        Time [s].

    Examples
    --------
    Llama 3 8B, 1e12 tokens, 1,024 H100 at 989 dense BF16 TFLOPS, MFU 0.40,
    efficiency 0.70: 4.818e22 / (1,024 x 989e12 x 0.40 x 0.70) = 169,912 s = 1.97 days.
    """
    efficiency = scaling_efficiency(accelerators, job.scaling)
    throughput = np.asarray(accelerators) * _sustained_flops_per_accelerator(accelerator, job)
    return as_figure(training_flops(model, job.tokens) / (throughput * efficiency))


def accelerators_for_deadline(
    model: ModelShape, accelerator: AcceleratorSpec, job: TrainingJob, deadline_days: Numeric
) -> Numeric:
    """Fewest accelerators, in whole model-parallel groups, that finish a run within a deadline.

    Solves n x efficiency(n) >= FLOPs / (sustained FLOP/s per accelerator x
    deadline) by bisection over whole counts (n x efficiency(n) never falls
    as n grows; `ScalingEfficiencyTable` checks that), then rounds n up to a
    multiple of TP x PP.

    Returns
    -------
    numeric
        Accelerators [count].

    Examples
    --------
    1e22 FLOPs at 1e15 FLOP/s per accelerator in 1e5 s needs n x eff(n) >= 100,
    with eff(n) = 0.85 - 0.10 x (log2 n - 6) / 3 between 64 and 512 devices:
    122 x 0.8190 = 99.9 falls short, 123 x 0.8186 = 100.7 does it, so 123.
    """
    check_range("deadline_days", deadline_days, low=0.0, low_open=True)
    needed = training_flops(model, job.tokens) / (
        _sustained_flops_per_accelerator(accelerator, job)
        * np.asarray(deadline_days) * SECONDS_PER_DAY
    )
    lowest_efficiency = min(job.scaling.efficiencies)
    low = np.maximum(ceil_count(needed), 1.0)
    high = np.maximum(ceil_count(needed / lowest_efficiency), low)
    for _ in range(_BISECTION_STEPS):
        middle = np.floor((low + high) / 2.0)
        enough = middle * scaling_efficiency(middle, job.scaling) >= needed
        high = np.where(enough, middle, high)
        low = np.where(enough, low, middle + 1.0)
    model_parallel = job.model_parallel
    return as_figure(ceil_count(high / model_parallel) * model_parallel)


def size_training(
    model: ModelShape, accelerator: AcceleratorSpec, job: TrainingJob,
    *,
    accelerators: Numeric | None = None,
    deadline_days: Numeric | None = None,
    policy: FitPolicy | None = None,
) -> TrainingSizing:
    """Accelerators and time for a training run: a given count, a deadline, or the memory minimum.

    With ``accelerators`` given, the run uses them; with ``deadline_days``,
    the larger of the deadline's count and the memory minimum; with neither,
    the memory minimum. ``fits`` is False, with a reason, where the count
    cannot hold the run or exceeds ``policy.max_accelerators``.

    Returns
    -------
    TrainingSizing
        ``accelerators`` [count], ``time_s`` [s], ``time_days`` [days],
        ``accelerator_hours`` [h] and the memory fit; NaN where it does not fit.

    Examples
    --------
    Llama 3 70B, 1e12 tokens on 1,024 H100 at MFU 0.40: 17.28 days, 424,630
    accelerator-hours.
    """
    if accelerators is not None and deadline_days is not None:
        raise SizingInputError("deadline_days", "give accelerators or deadline_days, not both")
    policy = policy or FitPolicy()
    fit = fit_training(model, accelerator, job, policy)
    memory_minimum = np.asarray(fit.accelerators, dtype=np.float64)
    if accelerators is not None:
        check_range("accelerators", accelerators, low=1.0)
        if np.any(np.asarray(accelerators) % job.model_parallel):
            raise SizingInputError(
                "accelerators", "must be a multiple of tensor_parallel x pipeline_parallel"
            )
        requested = np.asarray(accelerators, dtype=np.float64)
    elif deadline_days is not None:
        requested = np.maximum(
            memory_minimum, accelerators_for_deadline(model, accelerator, job, deadline_days)
        )
    else:
        requested = memory_minimum
    below_minimum = requested < memory_minimum
    fits = np.asarray(fit.fits) & ~below_minimum & (requested <= policy.max_accelerators)
    count = np.where(fits, requested, np.nan)
    safe_count = np.where(fits, count, 1.0)
    time_s = np.where(fits, training_time_s(model, accelerator, job, safe_count), np.nan)
    reason = np.select(
        [fits, ~np.asarray(fit.fits), below_minimum],
        ["", fit.reason, BELOW_MEMORY_MINIMUM],
        default=TOO_MANY_ACCELERATORS,
    )
    data_parallel = count / job.model_parallel
    return TrainingSizing(
        fits=as_output(fits),
        reason=as_output(reason),
        accelerators=as_output(count),
        per_device_memory_gb=as_output(
            training_memory_per_device_gb(
                fit.memory, job.sharding, job.tensor_parallel, job.pipeline_parallel, data_parallel
            )
        ),
        training_flops=as_output(training_flops(model, job.tokens)),
        scaling_efficiency=as_output(np.where(fits, scaling_efficiency(safe_count, job.scaling),
                                              np.nan)),
        time_s=as_output(time_s),
        time_days=as_output(time_s / SECONDS_PER_DAY),
        accelerator_hours=as_output(count * time_s / SECONDS_PER_HOUR),
        fit=fit,
        assumptions=[
            *fit.assumptions,
            accelerator.peak_assumption(job.precision),
            Assumption.given("deadline_days", deadline_days, "days")
            if deadline_days is not None
            else Assumption("accelerators", requested, "accelerators",
                            "input" if accelerators is not None else "memory minimum"),
        ],
    )
