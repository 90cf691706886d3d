"""Sizing specs, as a scenario stores them or the API receives them, -> engine sizing -> result.

The one module that maps a stored sizing to `costmodel.sizing`, and a catalog accelerator to
an `AcceleratorSpec`. A spec is a flat JSON object: ``mode`` (training or inference),
``model`` (a preset key of `MODEL_PRESETS` or a custom model's shape), the training job's or
serving target's parameters and the fit policy's limits, each under the engine's own field
name and left out to take the engine's default. Engine errors are re-raised naming the spec
field: ``TrainingJob.mfu`` becomes ``mfu`` and ``ModelShape.parameters`` ``model.parameters``.
"""
from __future__ import annotations

from collections.abc import Collection
from collections.abc import Iterator
from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Any

import numpy as np

from catalog.models import Accelerator
from catalog.models import CloudOffering
from catalog.models import TokenApiPrice
from catalog.selectors import price_at
from core.currency import Currency
from costmodel.model_presets import custom_model
from costmodel.model_presets import model_preset
from costmodel.sizing import AcceleratorSpec
from costmodel.sizing import FitPolicy
from costmodel.sizing import InferenceSizing
from costmodel.sizing import InferenceTarget
from costmodel.sizing import ModelShape
from costmodel.sizing import SizingInputError
from costmodel.sizing import TrainingJob
from costmodel.sizing import TrainingSizing
from costmodel.sizing import size_inference
from costmodel.sizing import size_training
from costmodel.sizing.software_gain import life_average_factor
from costmodel.sizing.throughput import ServingSetup
from costmodel.sizing.token_costs import TokenKindCosts
from costmodel.sizing.token_costs import token_kind_costs
from costmodel.sizing.workloads import DEFAULT_TOKENS_PER_S_PER_USER
from tco.services.accelerator_spec import accelerator_spec
from tco.services.sizing_throughput import calibrated
from tco.services.sizing_throughput import calibration_summary
from tco.services.sizing_throughput import catalog_software_gain
from tco.services.sizing_throughput import nearest_measurements


class SizingMode(StrEnum):
    """What a sizing is for: a training run or a serving target."""

    TRAINING = "training"
    INFERENCE = "inference"


# Spec keys, named as the engine's fields. TrainingJob's and InferenceTarget's
# power_cap_throughput_loss is left out on purpose: a scenario's power cap is met by buying
# more accelerators on the buy side, so sizing under the cap too would count it twice.
TRAINING_JOB_KEYS = ("tokens", "precision", "mfu", "sharding", "tensor_parallel",
                     "pipeline_parallel", "sequence_length", "micro_batch_size", "recomputation",
                     "activation_memory_gb")
TRAINING_COUNT_KEYS = ("accelerators", "deadline_days")
INFERENCE_TARGET_KEYS = ("tokens_per_s", "input_tokens", "output_tokens", "concurrency",
                         "precision", "compute_precision", "kv_cache_precision",
                         "accelerators", "tensor_parallel",
                         "measured_tokens_per_s_per_accelerator", "measured_source",
                         "prefill_chunk_tokens", "activation_memory_gb", "pipeline_parallel",
                         "time_to_first_token_s", "tokens_per_s_per_user",
                         "cached_input_share")
# Inference keys of the sizing itself, not of the engine's serving target.
SERVING_KEYS = ("software_gain_per_year",)
FITTED = "fitted"
FIT_POLICY_KEYS = ("headroom_fraction", "max_tensor_parallel", "max_pipeline_parallel",
                   "max_accelerators")
CUSTOM_MODEL_REQUIRED_KEYS = ("parameters", "layers", "hidden_size", "attention_heads",
                              "max_context_length", "vocab_size")
CUSTOM_MODEL_KEYS = ("name", *CUSTOM_MODEL_REQUIRED_KEYS, "kv_heads", "head_dim",
                     "active_parameters", "kv_cache_values_per_token_per_layer")
