"""The serving layout searched, not assumed: every layout that holds the model, each timed, the
cheapest that meets the service-level targets chosen, with why and the next two.

A layout is tensor x pipeline parallel devices per replica (a mixture-of-experts model spreads
its experts over the tensor group: expert parallel = tensor parallel, and the estimate treats
both splits alike for memory and bandwidth). Tensor groups are the divisors of the attention
heads up to one node (`FitPolicy.max_tensor_parallel`); pipeline stages are added only to a
full node-sized group, as the memory fit does. Each layout is timed by
`costmodel.sizing.throughput` at every concurrency its memory allows (weights, the KV cache at
input + output tokens, activations); from those points come its curve of throughput per
accelerator against tokens/s per user, and the busiest point that still meets the targets:

- **tokens/s per user** = the replica's output tokens/s / its concurrency (Little's law);
- **time to first token** = one decode step of the batch it joins, then its own prefill, which
  crosses the pipeline stages in turn: step + stages x prefill (no queueing: arrivals below
  capacity).

The fleet of a layout is the replicas a token rate needs (or the fleet given, in whole
replicas); the cheapest is the fewest accelerators (one accelerator model, so one price), then
the most capacity. A layout whose fleet is larger than another's only because a target rules
the smaller one out says which target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import replace

import numpy as np

from costmodel.counting import ceil_count
from costmodel.sizing.inputs import AcceleratorSpec
from costmodel.sizing.inputs import FitPolicy
from costmodel.sizing.inputs import ModelShape
from costmodel.sizing.memory import inference_memory
from costmodel.sizing.memory import usable_memory_gb
from costmodel.sizing.results import SizingResult
from costmodel.sizing.throughput import DEFAULT_MAX_CONCURRENCY_PER_REPLICA
from costmodel.sizing.throughput import Efficiency
from costmodel.sizing.throughput import ServingSetup
from costmodel.sizing.throughput import serving_times
from costmodel.sizing.throughput import serving_work
from costmodel.sizing.workloads import InferenceTarget

# Concurrencies timed per layout: 1 to the memory's limit, evenly on a log scale.
CURVE_POINTS = 40
TIME_TO_FIRST_TOKEN = "time to first token"
TOKENS_PER_USER = "tokens/s per user"


@dataclass(frozen=True)
class CurvePoint:
    """One concurrency of a layout: what each user gets and what each accelerator serves."""

    concurrency_per_replica: float
    tokens_per_s_per_user: float
    tokens_per_s_per_accelerator: float
    time_to_first_token_s: float


@dataclass(frozen=True)
class LayoutOption(SizingResult):
    """One layout at the busiest concurrency meeting the targets (or its most, when none does)."""

    label: str
    tensor_parallel: int
    pipeline_parallel: int
    expert_parallel: int
    devices_per_replica: int
    concurrency_per_replica: float
    max_concurrency_per_replica: float
    tokens_per_s_per_replica: float
    tokens_per_s_per_accelerator: float
    tokens_per_s_per_user: float
    time_to_first_token_s: float
    replicas: float
    accelerators: float
    capacity_tokens_per_s: float
    meets_targets: bool
    misses: tuple[str, ...]
    accelerators_without_targets: float
    misses_at_most: tuple[str, ...]
    tokens_per_s_per_user_at_most: float
    time_to_first_token_s_at_most: float
    curve: tuple[CurvePoint, ...]

    def describe(self, accelerator: str) -> str:
        """One line: the layout, its fleet and what each user gets."""
        return (f"{self.label}: {self.accelerators:,.0f} x {accelerator} "
                f"({self.replicas:,.0f} replicas of {self.devices_per_replica}), "
                f"{self.tokens_per_s_per_accelerator:,.0f} output tokens/s each, "
                f"{self.tokens_per_s_per_user:,.1f} tokens/s per user at "
                f"{self.concurrency_per_replica:,.0f} requests per replica, "
                f"{self.time_to_first_token_s:,.2f} s to the first token")


@dataclass(frozen=True)
class LayoutSearch(SizingResult):
    """Every layout that holds the model, cheapest first, the one chosen and why."""

    chosen: LayoutOption
    next_two: tuple[LayoutOption, ...]
    options: tuple[LayoutOption, ...]
    why: str
    forced_by: tuple[str, ...]
    smallest_fleet_without_targets: float


def _layouts(model: ModelShape, accelerator: AcceleratorSpec, target: InferenceTarget,
             policy: FitPolicy, fleet: float) -> list[tuple[int, int]]:
    """(tensor, pipeline) pairs to try: every head-dividing group up to a node, and, when a
    node's group cannot hold the weights, pipeline stages of node groups from the fewest that
    hold them to twice as many (more stages only add latency), within the policy's limits."""
    heads = int(np.asarray(model.attention_heads))
    max_tensor = int(np.asarray(policy.max_tensor_parallel))
    groups = [t for t in range(1, max_tensor + 1) if heads % t == 0]
    node = groups[-1]
    weights_gb = float(np.asarray(inference_memory(model, target).weights_gb))
    node_gb = node * float(np.asarray(usable_memory_gb(accelerator.memory_gb,
                                                       policy.headroom_fraction)))
    fewest_stages = math.ceil(weights_gb / node_gb)
    stage_limit = float(np.asarray(policy.pipeline_limit(model)))
    stages = [p for p in range(fewest_stages, 2 * fewest_stages + 1)
              if p <= stage_limit] if fewest_stages > 1 else []
    pairs = [(t, 1) for t in groups] + [(node, p) for p in stages]
    most = float(np.asarray(policy.max_accelerators))
    if not math.isnan(fleet):
        most = min(most, fleet)
    return [(t, p) for t, p in pairs
            if t * p <= most and (math.isnan(fleet) or fleet % (t * p) == 0)]


