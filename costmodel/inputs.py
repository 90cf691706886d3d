"""Engine inputs: frozen dataclasses whose numeric fields are floats or NumPy arrays.

Every numeric field may be a Python float or an array; all of them broadcast
together into one batch of scenarios (sweep axes in front). Units are in the
field names. Each numeric field carries its valid range in its metadata so that
validation, sensitivity steps and the Django layer all read the same bounds.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterator
from collections.abc import Mapping
from dataclasses import MISSING
from dataclasses import dataclass
from dataclasses import field
from dataclasses import fields
from enum import StrEnum
from typing import Any

import numpy as np
from numpy.typing import NDArray

Numeric = float | NDArray[np.float64]

# Longest horizon a scenario may have (20 years) and most rent options one scenario compares;
# both bound the work of one evaluation (time grows with each of them).
MAX_HORIZON_MONTHS = 240
MAX_RENT_OPTIONS = 50
# A curve by month (a residual value curve): at most a point a month and one for month 0.
MAX_CURVE_POINTS = MAX_HORIZON_MONTHS + 1
# Coal-fired power is about 1 kg CO2e/kWh; 2 leaves room and catches g/kWh typed as kg/kWh.
MAX_GRID_KG_CO2E_PER_KWH = 2.0


def numeric(
    default: float = MISSING,  # type: ignore[assignment]
    *,
    low: float = 0.0,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
    whole: bool = False,
    nan_allowed: bool = False,
    inf_allowed: bool = False,
    rate: bool = False,
    step: float = 0.0,
    stated: bool = False,
    capex_line: str = "",
    label: str = "",
    unit: str = "",
    kind: str = "quantity",
    digits: int = 2,
    help: str = "",
) -> Any:
    """Declare a numeric input field: its valid range [low, high] and its words.

    This is the one declaration of an input. Validation, sensitivity steps, the words people
    read (``costmodel.vocabulary``: ``label``, ``unit``, ``kind`` as a ``vocabulary.Kind`` value
    and ``digits``) and the Django layer's validators, check constraints, form labels and help
    texts (tco/inputs.py) all read it.

    ``whole`` marks counts of months or units that the engine rounds to the
    nearest integer; ``step`` a figure that must be a whole multiple of it (a tax life in whole
    years: 12); ``nan_allowed`` marks optional figures where NaN means
    "not given"; ``inf_allowed`` marks limits where +inf means "no limit"; ``rate`` marks
    shares and yearly rates people type, where a value above 1 is most likely a percent (the
    Django layer refuses it; the engine computes with any value in range). ``help`` says what
    the figure is and where a default comes from, for forms and the API's schema.

    ``stated`` marks a figure people state for their scenario: the Django layer gives the
    scenario a field of the same name feeding it, with its form and API field, from this
    declaration alone. ``capex_line`` names the
    capex line a share of the hardware capex adds (``capex_<line>``, worded by ``label``).
    """
    metadata = {
        "numeric": True,
        "low": low,
        "high": high,
        "low_open": low_open,
        "high_open": high_open,
        "whole": whole,
        "nan_allowed": nan_allowed,
        "inf_allowed": inf_allowed,
        "rate": rate,
        "step": step,
        "stated": stated,
        "capex_line": capex_line,
        "label": label,
        "unit": unit,
        "kind": kind,
        "digits": digits,
        "help": help,
    }
    return field(default=default, metadata=metadata)


def share(
    default: float = MISSING,  # type: ignore[assignment]
    *,
    high_open: bool = False,
    **words: Any,
) -> Any:
    """Declare a numeric field that is a share between 0 and 1, shown as a percentage (``words``:
    see ``numeric``)."""
    return numeric(default, low=0.0, high=1.0, high_open=high_open, kind="share", **words)


class PricingModel(StrEnum):
    """How a cloud offer is billed."""

    ON_DEMAND = "on_demand"
    RESERVED = "reserved"
    SPOT = "spot"


#: Hours in an average month (8,760 / 12): what a monthly figure is costed over unless a scenario
#: says otherwise.
HOURS_PER_MONTH = 8760 / 12


class BillingBasis(StrEnum):
    """Which hours a rent option pays for.

    ``held``: every hour the capacity is held (a cluster you keep, idle or busy); ``used``: the
    hours the workload runs (it scales to zero between jobs). Reserved and committed capacity
    is always paid for every hour of its term.
    """

    HELD = "held"
    USED = "used"


# An option that names no basis is billed as the pricing model's market sells it: on-demand
# capacity kept for a workload is paid while it is held; spot capacity is taken and released
# with the work.
DEFAULT_BILLING_BASIS = {
    PricingModel.ON_DEMAND: BillingBasis.HELD,
    PricingModel.RESERVED: BillingBasis.HELD,
    PricingModel.SPOT: BillingBasis.USED,
}


@dataclass(frozen=True)
class Workload:
    """What has to be computed: how many accelerators, how busy, and how fast."""

    accelerators: Numeric = numeric(low_open=True, label="Accelerators needed", kind="count")
    utilisation: Numeric = share(label="Utilisation")
    hours_per_month: Numeric = numeric(
        HOURS_PER_MONTH, low_open=True, label="Hours per month", unit="h", digits=0)
    tokens_per_s_per_accelerator: Numeric = numeric(
        math.nan, low_open=True, nan_allowed=True,
        label="Throughput per accelerator", unit="tokens/s", digits=0)


@dataclass(frozen=True)
class Goodput:
    """What interrupts useful work, for owned and rented fleets alike (see ``goodput``).

    A failure of any accelerator of a job stops the whole job, which then restarts
    from its last checkpoint. ``accelerators_per_job`` NaN means the whole fleet
    runs one job; ``checkpoint_interval_h`` NaN means the Young/Daly optimum
    sqrt(2 x checkpoint cost x MTBF).
    """

    failures_per_accelerator_hour: Numeric = numeric(
        0.0, high=1.0, label="Failures per accelerator-hour", digits=6)
    accelerators_per_job: Numeric = numeric(
        math.nan, low=1.0, nan_allowed=True, label="Accelerators per job", kind="count")
    checkpoint_interval_h: Numeric = numeric(
        math.nan, low_open=True, nan_allowed=True, label="Checkpoint interval", unit="h")
    checkpoint_cost_h: Numeric = numeric(0.0, label="Checkpoint time", unit="h", digits=3)
    restart_h: Numeric = numeric(0.0, label="Restart time", unit="h")


# Sources: the VAT Directive 2006/112/EC, art. 168 (a taxable business deducts the VAT it pays
# on what it buys for taxed supplies; art. 135 exempts banking and insurance, whose VAT stays a
# cost); the WTO Information Technology Agreement (1996), under which the EU levies no duty on
# computers and their parts (HS 8471, 8473; TARIC); German VAT 19 % (UStG section 12).
IMPORT_DUTY_VAT_HELP = (
    "Import duty and the VAT you cannot recover, as a share of the hardware's price (systems, "
    "network, storage, spares), paid with it up front and depreciated with it. 0 = none: a "
    "VAT-registered EU business deducts the VAT (VAT Directive, art. 168) and servers enter the "
    "EU duty-free (WTO Information Technology Agreement); 0.19 = German VAT that a bank, insurer "
    "or public body cannot deduct.")


@dataclass(frozen=True)
class BuyOption:
    """An on-premises system SKU with its capex, operations and financing terms.

    Resale value (see ``residual``): ``residual_curve`` (months of age, share of
    the system price) when given, else a yearly ``residual_decline_per_year``
    when given, else the single ``residual_value_share`` at the horizon; from
    ``next_generation_launch_month`` on, the value is lower by
    ``next_generation_value_drop``.

    The power cap applies to the whole system's maximum draw; its throughput
    loss is met by buying more accelerators (see ``buy.accelerators_to_buy``).
    Financing uses a nominal yearly loan rate (monthly rate = rate / 12).
    """

    accelerators_per_system: Numeric = numeric(
        low=1.0, whole=True, label="Accelerators per system", kind="count")
    system_price_usd: Numeric = numeric(label="System price", unit="per system", kind="usd")
    system_power_max_kw: Numeric = numeric(low_open=True, label="System power, maximum", unit="kW")
    system_power_idle_kw: Numeric = numeric(label="System power, idle", unit="kW")
    system_rack_units: Numeric = numeric(low_open=True, label="System height", unit="U", digits=0)
    depreciation_months: Numeric = numeric(
        low=1.0, whole=True, stated=True, label="Depreciation period", unit="months", kind="month")
    network_usd_per_system: Numeric = numeric(
        0.0, stated=True, label="Network per system", unit="per system", kind="usd")
    network_share_of_compute: Numeric = numeric(
        0.0, rate=True, stated=True, label="Network as a share of compute", kind="share")
    storage_usd: Numeric = numeric(0.0, stated=True, label="Storage", kind="usd")
    racks_install_usd_per_rack: Numeric = numeric(
        0.0, stated=True, label="Rack installation", unit="per rack", kind="usd")
    spares_share: Numeric = numeric(
        0.0, rate=True, stated=True, label="Spares as a share of systems", kind="share")
    support_share_per_year: Numeric = numeric(
        0.0, rate=True, stated=True, label="Support contract", unit="of hardware a year", kind="share")
    staff_fte_per_system: Numeric = numeric(0.0, stated=True, label="Staff per system", unit="FTE", digits=3)
    staff_usd_per_fte_year: Numeric = numeric(
        0.0, stated=True, label="Staff cost", unit="per FTE-year", kind="usd")
    licence_usd_per_accelerator_year: Numeric = numeric(
        0.0, stated=True, label="Software licences", unit="per accelerator-year", kind="usd")
    residual_value_share: Numeric = share(0.0, stated=True, label="Residual value", unit="of system price")
    residual_decline_per_year: Numeric = numeric(
        math.nan, high=1.0, high_open=True, nan_allowed=True,
        label="Resale value decline", unit="a year", kind="share")
    residual_curve: tuple[tuple[float, float], ...] = ()
    next_generation_launch_month: Numeric = numeric(
        math.nan, whole=True, nan_allowed=True, label="Next generation launch", unit="month", kind="month")
    next_generation_value_drop: Numeric = share(
        0.0, label="Resale value lost at the next generation")
    embodied_kg_co2e_per_system: Numeric = numeric(
        0.0, label="Embodied emissions", unit="kg CO2e per system", digits=0)
    power_cap_share: Numeric = numeric(
        1.0, low_open=True, high=1.0, stated=True, label="Power cap", unit="of maximum power", kind="share")
    power_cap_throughput_loss: Numeric = share(
        0.0, high_open=True, stated=True, label="Throughput lost to the power cap")
    financed_share: Numeric = share(0.0, stated=True, label="Financed share")
    loan_rate_per_year: Numeric = numeric(
        0.0, rate=True, stated=True, label="Loan rate", unit="a year", kind="share")
    loan_term_months: Numeric = numeric(
        0.0, whole=True, stated=True, label="Loan term", unit="months", kind="month")
    # Non-recoverable import duty and VAT (see ``IMPORT_DUTY_VAT_HELP``).
    import_duty_vat_share: Numeric = numeric(
        0.0, rate=True, stated=True, capex_line="import_duty_vat", help=IMPORT_DUTY_VAT_HELP,
        label="Import duty and VAT", unit="of hardware capex", kind="share")


@dataclass(frozen=True)
class Facility:
    """Where bought systems run: power price, PUE, space pricing and rack limits.

    Colocation and owned-space prices are both charged per kW of contracted IT
    power (the systems' maximum draw after any power cap); set the unused one to 0.
    """

    electricity_usd_per_kwh: Numeric = numeric(label="Electricity price", unit="per kWh", kind="usd_price")
    pue: Numeric = numeric(low=1.0, label="PUE")
    rack_power_limit_kw: Numeric = numeric(low_open=True, label="Rack power limit", unit="kW", digits=1)
    rack_units_per_rack: Numeric = numeric(low_open=True, label="Rack height", unit="U", digits=0)
    existing_cooling_max_kw_per_rack: Numeric = numeric(
        inf_allowed=True, label="Existing cooling, maximum", unit="kW per rack", digits=1)
    electricity_escalation_per_year: Numeric = numeric(
        0.0, low=-1.0, low_open=True, rate=True,
        label="Electricity price change", unit="a year", kind="share")
    colocation_usd_per_kw_month: Numeric = numeric(
        0.0, label="Colocation price", unit="per kW-month", kind="usd_price")
    owned_buildout_usd_per_kw: Numeric = numeric(
        0.0, label="Owned space build-out", unit="per kW", kind="usd")
    owned_opex_usd_per_kw_month: Numeric = numeric(
        0.0, label="Owned space running cost", unit="per kW-month", kind="usd_price")
    grid_kg_co2e_per_kwh: Numeric = numeric(
        0.0, high=MAX_GRID_KG_CO2E_PER_KWH, label="Grid emissions", unit="kg CO2e per kWh", digits=3)


@dataclass(frozen=True)
class CoolingTier:
    """One cooling technology from the catalog and the rack density it can handle.

    ``opex_usd_per_kw_month`` is the plant's non-energy running cost; its energy
    is in the facility's PUE.
    """

    name: str
    max_kw_per_rack: Numeric = numeric(
        low_open=True, inf_allowed=True, label="Cooling capacity", unit="kW per rack", digits=1)
    capex_usd_per_kw: Numeric = numeric(label="Cooling plant price", unit="per kW", kind="usd")
    opex_usd_per_kw_month: Numeric = numeric(
        label="Cooling plant running cost", unit="per kW-month", kind="usd_price")


@dataclass(frozen=True)
class RentOption:
    """A cloud offer: instance price under one pricing model plus data charges.

    ``commitment_months`` applies to reserved offers only, which are paid for
    every hour of each term; ``upfront_usd_per_instance`` is paid at the start
    of each term. ``spot_interruption_overhead`` applies to spot offers only.
    ``price_change_per_year`` moves instance prices (not data charges).
    ``equivalence_factor`` is how many of the offering's accelerators do the work of one of
    the workload's (1 for the same accelerator): the option rents that many per accelerator.
    ``billing_basis`` (a ``BillingBasis``; empty = the pricing model's default, see
    ``DEFAULT_BILLING_BASIS``) says whether every held hour or only the used ones are paid.
    """

    name: str
    pricing_model: PricingModel | str
    price_usd_per_instance_hour: Numeric = numeric(
        label="Instance price", unit="per instance-hour", kind="usd_price")
    accelerators_per_instance: Numeric = numeric(
        low=1.0, whole=True, label="Accelerators per instance", kind="count")
    equivalence_factor: Numeric = numeric(
        1.0, low=0.0, low_open=True, label="Rented accelerators per own accelerator", digits=3)
    commitment_months: Numeric = numeric(0.0, whole=True, label="Commitment", unit="months", kind="month")
    upfront_usd_per_instance: Numeric = numeric(
        0.0, label="Up-front payment", unit="per instance", kind="usd")
    spot_interruption_overhead: Numeric = numeric(
        0.0, rate=True, label="Spot interruption overhead", kind="share")
    egress_tb_per_month: Numeric = numeric(0.0, label="Data egress", unit="TB/month", digits=1)
    egress_usd_per_gb: Numeric = numeric(0.0, label="Egress price", unit="per GB", kind="usd_price")
    storage_tb: Numeric = numeric(0.0, label="Cloud storage", unit="TB", digits=1)
    storage_usd_per_gb_month: Numeric = numeric(
        0.0, label="Cloud storage price", unit="per GB-month", kind="usd_price")
    price_change_per_year: Numeric = numeric(
        0.0, low=-1.0, low_open=True, rate=True, label="Instance price change", unit="a year", kind="share")
    spot_interruptions_per_hour: Numeric = numeric(0.0, label="Spot interruptions per hour", digits=4)
    grid_kg_co2e_per_kwh: Numeric = numeric(
        math.nan, high=MAX_GRID_KG_CO2E_PER_KWH, nan_allowed=True,
        label="Cloud grid emissions", unit="kg CO2e per kWh", digits=3)
    billing_basis: BillingBasis | str = ""


@dataclass(frozen=True)
class Carbon:
    """Emissions: defaults for rented capacity and the price that makes them a cost line.

    Rented accelerators draw what a bought one does (its system's draw per
    accelerator) times ``cloud_pue``, in a grid of the option's own intensity or
    else ``default_grid_kg_co2e_per_kwh``.
    """

    default_grid_kg_co2e_per_kwh: Numeric = numeric(
        0.0, high=MAX_GRID_KG_CO2E_PER_KWH, label="Grid emissions, default", unit="kg CO2e per kWh", digits=3)
    cloud_pue: Numeric = numeric(1.0, low=1.0, label="Cloud PUE")
    price_usd_per_tonne: Numeric = numeric(0.0, label="Carbon price", unit="per tonne CO2e", kind="usd")


@dataclass(frozen=True)
class TokenMix:
    """Shares of the workload's tokens by how an API bills them; they sum to 1."""

    input_share: Numeric = share(0.0, label="Input tokens")
    cached_input_share: Numeric = share(0.0, label="Cached input tokens")
    output_share: Numeric = share(1.0, label="Output tokens")


@dataclass(frozen=True)
class ApiOption:
    """Paying a model API per token for the workload's tokens (see ``token_api``).

    ``minimum_usd_per_month`` is a committed spend paid even when usage is
    lower; ``rate_limit_tokens_per_month`` (inf = none) caps what it can serve.
    """

    name: str
    usd_per_million_input: Numeric = numeric(
        label="API price, input tokens", unit="per million tokens", kind="usd_price")
    usd_per_million_cached_input: Numeric = numeric(
        label="API price, cached input tokens", unit="per million tokens", kind="usd_price")
    usd_per_million_output: Numeric = numeric(
        label="API price, output tokens", unit="per million tokens", kind="usd_price")
    price_change_per_year: Numeric = numeric(
        0.0, low=-1.0, low_open=True, rate=True, label="API price change", unit="a year", kind="share")
    minimum_usd_per_month: Numeric = numeric(0.0, label="API minimum spend", unit="a month", kind="usd")
    rate_limit_tokens_per_month: Numeric = numeric(
        math.inf, low_open=True, inf_allowed=True,
        label="API rate limit", unit="tokens a month", kind="count")


@dataclass(frozen=True)
class Finance:
    """Horizon and cost of capital used to total and discount both options."""

    horizon_months: Numeric = numeric(
        low=1.0, high=MAX_HORIZON_MONTHS, whole=True, label="Horizon", unit="months", kind="month")
    discount_rate_per_year: Numeric = numeric(
        low=-1.0, low_open=True, rate=True, label="Discount rate", unit="a year", kind="share")


@dataclass(frozen=True)
class Exchange:
    """A move of the exchange rates the money inputs were converted at, for a what-if.

    ``rate_change`` multiplies every rate from another currency into the reporting one (1 = the
    stated rates; 1.1 = every foreign currency 10 % dearer), so each input in ``converted`` (the
    paths of the money figures given in another currency) is scaled by it; a figure given in the
    reporting currency does not move. Sweeps and Monte Carlo vary it like any input.
    """

    rate_change: Numeric = numeric(
        1.0, low_open=True, label="Exchange-rate move (x the stated rates)", digits=3)
    converted: tuple[str, ...] = ()


@dataclass(frozen=True)
class Scenario:
    """One buy option against several rent options for one workload (or a batch of them)."""

    workload: Workload
    buy: BuyOption
    facility: Facility
    cooling: tuple[CoolingTier, ...]
    rent: tuple[RentOption, ...]
    finance: Finance
    goodput: Goodput = Goodput()
    carbon: Carbon = Carbon()
    tokens: TokenMix = TokenMix()
    api: tuple[ApiOption, ...] = ()
    exchange: Exchange = Exchange()


def billing_basis(option: RentOption) -> BillingBasis:
    """The hours an option is billed for: its own basis, else its pricing model's default.

    Examples
    --------
    >>> billing_basis(RentOption("x", "on_demand", 1.0, 8)), billing_basis(RentOption("y", "spot", 1.0, 8))
    (<BillingBasis.HELD: 'held'>, <BillingBasis.USED: 'used'>)
    """
    return _billing_basis(option.billing_basis, option.pricing_model)


@functools.cache
def _billing_basis(basis: str, pricing_model: str) -> BillingBasis:
    """Cached: an evaluation asks each option's basis several times, and enums are slow to build."""
    if basis:
        return BillingBasis(basis)
    return DEFAULT_BILLING_BASIS[PricingModel(pricing_model)]


class InputError(ValueError):
    """An input outside its valid range; ``path`` is its dotted path."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def numeric_fields(obj: object) -> Iterator[tuple[str, Any, Mapping[str, Any]]]:
    """Yield (field name, value, metadata) for each numeric field of an input dataclass."""
    cls: type = type(obj)  # mypy takes type(x) for unhashable (python/mypy#11470)
    for name, metadata in numeric_field_metadata(cls).items():
        yield name, getattr(obj, name), metadata


@functools.cache
def stated_fields(cls: type) -> tuple[str, ...]:
    """The numeric fields of an input dataclass declared ``stated``, in declaration order."""
    return tuple(name for name, meta in numeric_field_metadata(cls).items() if meta["stated"])


@functools.cache
def numeric_field_metadata(cls: type) -> dict[str, Mapping[str, Any]]:
    """Field name -> metadata of each numeric field of an input dataclass, in declaration order.

    Cached per class: a sensitivity run looks fields up thousands of times, and
    ``dataclasses.fields`` rebuilds its tuple on every call. Read-only.
    """
    return {f.name: f.metadata for f in fields(cls) if f.metadata.get("numeric")}


def input_sections(inputs: Scenario) -> Iterator[tuple[str, object]]:
    """Yield (dotted prefix, dataclass) for every section of a scenario."""
    yield "workload", inputs.workload
    yield "buy", inputs.buy
    yield "facility", inputs.facility
    yield "finance", inputs.finance
    yield "goodput", inputs.goodput
    yield "carbon", inputs.carbon
    yield "tokens", inputs.tokens
    yield "exchange", inputs.exchange
    for index, tier in enumerate(inputs.cooling):
        yield f"cooling.{index}", tier
    for index, option in enumerate(inputs.rent):
        yield f"rent.{index}", option
    for index, api_option in enumerate(inputs.api):
        yield f"api.{index}", api_option


def batch_shape(inputs: Scenario) -> tuple[int, ...]:
    """Shape of the batch that all numeric inputs broadcast to (``()`` for one scenario)."""
    shapes: set[tuple[int, ...]] = set()
    for _, section in input_sections(inputs):
        cls: type = type(section)  # mypy takes type(x) for unhashable (python/mypy#11470)
        numeric_names = numeric_field_metadata(cls)
        shapes.update(np.shape(value) for name, value in vars(section).items()
                      if type(value) is not float and name in numeric_names)
    return np.broadcast_shapes(*shapes) if shapes else ()