MODE_KEYS: Mapping[SizingMode, tuple[str, ...]] = {
    SizingMode.TRAINING: TRAINING_JOB_KEYS + TRAINING_COUNT_KEYS,
    SizingMode.INFERENCE: INFERENCE_TARGET_KEYS + SERVING_KEYS,
}
SPEC_KEYS = ("mode", "model", *dict.fromkeys(TRAINING_JOB_KEYS + TRAINING_COUNT_KEYS
                                             + INFERENCE_TARGET_KEYS + SERVING_KEYS
                                             + FIT_POLICY_KEYS))
CUSTOM_MODEL_NAME = "custom model"


@dataclass(frozen=True)
class SizingInputs:
    """A sizing spec as engine inputs, before an accelerator is chosen."""

    mode: SizingMode
    model: ModelShape
    workload: TrainingJob | InferenceTarget
    policy: FitPolicy
    accelerators: float | None = None
    deadline_days: float | None = None


@dataclass(frozen=True)
class SoftwareGain:
    """The yearly throughput gain from maturing software a sizing assumes, and where it comes
    from: the spec's figure, the catalog's fit, or the default of none."""

    per_year: float
    basis: str

    def life_factor(self, months: float) -> float:
        """Average throughput over a life of ``months`` as a multiple of today's."""
        return life_average_factor(self.per_year, months / 12.0)

    def describe(self, months: float) -> str:
        """The assumption in words, with what it does over a life of ``months``."""
        return (f"software gain {self.per_year:.1%} a year ({self.basis}): x"
                f"{self.life_factor(months):.3f} on average over {months:g} months")

    def to_dict(self) -> dict[str, Any]:
        return {"per_year": self.per_year, "basis": self.basis}


NO_SOFTWARE_GAIN = "default: none assumed; give software_gain_per_year, or \"fitted\""


@dataclass(frozen=True)
class Figure:
    """One figure of a sizing as a page or report shows it."""

    name: str
    value: Any
    unit: str