def _concurrencies(limit: float, asked: float) -> np.ndarray:
    if not math.isnan(asked):
        return np.array([min(asked, limit)])
    grid = np.unique(np.round(np.geomspace(1.0, limit, CURVE_POINTS)))
    return grid[grid >= 1.0]


def _replica_memory_limit(model: ModelShape, accelerator: AcceleratorSpec, target: InferenceTarget,
                          policy: FitPolicy, tensor: int, pipeline: int, batch: np.ndarray
                          ) -> np.ndarray:
    """Whether each concurrency's KV cache, the weights and the activations fit the replica."""
    memory = inference_memory(model, replace(target, concurrency=batch))
    per_device = ((np.asarray(memory.weights_gb) + np.asarray(memory.kv_cache_gb))
                  / (tensor * pipeline) + np.asarray(memory.activations_gb) / tensor)
    return np.asarray(per_device <= usable_memory_gb(accelerator.memory_gb, policy.headroom_fraction))


def _option(model: ModelShape, accelerator: AcceleratorSpec, target: InferenceTarget,
            efficiency: Efficiency, policy: FitPolicy, tensor: int, pipeline: int,
            concurrency_over_fleet: bool) -> LayoutOption | None:
    """Time one layout at every concurrency it holds; None when it holds not even one request."""
    devices = tensor * pipeline
    asked = float(np.asarray(target.concurrency))
    if concurrency_over_fleet:
        asked /= float(np.asarray(target.accelerators)) / devices
        if asked < 1.0:
            return None  # more replicas than requests: some would sit idle
    setup = ServingSetup(model=model, accelerator=accelerator, accelerators=float(devices),
                         tensor_parallel=float(tensor), pipeline_parallel=float(pipeline),
                         precision=target.precision, input_tokens=target.input_tokens,
                         output_tokens=target.output_tokens,
                         compute_precision=target.compute_precision,
                         kv_cache_precision=target.kv_cache_precision,
                         cached_input_share=target.cached_input_share)
    _, memory = serving_work(setup, headroom_fraction=policy.headroom_fraction)
    limit = float(min(float(memory["by_kv"]), DEFAULT_MAX_CONCURRENCY_PER_REPLICA))
    if limit < 1.0:
        return None
    batch = _concurrencies(limit, asked)
    batch = batch[_replica_memory_limit(model, accelerator, target, policy, tensor, pipeline,
                                        batch)]
    if batch.size == 0:
        return None
    work, _ = serving_work(replace(setup, concurrency=batch),
                           headroom_fraction=policy.headroom_fraction)
    times = serving_times(work, efficiency)
    per_replica = (np.asarray(times.tokens_per_s)
                   * (1.0 - float(np.asarray(target.power_cap_throughput_loss))))
    per_user = per_replica / batch
    first_token = np.asarray(times.step_s) + pipeline * np.asarray(times.prefill_s)
    curve = tuple(CurvePoint(float(b), float(u), float(r / devices), float(f))
                  for b, u, r, f in zip(batch, per_user, per_replica, first_token, strict=True))
    slow = per_user < float(np.asarray(target.tokens_per_s_per_user))
    late = first_token > float(np.asarray(target.time_to_first_token_s))
    meets = ~slow & ~late
    # The busiest concurrency that meets both targets; when none does, the busiest of all.
    index = int(np.flatnonzero(meets)[-1]) if meets.any() else batch.size - 1
    misses = tuple(name for name, missed in ((TOKENS_PER_USER, slow[index]),
                                             (TIME_TO_FIRST_TOKEN, late[index])) if missed)
    replicas, without_targets = _fleet(target, per_replica[index], devices), _fleet(
        target, per_replica[-1], devices)
    label = f"TP {tensor} x PP {pipeline}"
    expert = tensor if float(np.asarray(model.parameters_per_token)) < float(
        np.asarray(model.parameters)) else 1
    if expert > 1:
        label += f" x EP {expert}"
    return LayoutOption(
        label=label, tensor_parallel=tensor, pipeline_parallel=pipeline, expert_parallel=expert,
        devices_per_replica=devices, concurrency_per_replica=float(batch[index]),
        max_concurrency_per_replica=float(batch[-1]),
        tokens_per_s_per_replica=float(per_replica[index]),
        tokens_per_s_per_accelerator=float(per_replica[index] / devices),
        tokens_per_s_per_user=float(per_user[index]),
        time_to_first_token_s=float(first_token[index]),
        replicas=replicas, accelerators=replicas * devices,
        capacity_tokens_per_s=replicas * float(per_replica[index]),
        meets_targets=not misses, misses=misses,
        accelerators_without_targets=without_targets * devices,
        misses_at_most=tuple(name for name, missed in ((TOKENS_PER_USER, slow[-1]),
                                                       (TIME_TO_FIRST_TOKEN, late[-1])) if missed),
        tokens_per_s_per_user_at_most=float(per_user[-1]),
        time_to_first_token_s_at_most=float(first_token[-1]), curve=curve)