@dataclass(frozen=True)
class Sizing:
    """A sizing spec run on a catalog accelerator: the engine's result and what a scenario uses."""

    mode: SizingMode
    accelerator: str
    model: str
    spec: Mapping[str, Any]
    result: TrainingSizing | InferenceSizing
    nearest: tuple[dict[str, Any], ...] = ()
    calibration: Mapping[str, Any] | None = None
    token_costs: TokenKindCosts | None = None
    software_gain: SoftwareGain | None = None
    # The life the software gain is averaged over (a scenario's horizon), when sized for one.
    horizon_months: float | None = None
    # A training run: the catalog's fine-tuning APIs priced per training token, or why none.
    fine_tuning: Mapping[str, Any] | None = None

    @property
    def fits(self) -> bool:
        """Whether a layout within the fit policy holds the workload."""
        return bool(self.result.fits)

    @property
    def accelerators(self) -> float:
        """Accelerators the workload needs [count]; NaN when it does not fit."""
        return float(self.result.accelerators)

    @property
    def tokens_per_s_per_accelerator(self) -> float | None:
        """Output tokens one accelerator serves at full speed [tokens/s]; None for training."""
        if isinstance(self.result, InferenceSizing):
            return float(self.result.tokens_per_s_per_accelerator)
        return None

    @property
    def measured(self) -> bool:
        """Whether the throughput is a measurement the user stated rather than the estimate."""
        return isinstance(self.result, InferenceSizing) and result_is_measured(self.result)

    @property
    def tokens_per_s_per_user_target(self) -> float:
        """The interactivity an inference sizing meets: the spec's, else the engine's default."""
        return float(self.spec.get("tokens_per_s_per_user") or DEFAULT_TOKENS_PER_S_PER_USER)

    @property
    def throughput_range(self) -> tuple[float, float] | None:
        """Low and high ends of the throughput per accelerator [tokens/s]; None for training."""
        if isinstance(self.result, InferenceSizing):
            return (float(self.result.tokens_per_s_per_accelerator_low),
                    float(self.result.tokens_per_s_per_accelerator_high))
        return None

    def describe(self) -> str:
        """One line naming the sizing, for the source of the figures a scenario takes from it."""
        basis = f"; {self.result.basis}" if isinstance(self.result, InferenceSizing) else ""
        gain = self.software_gain
        if gain is not None and gain.per_year != 0.0 and self.horizon_months is not None:
            basis += f"; {gain.describe(self.horizon_months)}"
        return (f"{self.mode.value} sizing of {self.model} on {self.accelerator} "
                f"({self.result.fit.layout}{basis})")

    def figures(self) -> list[Figure]:
        """The sizing's main figures, in the order a reader wants them."""
        result, fit = self.result, self.result.fit
        rows = [Figure("fits", self.fits, "")]
        if not self.fits:
            rows.append(Figure("reason", result.reason, ""))
        rows += [Figure("accelerators", result.accelerators, "accelerators"),
                 Figure("layout", fit.layout, ""),
                 Figure("model_copy_memory", fit.memory.total_gb, "GB"),
                 Figure("usable_memory_per_device", fit.usable_memory_per_device_gb, "GB")]
        if isinstance(result, TrainingSizing):
            return rows + [Figure("per_device_memory", result.per_device_memory_gb, "GB"),
                           Figure("training_flops", result.training_flops, "FLOP"),
                           Figure("scaling_efficiency", result.scaling_efficiency, "share"),
                           Figure("time", result.time_days, "days"),
                           Figure("accelerator_hours", result.accelerator_hours, "h"),
                           *self._fine_tuning_figures()]
        estimate = result.estimate
        rows += [Figure("per_device_memory", fit.per_device_memory_gb, "GB"),
                 Figure("accelerators_per_replica", result.accelerators_per_replica,
                        "accelerators"),
                 Figure("replicas", result.replicas, "replicas"),
                 Figure("throughput_basis", "measured" if self.measured else "estimate",
                        str(result.basis)),
                 Figure("concurrency_per_replica", estimate.concurrency_per_replica, "requests"),
                 Figure("decode_bound", estimate.decode_bound, ""),
                 Figure("capacity", result.capacity_tokens_per_s, "output tokens/s"),
                 Figure("tokens_per_s_per_accelerator", result.tokens_per_s_per_accelerator,
                        "output tokens/s"),
                 Figure("tokens_per_s_per_accelerator_range",
                        f"{float(result.tokens_per_s_per_accelerator_low):,.0f} to "
                        f"{float(result.tokens_per_s_per_accelerator_high):,.0f}",
                        "output tokens/s")]
        if result.cost_usd_per_million_tokens is not None:
            rows += [Figure("cost_per_million_tokens", result.cost_usd_per_million_tokens,
                            "USD per million output tokens"),
                     Figure("cost_per_million_tokens_range",
                            f"{float(result.cost_usd_per_million_tokens_low):,.4g} to "
                            f"{float(result.cost_usd_per_million_tokens_high):,.4g}",
                            "USD per million output tokens")]
        search = result.layout_search
        if search is not None:
            rows += [Figure("layout_chosen", search.chosen.label, search.why),
                     Figure("tokens_per_s_per_user", search.chosen.tokens_per_s_per_user,
                            "output tokens/s per user"),
                     Figure("time_to_first_token", search.chosen.time_to_first_token_s, "s"),
                     *(Figure(f"next_layout_{index}", option.label,
                              option.describe(self.accelerator))
                       for index, option in enumerate(search.next_two, start=1))]
        if self.software_gain is not None:
            rows.append(Figure("software_gain_per_year", self.software_gain.per_year,
                               f"share a year; {self.software_gain.basis}"))
        if self.token_costs is not None:
            rows += [Figure(f"cost_per_million_{kind}_tokens",
                            getattr(self.token_costs, f"usd_per_million_{kind}"),
                            f"USD per million {kind.replace('_', ' ')} tokens")
                     for kind in ("input", "cached_input", "output")]
        rows += [Figure(f"nearest_measurement_{index}", row["measured_tokens_per_s"],
                        f"output tokens/s measured, estimate x{row['ratio']:.2f}: "
                        f"{row['description']}, {row['input_tokens']:,} in / "
                        f"{row['output_tokens']:,} out; published {row['measured_on']}, "
                        f"{row['age_years']} years ago ({row['source']}, {row['where']})")
                 for index, row in enumerate(self.nearest, start=1)]
        return rows

    def _fine_tuning_figures(self) -> list[Figure]:
        if self.fine_tuning is None:
            return []
        if not self.fine_tuning["options"]:
            return [Figure("fine_tuning_apis", "none priced", self.fine_tuning["note"])]
        return [Figure(f"fine_tuning_{index}", row["cost_of_the_run"],
                       f"{row['currency']} for the run's {row['training_tokens']:,.0f} training "
                       f"tokens at {row['price_per_million_training_tokens']:,.4g} per million: "
                       f"{row['api']} ({row['source']}, {row['as_of']})")
                for index, row in enumerate(self.fine_tuning["options"], start=1)]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: what was sized on what, the spec, and the engine result's figures and
        assumptions."""
        extra = {} if self.calibration is None else {
            "nearest_measurements": list(self.nearest), "calibration": dict(self.calibration),
            "token_costs": None if self.token_costs is None else self.token_costs.to_dict(),
            "software_gain": None if self.software_gain is None else self.software_gain.to_dict()}
        if self.fine_tuning is not None:
            extra["fine_tuning_apis"] = dict(self.fine_tuning)
        return {"mode": self.mode.value, "accelerator": self.accelerator, "model": self.model,
                "spec": dict(self.spec), **self.result.to_dict(), **extra}


@dataclass(frozen=True)
class OfferingPrice:
    """A catalog offering's price in force, per accelerator-hour, and where it comes from."""

    offering_id: int
    price_point_id: int
    usd_per_instance_hour: float
    accelerators_per_instance: int
    usd_per_accelerator_hour: float
    as_of: date
    source: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, the date as ISO text."""
        return {"offering": self.offering_id, "price_point": self.price_point_id,
                "usd_per_instance_hour": self.usd_per_instance_hour,
                "accelerators_per_instance": self.accelerators_per_instance,
                "usd_per_accelerator_hour": self.usd_per_accelerator_hour,
                "as_of": self.as_of.isoformat(), "source": self.source}


def spec_path(engine_path: str) -> str:
    """The spec field behind an engine error path (``TrainingJob.mfu`` -> ``mfu``)."""
    section, _, name = engine_path.partition(".")
    if not name:
        return "model" if engine_path == "model_preset" else engine_path
    if section == "ModelShape":
        return f"model.{name}"
    if section == "AcceleratorSpec":
        return "accelerator"
    return name  # TrainingJob, InferenceTarget and FitPolicy fields are spec keys as they are


@contextmanager
def _named_for_spec() -> Iterator[None]:
    """Re-raise engine sizing errors naming the spec field instead of the engine's path."""
    try:
        yield
    except SizingInputError as exc:
        raise SizingInputError(spec_path(exc.path), exc.message) from exc


def _given(values: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    """The keys that ``values`` sets; the rest keep the engine's defaults."""
    return {key: values[key] for key in keys if values.get(key) is not None}


def _refuse_unknown(values: Mapping[str, Any], known: tuple[str, ...], prefix: str = "") -> None:
    unknown = [key for key in values if key not in known]
    if unknown:
        raise SizingInputError(f"{prefix}{unknown[0]}",
                               f"is not a sizing field; known: {', '.join(known)}")


def _require(values: Mapping[str, Any], keys: tuple[str, ...], prefix: str = "") -> None:
    for key in keys:
        if values.get(key) is None:
            raise SizingInputError(f"{prefix}{key}", "is required")


def _mode(spec: Mapping[str, Any]) -> SizingMode:
    _require(spec, ("mode",))
    try:
        return SizingMode(spec["mode"])
    except ValueError as exc:
        choices = ", ".join(SizingMode)
        raise SizingInputError("mode", f"must be one of {choices}; got {spec['mode']!r}") from exc


def _model(value: Any) -> ModelShape:
    if isinstance(value, str):
        return model_preset(value)
    if not isinstance(value, Mapping):
        raise SizingInputError("model", "give a preset key or a custom model's shape")
    _refuse_unknown(value, CUSTOM_MODEL_KEYS, "model.")
    _require(value, CUSTOM_MODEL_REQUIRED_KEYS, "model.")
    shape = _given(value, CUSTOM_MODEL_KEYS)
    name = str(shape.pop("name", CUSTOM_MODEL_NAME))
    numbers = _floats(shape, "model.")
    # custom_model derives head_dim as hidden_size / attention_heads; with NumPy floats a zero
    # head count gives inf instead of ZeroDivisionError, and ModelShape then refuses
    # attention_heads by name.
    with np.errstate(divide="ignore", invalid="ignore"):
        return custom_model(name, numbers.pop("parameters"), **numbers)


def _floats(values: Mapping[str, Any], prefix: str) -> dict[str, np.float64]:
    """The values as NumPy floats, refusing anything but a number, naming the field."""
    for key, value in values.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise SizingInputError(f"{prefix}{key}", f"must be a number; got {value!r}")
    return {key: np.float64(value) for key, value in values.items()}


def sizing_inputs(spec: Mapping[str, Any]) -> SizingInputs:
    """Engine inputs for a sizing spec; every range is checked here, by the engine.

    Raises SizingInputError naming the spec field (``mfu``, ``model.parameters``) when a
    value is missing, out of range, or belongs to the other mode.
    """
    with _named_for_spec():
        _refuse_unknown(spec, SPEC_KEYS)
        mode = _mode(spec)
        other = SizingMode.INFERENCE if mode is SizingMode.TRAINING else SizingMode.TRAINING
        for key in MODE_KEYS[other]:
            if key not in MODE_KEYS[mode] and spec.get(key) is not None:
                raise SizingInputError(key, f"applies to {other.value} sizing only")
        _require(spec, ("model",))
        model = _model(spec["model"])
        policy = FitPolicy(**_given(spec, FIT_POLICY_KEYS))
        if mode is SizingMode.INFERENCE:
            software_gain(spec)  # refused here, naming the field, like every other input
            return SizingInputs(mode, model, InferenceTarget(**_given(spec,
                                                                      INFERENCE_TARGET_KEYS)),
                                policy)
        _require(spec, ("tokens",))
        return SizingInputs(mode, model, TrainingJob(**_given(spec, TRAINING_JOB_KEYS)), policy,
                            accelerators=spec.get("accelerators"),
                            deadline_days=spec.get("deadline_days"))


def run_sizing(
    inputs: SizingInputs,
    accelerator: Accelerator,
    *,
    spec: Mapping[str, Any],
    price_usd_per_accelerator_hour: float | None = None,
) -> Sizing:
    """Size ``inputs`` on a catalog accelerator (a price gives inference its cost per token).

    Raises SizingInputError naming the spec field, e.g. ``precision`` when the accelerator
    has no dense figure at the precision asked for.
    """
    engine_accelerator = accelerator_spec(accelerator)
    with _named_for_spec():
        if isinstance(inputs.workload, InferenceTarget):
            return _run_inference(inputs, accelerator, engine_accelerator, spec,
                                  price_usd_per_accelerator_hour)
        if price_usd_per_accelerator_hour is not None:
            raise SizingInputError("price_usd_per_accelerator_hour",
                                   "applies to inference sizing only")
        result = size_training(inputs.model, engine_accelerator, inputs.workload,
                               accelerators=inputs.accelerators,
                               deadline_days=inputs.deadline_days, policy=inputs.policy)
    model_key = spec["model"] if isinstance(spec["model"], str) else None
    return Sizing(inputs.mode, accelerator.slug, inputs.model.name, spec, result,
                  fine_tuning=fine_tuning_apis(model_key, inputs.model.name,
                                               float(inputs.workload.tokens)))


NO_FINE_TUNING_PRICE = (
    "No public fine-tuning price per training token was found for {model}: the project's public "
    "price sources list per-token inference prices only. Compare the run with renting the "
    "cluster; a fine-tuning API is compared here once the catalog holds its price "
    "(token API price: fine-tuning, USD per million training tokens).")


def fine_tuning_apis(model_key: str | None, model_name: str,
                     training_tokens: float) -> dict[str, Any]:
    """The catalog's fine-tuning APIs for a training run's model (a preset a host serves), each
    with the run's cost at its price per training token, the newest price of each; with none, a
    note that says no public price was found."""
    prices = [] if model_key is None else list(TokenApiPrice.objects.filter(
        serves_model=model_key, is_example=False, usd_per_million_training__isnull=False,
    ).select_related("source").order_by("provider", "model_name", "-as_of"))
    newest = {(p.provider, p.model_name): p for p in reversed(prices)}
    options = [{"api": f"{p.provider} {p.model_name}", "currency": p.currency,
                "as_of": p.as_of.isoformat(), "source": str(p.source),
                "price_per_million_training_tokens": float(p.usd_per_million_training),
                "training_tokens": training_tokens,
                "cost_of_the_run": training_tokens / 1e6 * float(p.usd_per_million_training)}
               for p in newest.values()]
    return {"options": options,
            "note": "" if options else NO_FINE_TUNING_PRICE.format(model=model_name)}


def _run_inference(inputs: SizingInputs, accelerator: Accelerator,
                   engine_accelerator: AcceleratorSpec,
                   spec: Mapping[str, Any], price: float | None) -> Sizing:
    """The calibrated serving estimate of one replica, the fleet, and the nearest measurements."""
    target = inputs.workload
    fitted = calibrated()
    result = size_inference(inputs.model, engine_accelerator, target, fitted,
                            policy=inputs.policy, price_usd_per_accelerator_hour=price)
    near: list[dict[str, Any]] = []
    costs = None
    if bool(result.fits):
        fit = result.fit
        replica = ServingSetup(
            model=inputs.model, accelerator=engine_accelerator,
            accelerators=float(fit.accelerators), tensor_parallel=float(fit.tensor_parallel),
            pipeline_parallel=float(fit.pipeline_parallel), precision=target.precision,
            input_tokens=target.input_tokens, output_tokens=target.output_tokens,
            concurrency=float(result.estimate.concurrency_per_replica),
            compute_precision=target.compute_precision,
            kv_cache_precision=target.kv_cache_precision,
            cached_input_share=target.cached_input_share)
        near = nearest_measurements(replica)
        if price is not None and not result_is_measured(result):
            costs = token_kind_costs(replica, result.estimate, fitted.efficiency, price)
    return Sizing(inputs.mode, accelerator.slug, inputs.model.name, spec, result, tuple(near),
                  calibration_summary(), costs, software_gain(spec))


def software_gain(spec: Mapping[str, Any]) -> SoftwareGain:
    """The spec's yearly software gain: its number, the catalog's fit ("fitted"), or none.

    Raises SizingInputError naming ``software_gain_per_year`` for anything else, or for
    "fitted" when no configuration of the catalog was measured at two dates.
    """
    value = spec.get("software_gain_per_year")
    if value is None:
        return SoftwareGain(0.0, NO_SOFTWARE_GAIN)
    if value == FITTED:
        fitted = catalog_software_gain()
        if fitted is None:
            raise SizingInputError("software_gain_per_year", "the catalog has no configuration "
                                   "measured at two dates to fit it on; give a number")
        return SoftwareGain(fitted.per_year, f"fitted: {fitted.describe()}")
    if isinstance(value, bool) or not isinstance(value, int | float) or not -0.5 <= value <= 1.0:
        raise SizingInputError("software_gain_per_year", "give a share a year between -0.5 and "
                               f"1 (0.1 = 10 %), or \"{FITTED}\"; got {value!r}")
    return SoftwareGain(float(value), "stated in the sizing")


def result_is_measured(result: InferenceSizing) -> bool:
    """Whether the throughput is a measurement the caller stated (no prefill/decode split)."""
    return not str(result.basis).startswith("estimate")


def api_comparison(costs: TokenKindCosts, api: TokenApiPrice) -> dict[str, Any]:
    """A per-token API's three prices beside the fleet's, and what one request of the sizing's
    mix (input, cached share, output) costs on each [USD]."""
    if api.currency != Currency.USD:
        raise SizingInputError("token_api_price", f"{api} is priced in {api.currency}; the "
                                                  "sizing compares USD prices")
    inputs, cached = costs.input_tokens_per_request, costs.cached_input_share
    prices = {"input": float(api.usd_per_million_input),
              "cached_input": float(api.usd_per_million_cached_input),
              "output": float(api.usd_per_million_output)}
    api_request = (inputs * (1.0 - cached) * prices["input"] + inputs * cached
                   * prices["cached_input"] + costs.output_tokens_per_request
                   * prices["output"]) / 1e6
    return {"api": f"{api.provider} {api.model_name}", "as_of": api.as_of.isoformat(),
            "source": str(api.source), "api_usd_per_million": prices,
            "self_hosted_usd_per_million": {"input": costs.usd_per_million_input,
                                            "cached_input": costs.usd_per_million_cached_input,
                                            "output": costs.usd_per_million_output},
            "api_usd_per_request": api_request,
            "self_hosted_usd_per_request": costs.usd_per_request,
            "cheaper": "self-hosted" if costs.usd_per_request < api_request else "API"}


def size_spec(
    spec: Mapping[str, Any],
    accelerator: Accelerator,
    *,
    price_usd_per_accelerator_hour: float | None = None,
) -> Sizing:
    """Check a sizing spec and run it on a catalog accelerator (see `sizing_inputs`)."""
    return run_sizing(sizing_inputs(spec), accelerator, spec=spec,
                      price_usd_per_accelerator_hour=price_usd_per_accelerator_hour)


def offering_price(offering: CloudOffering, accelerator: Accelerator, *, on: date,
                   team_ids: Collection[int] = ()) -> OfferingPrice:
    """An offering's USD price in force on a date, per accelerator-hour: public, or a quote of
    one of the teams ``team_ids`` (see `catalog.selectors.price_at`).

    Raises SizingInputError naming ``offering`` when it rents another accelerator, has no
    price on or before ``on``, or is priced in another currency.
    """
    if offering.accelerator_id != accelerator.pk:
        raise SizingInputError("offering", f"{offering} rents {offering.accelerator}, "
                                           f"not {accelerator}")
    point = price_at(offering, on=on, team_ids=team_ids)
    if point is None:
        raise SizingInputError("offering", f"no price for {offering} on or before {on}")
    if point.currency != Currency.USD:
        raise SizingInputError("offering", f"the price in force ({point}) is in "
                                           f"{point.currency}; give price_usd_per_accelerator_hour")
    per_instance = float(point.amount)
    return OfferingPrice(
        offering_id=offering.pk, price_point_id=point.pk, usd_per_instance_hour=per_instance,
        accelerators_per_instance=offering.accelerators_per_instance,
        usd_per_accelerator_hour=per_instance / offering.accelerators_per_instance,
        as_of=point.as_of, source=str(point.source))