def _fleet(target: InferenceTarget, per_replica: float, devices: int) -> float:
    """Replicas: those the token rate needs, those of the fleet given, or one."""
    fleet = float(np.asarray(target.accelerators))
    if not math.isnan(fleet):
        return fleet / devices
    rate = float(np.asarray(target.tokens_per_s))
    return 1.0 if math.isnan(rate) else float(ceil_count(rate / per_replica))


def _cheapest_first(option: LayoutOption) -> tuple[float, float, int]:
    return (option.accelerators, -option.capacity_tokens_per_s, option.devices_per_replica)


def _why(chosen: LayoutOption, ranked: list[LayoutOption], smallest: float,
         accelerator: str) -> tuple[str, tuple[str, ...]]:
    """Why the chosen layout, and which targets force a larger fleet than a layout without
    them would need."""
    meeting = [o for o in ranked if o.meets_targets]
    if not chosen.meets_targets:
        return (f"No layout meets the service-level targets; {chosen.label} comes cheapest at "
                f"its busiest ({', '.join(chosen.misses)} missed). "
                + chosen.describe(accelerator) + ".", chosen.misses)
    text = (f"{chosen.label} needs the fewest accelerators of the {len(meeting)} layouts that "
            f"meet the targets ({len(ranked)} hold the model). " + chosen.describe(accelerator)
            + ".")
    # Layouts that would need fewer accelerators at their busiest, were it not for a target.
    cheaper = [o for o in ranked
               if o.accelerators_without_targets < chosen.accelerators and o.misses_at_most]
    forced: tuple[str, ...] = ()
    if cheaper:
        forced = tuple(dict.fromkeys(name for o in cheaper for name in o.misses_at_most))
        text += (f" Without the targets {smallest:,.0f} would do; a target rules it out: "
                 + "; ".join(f"{o.label} at its busiest ({o.max_concurrency_per_replica:,.0f} "
                             f"requests per replica, {o.accelerators_without_targets:,.0f} "
                             f"accelerators) misses {' and '.join(o.misses_at_most)} "
                             f"({o.tokens_per_s_per_user_at_most:,.1f} tokens/s per user, "
                             f"{o.time_to_first_token_s_at_most:,.2f} s to the first token)"
                             for o in cheaper[:3]) + ".")
    return text, forced


def search_layouts(model: ModelShape, accelerator: AcceleratorSpec, target: InferenceTarget,
                   efficiency: Efficiency, policy: FitPolicy | None = None, *,
                   concurrency_over_fleet: bool = False) -> LayoutSearch | None:
    """Every layout that holds the model for ``target`` (scalar inputs), cheapest first; None
    when none holds one request. A ``target.tensor_parallel`` (and pipeline_parallel) fixes the
    layout: only its concurrency is searched. ``concurrency_over_fleet`` reads the target's
    concurrency as requests over the fleet it fixes (a benchmark's), shared by its replicas.

    Examples
    --------
    20,000 tokens/s of a model on 80 GB devices where one device holds the weights and six
    requests (157 tokens/s each) but two hold 344 requests: one device a replica needs 128
    accelerators, two a replica 16; the search proposes the 16.
    """
    policy = policy or FitPolicy()
    fleet = float(np.asarray(target.accelerators))
    given = float(np.asarray(target.tensor_parallel))
    pipeline_given = float(np.asarray(target.pipeline_parallel))
    pairs = ([(int(given), 1 if math.isnan(pipeline_given) else int(pipeline_given))]
             if not math.isnan(given) else _layouts(model, accelerator, target, policy, fleet))
    options = [option for tensor, pipeline in pairs
               if (option := _option(model, accelerator, target, efficiency, policy, tensor,
                                     pipeline, concurrency_over_fleet)) is not None]
    if not options:
        return None
    within = [o for o in options if o.accelerators <= float(np.asarray(policy.max_accelerators))]
    ranked = sorted(within or options, key=_cheapest_first)
    meeting = [o for o in ranked if o.meets_targets]
    if meeting:
        chosen = meeting[0]
        others = meeting[1:] + [o for o in ranked if not o.meets_targets]
    else:
        chosen, others = ranked[0], ranked[1:]
    smallest = min(o.accelerators_without_targets for o in ranked)
    why, forced = _why(chosen, ranked, smallest, accelerator.name)
    return LayoutSearch(chosen=chosen, next_two=tuple(others[:2]),
                        options=tuple(ranked), why=why, forced_by=forced,
                        smallest_fleet_without_targets=smallest)
