"""The one module that knows both worlds: a stored scenario and its catalog rows -> engine inputs.

A scenario field left empty falls back to the referenced catalog row; every value that enters
the engine is recorded as an Assumption (where it came from, its source and date), so a
report can trace each figure. Decimals become floats here and nowhere else.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from dataclasses import replace
from datetime import date
from decimal import Decimal
from typing import Any

from django.utils import timezone

import costmodel as engine
from catalog.choices import FacilityKind
from catalog.choices import PricingModel
from catalog.models import CloudOffering
from catalog.models import CoolingTechnology
from catalog.models import EgressRate
from catalog.models import PricePoint
from catalog.models import SystemSku
from catalog.refresh.freshness import checked_on
from catalog.regions import country_words
from catalog.regions import jurisdiction
from catalog.regions import place_of
from catalog.selectors import cheapest_first
from catalog.selectors import egress_rates_at
from catalog.selectors import other_sources_prices
from catalog.selectors import prices_at
from catalog.selectors import range_point
from catalog.selectors import regions_of
from catalog.selectors import throughput_ratio
from core.currency import Currency
from costmodel.currency import NoRate
from costmodel.currency import Rate
from costmodel.currency import RateBook
from costmodel.footprint import accelerators_to_buy
from costmodel.footprint import systems_needed
from costmodel.inputs import stated_fields
from costmodel.payment import Lease
from costmodel.sizing import SizingInputError
from costmodel.vocabulary import Kind
from costmodel.vocabulary import input_term
from costmodel.vocabulary import money
from costmodel.vocabulary import money_in
from costmodel.vocabulary import sentence_labels
from sites.models import Site
from sites.scenario_site import site_fit_problem
from sites.scenario_site import site_rack_limit_kw
from tco.choices import PriceRangePoint
from tco.errors import FieldError
from tco.inputs import field_for
from tco.models import ApiOption
from tco.models import RentOption
from tco.models import Scenario
from tco.models.scenario import CHEAPEST_REGION_WITH_PRICE
from tco.services.exchange_rates import rate_book
from tco.services.price_books import ContractUse
from tco.services.price_books import ListedPrice
from tco.services.price_books import books_in_force
from tco.services.price_books import contracted_rent
from tco.services.sizing import Sizing
from tco.services.sizing import size_spec
from tco.services.stated_defaults import DEFAULTS
from tco.services.system_fit import catalog_cap_loss
from tco.services.system_fit import cooled_rack_limit
from tco.services.system_fit import cooling_technologies_for

# Catalog pricing models -> the engine's billing rule and the committed term it implies.
PRICING = {
    PricingModel.ON_DEMAND: (engine.PricingModel.ON_DEMAND, 0),
    PricingModel.SPOT: (engine.PricingModel.SPOT, 0),
    PricingModel.RESERVED_1Y: (engine.PricingModel.RESERVED, 12),
    PricingModel.RESERVED_3Y: (engine.PricingModel.RESERVED, 36),
    # A capacity block is booked for a period and paid whether used or not.
    PricingModel.CAPACITY_BLOCK: (engine.PricingModel.RESERVED, 1),
}


class ScenarioInputError(FieldError):
    """A scenario that cannot be evaluated; ``field`` names the scenario field to fix."""


@dataclass(frozen=True)
class Assumption:
    """One input of the evaluation: its value, unit, where it came from and as of when."""

    path: str
    value: float
    unit: str
    origin: str  # "scenario", "catalog", "sizing" or "default" (tco/services/stated_defaults.py)
    source: str
    as_of: date | None = None
    source_keys: tuple[str, ...] = ()  # the catalog sources the figure came from, by key


@dataclass(frozen=True)
class PriceUsed:
    """A catalog price point that a rent option or the system price was evaluated with.

    ``path`` is the engine input it priced (``rent.0.price_usd_per_instance_hour``,
    ``buy.system_price_usd``); ``target`` names the offering with its region, so a rent option
    in its cheapest region says which region that was.
    """

    price_point_id: int
    target: str
    amount: Decimal
    currency: str
    as_of: date
    source: str
    path: str = ""
    checked_on: date | None = None  # the last day a price refresh found it current


@dataclass(frozen=True)
class EvaluationWarning:
    """Something the reader should know before trusting the figures: a code, a sentence and a
    severity: ``warning`` (the figures may mislead: check before signing) or ``info`` (an
    assumption that decides them, stated)."""

    code: str
    message: str
    severity: str = "warning"

    @property
    def label(self) -> str:
        """The severity as a reader sees it: 'Warning' or 'Note'."""
        return "Warning" if self.severity == "warning" else "Note"


@dataclass(frozen=True)
class EngineCase:
    """Engine inputs for one scenario, with the assumptions and prices behind them."""

    inputs: engine.Scenario
    assumptions: tuple[Assumption, ...]
    prices: tuple[PriceUsed, ...]
    sizing: Sizing | None = None
    warnings: tuple[EvaluationWarning, ...] = ()
    currency: str = Currency.USD
    rates: tuple[Rate, ...] = ()
    # The hardware leases compared with buying (finance, operating), money converted; None = not.
    leases: tuple[Lease | None, Lease | None] = (None, None)
    contracts: tuple[ContractUse, ...] = ()

    def input_error(self, exc: engine.InputError) -> ScenarioInputError:
        """The engine's refusal of an input, naming the scenario field behind it."""
        return ScenarioInputError(field_for(exc.path), exc.message)

    def labels(self) -> dict[str, str]:
        """Words for every input path, for sentences a finance reader can follow."""
        return sentence_labels([assumption.path for assumption in self.assumptions],
                               rent_names=[option.name for option in self.inputs.rent],
                               cooling_names=[tier.name for tier in self.inputs.cooling],
                               api_names=[option.name for option in self.inputs.api])


# Engine input path -> scenario field, for inputs a user sets on the scenario itself.
def _float(value: Decimal | float | int | None) -> float:
    return math.nan if value is None else float(value)


def _field_source_keys(row: Any, field: str) -> tuple[str, ...]:
    """The catalog sources a row gives for one of its fields, by key."""
    return tuple((getattr(row, "field_sources", None) or {}).get(field) or ())


def _source_label(row: Any, field: str) -> str:
    keys = _field_source_keys(row, field)
    what = f"catalog {row._meta.verbose_name} {row}"
    return f"{what}: {', '.join(keys)}" if keys else what


class _Recorder:
    """Collects assumptions while the inputs are built, preferring scenario values."""

    def __init__(self, as_of: date, range_end: str = PriceRangePoint.TYPICAL,
                 team_ids: Sequence[int] = (), *, currency: str = Currency.USD,
                 typed_currency: str = Currency.USD, rates_as_of: date | None = None,
                 book: RateBook | None = None) -> None:
        self.as_of = as_of
        self.range_end = range_end
        self.team_ids = team_ids
        self.currency = currency
        self.typed_currency = typed_currency
        self.rates_as_of = rates_as_of
        self.book = book or RateBook(())
        self.assumptions: list[Assumption] = []
        self.prices: list[PriceUsed] = []
        self.warnings: list[EvaluationWarning] = []
        self.rates: dict[Rate, None] = {}
        self.listed: dict[int, ListedPrice] = {}
        # Engine input path -> the catalog price it is costed at (see _catalog_prices).
        self.catalog: dict[str, tuple[CloudOffering | SystemSku, PricePoint | None, str]] = {}
        self.others: dict[int, list[PricePoint]] = {}  # price point id -> other sources' prices
        self.converted: list[str] = []  # engine inputs given in another currency (Exchange)
        # Provider -> its published internet egress rate, for rent options that give no egress price.
        self.egress: dict[str, EgressRate] = {}

    def money(self, value: Any, unit: str, currency: str, on: date | None,
              field: str, path: str = "") -> tuple[float, str, str]:
        """A figure in the reporting currency, its unit so named, and the conversion in words
        ("" when none was needed). Money is any figure whose unit names USD, the engine's
        placeholder for the reporting currency; it is converted exactly (Decimal) at the rate
        of the scenario's rate date, else of the figure's own date. ``path``: the engine input
        it is, which an exchange-rate move then scales when it was converted."""
        if value is None or "USD" not in unit:
            return _float(value), unit, ""
        unit = unit.replace("USD", self.currency)
        number = value if isinstance(value, Decimal) else Decimal(str(value))
        if not number.is_finite():
            return float(number), unit, ""
        on = self.rates_as_of or on or self.as_of
        try:
            conversion = self.book.convert(number, currency, self.currency, on)
        except NoRate as exc:
            raise ScenarioInputError(field, f"{currency} {number.normalize():,f} cannot be reported in "
                                            f"{self.currency}: {exc}") from None
        if conversion.rates and path:
            self.converted.append(path)
        too_old = self.book.too_old(conversion)
        for rate in conversion.rates:
            self.rates[rate] = None
            if rate in too_old:
                self.warnings.append(EvaluationWarning("exchange_rate_old",
                                                       self.book.age_warning(rate, on)))
            elif rate.on != on:
                self.warnings.append(EvaluationWarning(
                    "exchange_rate_earlier",
                    f"No {rate.base}/{rate.quote} rate on {on}: the rate of {rate.on} is used "
                    f"({rate.describe()})."))
        return float(conversion.amount), unit, conversion.describe()

    def scenario(self, path: str, value: Any, unit: str, field: str) -> float:
        number, unit, converted = self.money(value, unit, self.typed_currency, None, field, path)
        source = f"scenario.{field}" + (f"; {converted}" if converted else "")
        self.assumptions.append(Assumption(path, number, unit, "scenario", source))
        return number

    def sizing(self, path: str, value: float, unit: str, sizing: Sizing) -> float:
        """A value the scenario leaves empty, taken from its sizing."""
        self.assumptions.append(Assumption(path, value, unit, "sizing", sizing.describe()))
        return value

    def either(self, path: str, own: Any, unit: str, field: str, row: Any, row_field: str) -> float:
        """The scenario's own value when given, else the catalog row's (recorded as such)."""
        if own is not None:
            return self.scenario(path, own, unit, field)
        value = getattr(row, row_field)
        if value is None:
            raise ScenarioInputError(field, f"not given, and {type(row).__name__} '{row}' has no "
                                            f"{row_field} to fall back to")
        number, unit, converted = self.money(value, unit, getattr(row, "currency", Currency.USD),
                                             None, field, path)
        source = _source_label(row, row_field) + (f"; {converted}" if converted else "")
        self.assumptions.append(Assumption(path, number, unit, "catalog", source,
                                           source_keys=_field_source_keys(row, row_field)))
        return number

    def default(self, path: str, own: Any, field: str, key: str | None = None) -> float:
        """The scenario's own value when given, else the stated default (recorded with its source)."""
        stated = DEFAULTS[key or field]
        if own is not None:
            return self.scenario(path, own, stated.unit, field)
        self.assumptions.append(Assumption(path, stated.value, stated.unit, "default", stated.source))
        return stated.value

    def optional(self, path: str, own: Any, unit: str, meaning: str) -> float:
        """A scenario figure whose absence means something (NaN to the engine), recorded either
        way; ``meaning`` says what empty means."""
        if own is not None:
            return self.scenario(path, own, unit, field_for(path))
        self.assumptions.append(Assumption(path, math.nan, unit, "scenario", f"empty: {meaning}"))
        return math.nan

    def price(self, path: str, field: str, point: PricePoint, unit: str, choice: str = "") -> float:
        """A catalog price point: the scenario's point of its range, with the choice explained
        (``choice``: how the offering was chosen, e.g. its cheapest region)."""
        amount = range_point(point, self.range_end)
        # Named as people name it: a system by its label ('NVIDIA DGX H100 (8x H100 SXM5 80 GB)'),
        # not its slug; an offering by its provider, instance, region and pricing.
        target = point.system.label if point.system_id is not None else str(point.offering)
        self.prices.append(PriceUsed(point.id, target, amount, point.currency,
                                     point.as_of, str(point.source), path, checked_on(point)))
        source = f"{choice}; " if choice else ""
        source += f"price point {point.id} ({point.source}, as of {point.as_of}"
        if point.amount_high is not None:
            source += (f"; {PriceRangePoint(self.range_end).label.lower()} of "
                       f"{_usd_range(point)}")
        source += ")"
        number, unit, converted = self.money(amount, unit, point.currency, point.as_of, field, path)
        if converted:  # beside the quote it converts, before the other sources' quotes
            source += f"; {converted}"
        others = self.others[point.id]
        if others:
            source += "; newest price on or before " + self.as_of.isoformat() + ", also: " + "; ".join(
                f"{other.source} {_usd_range(other)}"
                f"{_range_reported(other, number / float(amount), self.currency, converted)} "
                f"as of {other.as_of}" for other in others)
            # Cloud prices move over time; purchase prices of one system should agree.
            if point.system_id is not None and any(
                    abs(range_point(other, self.range_end) - amount) > DISAGREEMENT * amount
                    for other in others if other.currency == point.currency):
                self.warnings.append(EvaluationWarning("sources_disagree",
                    f"Sources disagree on the price of {point.system.label}: it is costed at "
                    f"{_usd(amount, point.currency)}{in_reporting(number, self.currency, converted)} "
                    f"({point.source}, "
                    f"as of {point.as_of}, "
                    f"the newest on or before "
                    f"{self.as_of}); " + "; ".join(
                        f"{other.source} gives {_usd_range(other)}"
                        f"{_range_reported(other, number / float(amount), self.currency, converted)} "
                        f"as of {other.as_of}"
                        for other in others)
                    + f". To cost another figure, give it as the scenario's "
                      f"{input_term(path).label.lower()}."))
        self.assumptions.append(Assumption(
            path, number, unit, "catalog", source, point.as_of,
            source_keys=(point.source.key, *(other.source.key for other in others))))
        return number


def recorded_unit(path: str) -> str:
    """The unit an input is recorded in, from its declared words: money in USD (converted to
    the reporting currency as recorded) per what its unit says ("USD/rack"), shares "share" or
    "share/year", months, counts, else the declared unit ("FTE", "kW")."""
    term = input_term(path)
    if term.kind in (Kind.USD, Kind.USD_PRICE):
        per = term.unit.removeprefix("per ")
        return f"USD/{per}" if per != term.unit else "USD"
    if term.kind is Kind.SHARE:
        return "share/year" if term.unit.endswith("a year") else "share"
    return {Kind.MONTH: "months", Kind.COUNT: "count"}.get(term.kind, term.unit)


#: Units of the catalog tables' figures (cooling technologies, a facility's existing cooling).
CATALOG_TABLE_UNITS = {
    "max_kw_per_rack": "kW/rack",
    "existing_cooling_max_kw_per_rack": "kW/rack",
    "capex_usd_per_kw": "USD/kW",
    "opex_usd_per_kw_month": "USD/kW-month",
}

#: Sources whose prices differ by more than this share are said to disagree (a warning).
DISAGREEMENT = Decimal("0.10")


def _usd(amount: Decimal, currency: str = Currency.USD) -> str:
    """$450,000 for system prices, $6.88 for hourly ones; EUR 412,000 in another currency."""
    return money(float(amount), 0 if amount >= 1000 else 2, currency)


def in_reporting(amount: float, currency: str, conversion: str) -> str:
    """A quoted amount in the reporting currency, beside it, with the rate that took it there:
    ' (EUR 274,702.55: USD 320,000.00 at 0.8584 EUR/USD (1 EUR = 1.1649 USD on ...))'; nothing
    when the amount was quoted in the reporting currency."""
    return f" ({money(amount, 2, currency)}: {conversion})" if conversion else ""


def _range_reported(point: PricePoint, factor: float, currency: str, conversion: str) -> str:
    """Another source's quote in the reporting currency, at the rate the costed one took
    (' (EUR 386,301–429,224 at the same exchange rate)'); nothing when none was needed."""
    if not conversion:
        return ""
    scale = Decimal(repr(factor))
    high = "" if point.amount_high is None else f"–{_usd(point.amount_high * scale, currency)}"
    return f" ({_usd(point.amount * scale, currency)}{high} at the same exchange rate)"


def _usd_range(point: PricePoint) -> str:
    if point.amount_high is None:
        return _usd(point.amount, point.currency)
    return f"{_usd(point.amount, point.currency)}–{_usd(point.amount_high, point.currency)}"


def engine_case(scenario: Scenario, rent_options: Sequence[RentOption] | None = None,
                api_options: Sequence[ApiOption] | None = None) -> EngineCase:
    """Engine inputs for ``scenario`` (saved or not), its rent options and its API options.

    Raises ScenarioInputError naming the field when a value is missing and the catalog has
    none to fall back to, or when the system cannot fit the facility's racks at all. The
    values themselves are checked by the engine (``scenario_check``, or the evaluation).
    """
    _load_related(scenario)
    with money_in(reporting_currency(scenario)):  # amounts quoted in sources and warnings
        return _engine_case(scenario, rent_options, api_options)


#: The rows an evaluation reads through a scenario, each with the rows it reads through them.
RELATED = {"team": (), "accelerator": (), "system": ("accelerator",), "facility": ("max_cooling",),
           "site": ()}


def _load_related(scenario: Scenario) -> None:
    """Read the rows of ``RELATED`` the scenario has not loaded yet in one query, not one at a
    time as the inputs reach them. A stored row is taken only where the scenario still refers
    to it (a draft being edited may refer to another, read when it is reached)."""
    paths = _unloaded(scenario, RELATED)
    if scenario.pk is None or not paths:
        return
    stored = (Scenario.objects.select_related(*paths).only(*{path.split("__")[0] for path in paths})
              .filter(pk=scenario.pk).order_by().first())
    for path in paths if stored is not None else ():
        *steps, name = path.split("__")
        row, stored_row = scenario, stored
        for step in steps:
            row, stored_row = getattr(row, step), getattr(stored_row, step)
        attname = row._meta.get_field(name).attname
        if getattr(row, attname) == getattr(stored_row, attname):
            setattr(row, name, getattr(stored_row, name))


def _unloaded(row: Any, related: dict[str, tuple[str, ...]]) -> list[str]:
    """The relations of ``related`` the row refers to and has not loaded, as select_related paths."""
    paths = []
    for name, inner in related.items():
        field = row._meta.get_field(name)
        if getattr(row, field.attname) is None:
            continue
        if field.is_cached(row):
            paths += [f"{name}__{path}" for path in _unloaded(getattr(row, name), dict.fromkeys(inner, ()))]
        else:
            paths += [name, *(f"{name}__{path}" for path in inner)]
    return paths


def _engine_case(scenario: Scenario, rent_options: Sequence[RentOption] | None,
                 api_options: Sequence[ApiOption] | None) -> EngineCase:
    if rent_options is None:  # with what their names and prices read
        rent_options = scenario.rent_options.select_related("offering__accelerator")
    options = list(rent_options)
    if api_options is None:
        api_options = [] if scenario.pk is None else scenario.api_options.select_related("price__source")
    api_options = list(api_options)
    reporting = reporting_currency(scenario)
    record = _Recorder(scenario.prices_as_of or timezone.localdate(), scenario.price_range_point,
                       _teams(scenario), currency=reporting,
                       typed_currency=scenario.currency or reporting,
                       rates_as_of=scenario.rates_as_of, book=rate_book(_teams(scenario)))
    sizing = _sizing(scenario)
    technologies = _cooling_technologies(scenario.system)
    _catalog_prices(scenario, options, record)
    unpriced_egress = {o.offering.provider for o in options if o.egress_usd_per_gb is None}
    if unpriced_egress:
        record.egress = egress_rates_at(unpriced_egress, record.as_of)
    inputs = engine.Scenario(
        workload=_workload(scenario, record, sizing),
        buy=_buy(scenario, record),
        facility=_facility(scenario, record, technologies),
        cooling=_cooling_tiers(technologies, record),
        rent=tuple(_rent(index, option, scenario, record) for index, option in enumerate(options)),
        finance=engine.Finance(
            horizon_months=record.scenario("finance.horizon_months", scenario.horizon_months,
                                           "months", "horizon_months"),
            discount_rate_per_year=record.scenario(
                "finance.discount_rate_per_year", scenario.discount_rate_per_year, "1/year",
                "discount_rate_per_year"),
        ),
        goodput=_goodput(scenario, record),
        carbon=engine.Carbon(
            default_grid_kg_co2e_per_kwh=record.default(
                "carbon.default_grid_kg_co2e_per_kwh", scenario.cloud_grid_kg_co2e_per_kwh,
                "cloud_grid_kg_co2e_per_kwh"),
            cloud_pue=record.default("carbon.cloud_pue", scenario.cloud_pue, "cloud_pue"),
            price_usd_per_tonne=record.scenario("carbon.price_usd_per_tonne",
                                                scenario.carbon_price_usd_per_tonne, "USD/t CO2e",
                                                "carbon_price_usd_per_tonne"),
        ),
        tokens=engine.TokenMix(**{
            name: record.scenario(f"tokens.{name}", getattr(scenario, f"token_{name}"), "share",
                                  f"token_{name}")
            for name in ("input_share", "cached_input_share", "output_share")}),
        api=tuple(_api(index, option, record) for index, option in enumerate(api_options)),
        exchange=engine.Exchange(converted=tuple(dict.fromkeys(record.converted))),
    )
    record.assumptions.append(Assumption(
        "exchange.rate_change", 1.0, "", "default",
        "the rates stated (1); sweeps and Monte Carlo runs move it"
        + ("" if record.converted else ", though no input here was given in another currency")))
    if scenario.site is not None:
        _check_site(scenario, inputs, record)
        _check_jurisdictions(scenario.site, options, record)
    _check_served_models(scenario, api_options, record)
    _check_system_fits_rack(inputs)
    inputs, contracts = _contracts(scenario, record, inputs)
    leases = _leases(scenario, record)
    return EngineCase(inputs, tuple(record.assumptions), tuple(record.prices), sizing,
                      tuple(dict.fromkeys(record.warnings)), reporting, tuple(record.rates), leases,
                      contracts)


def _catalog_prices(scenario: Scenario, options: Sequence[RentOption], record: _Recorder) -> None:
    """Read every catalog price the inputs are costed at before they are built, into
    ``record.catalog`` by engine input path: the system's unless the scenario gives it, each rent
    option's in force (or its cheapest region's) unless the option gives it; and into
    ``record.others`` what the other sources say beside each. A few queries in all, not a few
    per option."""
    listed = {index: option for index, option in enumerate(options)
              if option.price_usd_per_instance_hour is None}
    regions = {index: regions_of(option.offering, team_ids=record.team_ids)
               for index, option in listed.items() if option.cheapest_region}
    targets = [scenario.system] if scenario.system_price_usd is None else []
    targets += [option.offering for index, option in listed.items() if index not in regions]
    targets += [region for found in regions.values() for region in found]
    prices = prices_at(targets, on=record.as_of, team_ids=record.team_ids)
    if scenario.system_price_usd is None:
        record.catalog["buy.system_price_usd"] = (scenario.system, prices.get(scenario.system), "")
    for index, option in listed.items():
        record.catalog[f"rent.{index}.price_usd_per_instance_hour"] = (
            _cheapest_region(option, regions[index], prices, record) if index in regions
            else (option.offering, prices.get(option.offering), ""))
    record.others = other_sources_prices([point for _, point, _ in record.catalog.values() if point],
                                         on=record.as_of, team_ids=record.team_ids)


def _contracts(scenario: Scenario, record: _Recorder,
               inputs: engine.Scenario) -> tuple[engine.Scenario, tuple[ContractUse, ...]]:
    """The rent options at the team's contract prices, each recorded with its book."""
    rent, uses = list(inputs.rent), []
    # The team's books of every provider, read once for the options priced from the public catalog.
    public = any(listed.point.team_id is None for listed in record.listed.values())
    books = books_in_force(scenario, record.as_of) if public else []
    for index, listed in record.listed.items():
        commitments: list[str] = []  # the currency of each commitment the book converts

        def money(amount: Decimal, currency: str, field: str, seen: list[str] = commitments) -> float:
            seen.append(currency)
            return record.money(amount, "USD", currency, None, field)[0]
        try:
            rent[index], use = contracted_rent(books, inputs, index, listed, money)
        except ValueError as exc:
            raise ScenarioInputError("horizon_months", str(exc)) from exc
        if use is None:
            continue
        uses.append(use)
        path = f"rent.{index}.price_usd_per_instance_hour"
        # An exchange-rate move scales the contracted price whole, as its list price converts.
        mixed = [currency for currency in commitments if (currency == record.currency)
                 == (path in record.converted)]
        if mixed:
            record.warnings.append(EvaluationWarning("rate_move_contract", (
                f"{use.option} is listed in {listed.point.currency} under a commitment in "
                f"{mixed[0]}: an exchange-rate move (in a sweep, Monte Carlo or sensitivity run) "
                f"{'moves' if path in record.converted else 'does not move'} its contracted price "
                "as a whole, though only part of it is in another currency; its figures at a moved "
                "rate are approximate."), "info"))
        record.assumptions = [
            replace(a, value=use.price, source=f"{a.source}; list {use.list_price:,.4f}/h, "
                                               f"contract book {use.book}: {use.terms}")
            if a.path == path else a for a in record.assumptions]
    return replace(inputs, rent=tuple(rent)), tuple(uses)


def _leases(scenario: Scenario, record: _Recorder) -> tuple[Lease | None, Lease | None]:
    """The finance and operating lease quotes, in the reporting currency (None = not given)."""
    def money(field: str) -> float:
        return record.money(getattr(scenario, field), "USD", record.typed_currency, None, field)[0]

    finance = None if scenario.finance_lease_usd_per_month is None else Lease(
        money("finance_lease_usd_per_month"), scenario.finance_lease_term_months,
        money("finance_lease_buyout_usd"))
    operating = None if scenario.operating_lease_usd_per_month is None else Lease(
        money("operating_lease_usd_per_month"), scenario.operating_lease_term_months)
    return finance, operating


def reporting_currency(scenario: Scenario) -> str:
    """The scenario's reporting currency: its own, else its team's, else US dollars."""
    return scenario.reported_in()


def _sizing(scenario: Scenario) -> Sizing | None:
    """The scenario's sizing run on its accelerator; errors name the field as sizing.<field>."""
    if scenario.sizing is None:
        return None
    try:
        sizing = size_spec(scenario.sizing, scenario.accelerator)
    except SizingInputError as exc:
        raise ScenarioInputError(f"sizing.{exc.path}", exc.message) from exc
    # Its software gain, if any, is averaged over the scenario's horizon.
    return replace(sizing, horizon_months=float(scenario.horizon_months))


def _workload(scenario: Scenario, record: _Recorder, sizing: Sizing | None) -> engine.Workload:
    if scenario.accelerators is not None:
        accelerators = record.scenario("workload.accelerators", scenario.accelerators, "count",
                                       "accelerators")
    elif sizing is None:
        raise ScenarioInputError("accelerators", "give the number of accelerators needed, "
                                                 "or a sizing")
    elif not sizing.fits:
        raise ScenarioInputError("sizing", f"{sizing.model} does not fit on "
                                           f"{sizing.accelerator}: {sizing.result.reason}; give "
                                           "the number of accelerators or change the sizing")
    else:
        accelerators = record.sizing("workload.accelerators", sizing.accelerators, "count", sizing)
    serving = sizing if sizing is not None and sizing.fits else None
    sized_tokens_per_s = serving.tokens_per_s_per_accelerator if serving else None
    if serving and sized_tokens_per_s is not None and scenario.tokens_per_s_per_accelerator is None:
        tokens_per_s = record.sizing("workload.tokens_per_s_per_accelerator",
                                     _over_life(sized_tokens_per_s, serving, scenario),
                                     "tokens/s", serving)
    else:
        tokens_per_s = record.scenario(
            "workload.tokens_per_s_per_accelerator", scenario.tokens_per_s_per_accelerator,
            "tokens/s", "tokens_per_s_per_accelerator")
    return engine.Workload(
        accelerators=accelerators,
        utilisation=record.scenario("workload.utilisation", scenario.utilisation, "share",
                                    "utilisation"),
        hours_per_month=record.scenario("workload.hours_per_month", scenario.hours_per_month,
                                        "h/month", "hours_per_month"),
        tokens_per_s_per_accelerator=tokens_per_s,
    )


def _over_life(tokens_per_s: float, sizing: Sizing, scenario: Scenario) -> float:
    """The sized throughput averaged over the scenario's horizon at the sizing's yearly software
    gain (none unless the sizing states one); the sizing's description says which."""
    gain = sizing.software_gain
    if gain is None or gain.per_year == 0.0:
        return tokens_per_s
    return tokens_per_s * gain.life_factor(float(scenario.horizon_months))


def _teams(scenario: Scenario) -> list[int]:
    """Whose quotes count beside public prices: the scenario's team's (an unsaved scenario
    evaluated without a team has public prices only)."""
    return [scenario.team_id] if scenario.team_id is not None else []


def _system_price(scenario: Scenario, record: _Recorder) -> float:
    if scenario.system_price_usd is not None:
        return record.scenario("buy.system_price_usd", scenario.system_price_usd, "USD",
                               "system_price_usd")
    _, point, _ = record.catalog["buy.system_price_usd"]
    if point is not None:
        return record.price("buy.system_price_usd", "system_price_usd", point, "USD")
    return record.either("buy.system_price_usd", None, "USD", "system_price_usd",
                         scenario.system, "purchase_price_low_usd")


def _buy(scenario: Scenario, record: _Recorder) -> engine.BuyOption:
    system = scenario.system
    # Every buy input the scenario states under its own name (``numeric(stated=True)``).
    own = {name: getattr(scenario, name) for name in stated_fields(engine.BuyOption)}
    curve = tuple((float(month), float(share)) for month, share in scenario.residual_curve or ())
    # No idle figure in the catalog: cost the system at full draw, the conservative choice.
    idle_field = "power_max_kw" if system.power_idle_kw is None else "power_idle_kw"
    head = dict(
        accelerators_per_system=record.either("buy.accelerators_per_system", None, "count",
                                              "system", system, "accelerators_per_system"),
        system_price_usd=_system_price(scenario, record),
        system_power_max_kw=record.either("buy.system_power_max_kw", None, "kW", "system",
                                          system, "power_max_kw"),
        system_power_idle_kw=record.either("buy.system_power_idle_kw", None, "kW", "system",
                                           system, idle_field),
        system_rack_units=record.either("buy.system_rack_units", None, "U", "system", system,
                                        "rack_units"),
    )
    recorded = {name: record.scenario(f"buy.{name}", value, recorded_unit(f"buy.{name}"), name)
                for name, value in own.items()}
    recorded["power_cap_throughput_loss"] = _power_cap_loss(scenario, record,
                                                            recorded["power_cap_throughput_loss"])
    return engine.BuyOption(
        **head,
        **recorded,
        residual_curve=curve,
        residual_decline_per_year=record.optional(
            "buy.residual_decline_per_year", scenario.residual_decline_per_year, "1/year",
            "no decline rate"),
        next_generation_launch_month=record.optional(
            "buy.next_generation_launch_month", scenario.next_generation_launch_month, "month",
            "no next-generation launch modelled"),
        next_generation_value_drop=record.scenario(
            "buy.next_generation_value_drop", scenario.next_generation_value_drop, "share",
            "next_generation_value_drop"),
        embodied_kg_co2e_per_system=record.default(
            "buy.embodied_kg_co2e_per_system", scenario.embodied_kg_co2e_per_system,
            "embodied_kg_co2e_per_system"),
    )


def _check_site(scenario: Scenario, inputs: engine.Scenario, record: _Recorder) -> None:
    """A build that does not fit the site's feeds, racks or cooling: refused when not one system
    fits, else warned about; either way naming the feed, rack or room and the shortfall in kW."""
    buy = inputs.buy
    accelerators = accelerators_to_buy(inputs.workload.accelerators, buy.power_cap_throughput_loss)
    systems = systems_needed(accelerators, buy.accelerators_per_system)
    problem = site_fit_problem(scenario.site, scenario.system, int(systems), float(buy.power_cap_share))
    if problem is None:
        return
    sentence, placed = problem
    if not placed:
        raise ScenarioInputError("site", sentence)
    record.warnings.append(EvaluationWarning("does_not_fit_site", sentence))


def _check_jurisdictions(site: Site, options: Sequence[RentOption], record: _Recorder) -> None:
    """Warn of each rent option whose region is in another jurisdiction than the site: its price,
    where the data may be kept and what moving it out costs are not those of the site's country.
    The region is the one the option is costed in (its cheapest region when it asks for one)."""
    if not site.country:
        return
    for index, option in enumerate(options):
        listed = record.catalog.get(f"rent.{index}.price_usd_per_instance_hour")
        offering = listed[0] if listed else option.offering
        place = place_of(offering.region)
        if place is None or jurisdiction(place.country) == jurisdiction(site.country):
            continue  # the same jurisdiction, or a region the catalog cannot place
        record.warnings.append(EvaluationWarning("region_jurisdiction", (
            f"The site {site.name} is in {country_words(site.country)}, but {option} is rented "
            f"in {offering.region} ({place.name}, {country_words(place.country)}): "
            "prices, data residency and egress differ between the two; compare with an offering "
            "in the site's jurisdiction before signing.")))


def _check_served_models(scenario: Scenario, api_options: Sequence[ApiOption], record: _Recorder) -> None:
    """Warn of a per-token price of an open-model host that serves another model than the one the
    scenario sizes its build for: tokens of different models are not like for like."""
    sized = scenario.sizing.get("model") if isinstance(scenario.sizing, dict) else None
    if not isinstance(sized, str):
        return
    for option in api_options:
        row = option.price
        if row is not None and row.serves_model and row.serves_model != sized:
            record.warnings.append(EvaluationWarning("api_other_model", (
                f"{row.provider} {row.model_name} serves {row.serves_model}, but the build is "
                f"sized for {sized}: its tokens are not like for like. Pick a host of {sized} "
                "(the catalog's token prices say which open model each host serves).")))


def _power_cap_loss(scenario: Scenario, record: _Recorder, given: float) -> float:
    """The throughput a power cap costs: the scenario's measured figure when it gives one (not 0),
    else the catalog's table for the accelerator at the cap, interpolated (its midpoint, the range
    and source in the assumption)."""
    share = float(scenario.power_cap_share)
    if share >= 1 or given > 0:
        return given
    path = "buy.power_cap_throughput_loss"
    try:
        loss = catalog_cap_loss(scenario.system, share)
    except engine.InputError as exc:
        raise ScenarioInputError("power_cap_throughput_loss", exc.message) from None
    if loss is None:
        record.warnings.append(EvaluationWarning(
            "power_cap_without_loss",
            f"The power cap ({share:.0%} of maximum power) costs no throughput: the catalog has no "
            f"power-cap table for {scenario.system.accelerator}. Give the throughput loss you measured."))
        return given
    index = next(i for i, a in enumerate(record.assumptions) if a.path == path)
    record.assumptions[index] = Assumption(path, loss.loss, "share", "catalog",
                                           f"power-cap table of {scenario.system.accelerator}: "
                                           f"{loss.describe()}",
                                           source_keys=tuple(dict.fromkeys(k for k in loss.sources if k)))
    return loss.loss


def _goodput(scenario: Scenario, record: _Recorder) -> engine.Goodput:
    return engine.Goodput(
        failures_per_accelerator_hour=record.default(
            "goodput.failures_per_accelerator_hour", scenario.failures_per_accelerator_hour,
            "failures_per_accelerator_hour"),
        accelerators_per_job=record.optional("goodput.accelerators_per_job",
                                             scenario.accelerators_per_job, "count",
                                             "a failure stops the whole fleet"),
        checkpoint_interval_h=record.optional(
            "goodput.checkpoint_interval_h", scenario.checkpoint_interval_h, "h",
            "the Young/Daly optimum sqrt(2 x checkpoint cost x MTBF)"),
        checkpoint_cost_h=record.default(
            "goodput.checkpoint_cost_h",
            None if scenario.checkpoint_cost_min is None else scenario.checkpoint_cost_min / 60,
            "checkpoint_cost_min", key="checkpoint_cost_h"),
        restart_h=record.default("goodput.restart_h", scenario.restart_h, "restart_h"),
    )


def _api(index: int, option: ApiOption, record: _Recorder) -> engine.ApiOption:
    prefix, field = f"api.{index}", f"api_options[{index}]"
    row = option.price

    def price(name: str) -> float:
        own = getattr(option, name)
        if own is not None:
            return record.scenario(f"{prefix}.{name}", own, "USD/Mtoken", f"{field}.{name}")
        if row is None:
            raise ScenarioInputError(f"{field}.{name}", "give a price or pick a catalog price row")
        example = " (shipped example, not a real price)" if row.is_example else ""
        number, unit, converted = record.money(getattr(row, name), "USD/Mtoken", row.currency,
                                               row.as_of, f"{field}.{name}", f"{prefix}.{name}")
        converted = f"; {converted}" if converted else ""
        record.assumptions.append(Assumption(f"{prefix}.{name}", number, unit, "catalog",
                                             f"token API price {row}: {row.source}{example}"
                                             f"{converted}", row.as_of,
                                             source_keys=(row.source.key,)))
        return number

    prices = ("usd_per_million_input", "usd_per_million_cached_input", "usd_per_million_output")
    if row is not None and row.is_example and any(getattr(option, name) is None for name in prices):
        record.warnings.append(EvaluationWarning(
            "example_price", f"The per-token prices of {row} are shipped examples ({row.source}), "
                             "not a provider's published prices: a verdict on them is "
                             "illustrative. Pick a real price row or give the prices."))
    limit = option.rate_limit_tokens_per_month
    return engine.ApiOption(
        name=option.name or (f"{row.provider} {row.model_name}" if row else f"API {index + 1}"),
        usd_per_million_input=price("usd_per_million_input"),
        usd_per_million_cached_input=price("usd_per_million_cached_input"),
        usd_per_million_output=price("usd_per_million_output"),
        price_change_per_year=record.scenario(f"{prefix}.price_change_per_year",
                                              option.price_change_per_year, "1/year",
                                              f"{field}.price_change_per_year"),
        minimum_usd_per_month=record.scenario(f"{prefix}.minimum_usd_per_month",
                                              option.minimum_usd_per_month, "USD/month",
                                              f"{field}.minimum_usd_per_month"),
        rate_limit_tokens_per_month=math.inf if limit is None else record.scenario(
            f"{prefix}.rate_limit_tokens_per_month", limit, "tokens/month",
            f"{field}.rate_limit_tokens_per_month"),
    )


def _rack_limit(scenario: Scenario, record: _Recorder, technologies: list[CoolingTechnology]) -> float:
    """The facility's rack power limit, lowered to what the system's kind of cooling handles."""
    path = "facility.rack_power_limit_kw"
    from_site = None if scenario.site is None or scenario.rack_power_limit_kw is not None \
        else site_rack_limit_kw(scenario.site)
    if from_site is not None:
        given, why = from_site
        record.assumptions.append(Assumption(path, given, "kW", "site", why))
    else:
        given = record.either(path, scenario.rack_power_limit_kw, "kW", "rack_power_limit_kw",
                              scenario.facility, "rack_power_limit_kw")
    limit = cooled_rack_limit(scenario.system, technologies, given)
    if limit is None:
        return given
    keys = (*_field_source_keys(scenario.system, "cooling"),
            *_field_source_keys(technologies[-1], "max_kw_per_rack"))
    record.assumptions[-1] = Assumption(path, limit.kw, "kW", "catalog", limit.reason,
                                        source_keys=tuple(dict.fromkeys(keys)))
    return limit.kw


def _facility(scenario: Scenario, record: _Recorder,
              technologies: list[CoolingTechnology]) -> engine.Facility:
    profile = scenario.facility
    colocation = profile.kind == FacilityKind.COLOCATION

    def pick(name: str, unit: str, field: str | None = None, row_field: str | None = None,
             applies: bool = True) -> float:
        field = field or name
        own = getattr(scenario, field)
        if own is None and not applies:
            # Only the facility's own kind of space is paid for: colocation or build-out.
            return record.scenario(f"facility.{name}", 0, unit, field)
        at_site = None if scenario.site is None else getattr(scenario.site, field, None)
        if own is None and at_site is not None:
            record.assumptions.append(Assumption(f"facility.{name}", float(at_site), unit, "site",
                                                 f"site {scenario.site}: {field}"))
            return float(at_site)
        return record.either(f"facility.{name}", own, unit, field, profile, row_field or field)

    max_cooling = profile.max_cooling.max_kw_per_rack
    return engine.Facility(
        electricity_usd_per_kwh=pick("electricity_usd_per_kwh", "USD/kWh"),
        pue=pick("pue", "ratio"),
        rack_power_limit_kw=_rack_limit(scenario, record, technologies),
        rack_units_per_rack=pick("rack_units_per_rack", "U"),
        existing_cooling_max_kw_per_rack=math.inf if max_cooling is None else float(max_cooling),
        electricity_escalation_per_year=record.scenario(
            "facility.electricity_escalation_per_year", scenario.electricity_escalation_per_year,
            "1/year", "electricity_escalation_per_year"),
        colocation_usd_per_kw_month=pick("colocation_usd_per_kw_month", "USD/kW-month",
                                         applies=colocation),
        owned_buildout_usd_per_kw=pick("owned_buildout_usd_per_kw", "USD/kW",
                                       "buildout_capex_usd_per_kw", applies=not colocation),
        owned_opex_usd_per_kw_month=pick("owned_opex_usd_per_kw_month", "USD/kW-month",
                                         "buildout_opex_usd_per_kw_month", applies=not colocation),
        grid_kg_co2e_per_kwh=record.default("facility.grid_kg_co2e_per_kwh",
                                            scenario.grid_kg_co2e_per_kwh, "grid_kg_co2e_per_kwh"),
    )


def _cooling_technologies(system: SystemSku) -> list[CoolingTechnology]:
    """The catalog's cooling technologies that suit the system's cooling, by rack density (an
    air-cooled system never gets a liquid tier, a liquid-cooled one never an air tier)."""
    technologies = cooling_technologies_for(system)
    if not technologies and not CoolingTechnology.objects.exists():
        raise ScenarioInputError("facility", "the catalog has no cooling technologies; "
                                             "run load_catalog")
    if not technologies:
        raise ScenarioInputError("system", f"{system.label} is {system.get_cooling_display().lower()}, "
                                           f"and the catalog has no {system.cooling} cooling technology")
    return technologies


def _cooling_tiers(technologies: list[CoolingTechnology],
                   record: _Recorder) -> tuple[engine.CoolingTier, ...]:
    """The cooling technologies as the engine's tiers, each figure recorded with its sources."""
    built = []
    for index, tier in enumerate(technologies):
        figures = {"max_kw_per_rack": math.inf if tier.max_kw_per_rack is None
                   else float(tier.max_kw_per_rack)}
        units = {"max_kw_per_rack": CATALOG_TABLE_UNITS["max_kw_per_rack"]}
        for name in ("capex_usd_per_kw", "opex_usd_per_kw_month"):
            figures[name], units[name], _ = record.money(getattr(tier, name),
                                                         CATALOG_TABLE_UNITS[name], Currency.USD,
                                                         None, "facility", f"cooling.{index}.{name}")
        for name, value in figures.items():
            record.assumptions.append(Assumption(
                f"cooling.{index}.{name}", value, units[name], "catalog",
                _source_label(tier, name), source_keys=_field_source_keys(tier, name)))
        built.append(engine.CoolingTier(name=tier.name, **figures))
    return tuple(built)


def _rent(index: int, option: RentOption, scenario: Scenario,
          record: _Recorder) -> engine.RentOption:
    offering = option.offering
    prefix = f"rent.{index}"
    field = f"rent_options[{index}]"
    pricing, term_months = PRICING[PricingModel(offering.pricing_model)]
    if option.price_usd_per_instance_hour is not None:
        if option.cheapest_region:
            raise ScenarioInputError(f"{field}.cheapest_region", CHEAPEST_REGION_WITH_PRICE)
        price = record.scenario(f"{prefix}.price_usd_per_instance_hour",
                                option.price_usd_per_instance_hour, "USD/instance-hour",
                                f"{field}.price_usd_per_instance_hour")
    else:
        offering, point, choice = record.catalog[f"{prefix}.price_usd_per_instance_hour"]
        if point is None:
            raise ScenarioInputError(
                f"{field}.price_usd_per_instance_hour",
                f"no price for {offering} on or before {record.as_of}; give one")
        price = record.price(f"{prefix}.price_usd_per_instance_hour",
                             f"{field}.price_usd_per_instance_hour", point, "USD/instance-hour",
                             choice)
        record.listed[index] = ListedPrice(offering, point)
    commitment = option.commitment_months if option.commitment_months is not None else term_months

    def own(name: str, unit: str, value: Any = None, *, engine_name: str = "") -> float:
        value = getattr(option, name) if value is None else value
        return record.scenario(f"{prefix}.{engine_name or name}", value, unit, f"{field}.{name}")

    basis = option.billing_basis or engine.DEFAULT_BILLING_BASIS[pricing]
    if pricing == engine.PricingModel.RESERVED and basis != engine.BillingBasis.HELD:
        raise ScenarioInputError(f"{field}.billing_basis",
                                 f"{offering} is committed capacity, paid for every hour of its "
                                 "term: it cannot be billed for the hours used")
    return engine.RentOption(
        name=str(option),
        pricing_model=pricing,
        billing_basis=basis,
        price_usd_per_instance_hour=price,
        accelerators_per_instance=record.either(
            f"{prefix}.accelerators_per_instance", None, "count", f"{field}.offering", offering,
            "accelerators_per_instance"),
        equivalence_factor=_equivalence(prefix, field, option, scenario, record),
        commitment_months=own("commitment_months", "months", commitment),
        upfront_usd_per_instance=own("upfront_usd", "USD/instance",
                                     engine_name="upfront_usd_per_instance"),
        spot_interruption_overhead=own("spot_interruption_overhead", "share"),
        egress_tb_per_month=own("egress_tb_per_month", "TB/month"),
        egress_usd_per_gb=_egress_price(prefix, field, option, offering, record),
        storage_tb=own("storage_tb", "TB"),
        storage_usd_per_gb_month=own("storage_usd_per_gb_month", "USD/GB-month"),
        price_change_per_year=own("price_change_per_year", "1/year"),
        spot_interruptions_per_hour=own("spot_interruptions_per_hour", "1/h"),
        grid_kg_co2e_per_kwh=record.optional(
            f"{prefix}.grid_kg_co2e_per_kwh", option.grid_kg_co2e_per_kwh, "kg CO2e/kWh",
            "the scenario's default for rented capacity"),
    )


def _egress_price(prefix: str, field: str, option: RentOption, offering: CloudOffering,
                  record: _Recorder) -> float:
    """The option's internet egress price per GB: its own, else its provider's newest published
    rate on or before the price date (recorded with its tier and source), else nothing, said so."""
    path, field = f"{prefix}.egress_usd_per_gb", f"{field}.egress_usd_per_gb"
    if option.egress_usd_per_gb is not None:
        return record.scenario(path, option.egress_usd_per_gb, "USD/GB", field)
    if not option.egress_tb_per_month:
        # No egress volume: a published rate would multiply nothing, and converting it to the
        # reporting currency would need a rate of the day that nothing else may need.
        record.assumptions.append(Assumption(path, 0.0, f"{record.currency}/GB", "default",
                                             "empty, and no egress volume: nothing to price"))
        return 0.0
    rate = record.egress.get(offering.provider)
    if rate is None:
        record.assumptions.append(Assumption(
            path, 0.0, f"{record.currency}/GB", "default",
            f"empty, and the catalog has no published internet egress rate of "
            f"{offering.get_provider_display()}: egress is costed at nothing; give its price per GB"))
        return 0.0
    number, unit, converted = record.money(rate.usd_per_gb, "USD/GB", Currency.USD, rate.as_of,
                                           field, path)
    source = f"catalog {rate._meta.verbose_name} {rate}: {rate.source.key}"
    record.assumptions.append(Assumption(path, number, unit, "catalog",
                                         source + (f"; {converted}" if converted else ""),
                                         rate.as_of, source_keys=(rate.source.key,)))
    return number


def _cheapest_region(option: RentOption, regions: list[CloudOffering],
                     prices: dict[CloudOffering | SystemSku, PricePoint],
                     record: _Recorder) -> tuple[CloudOffering, PricePoint | None, str]:
    """The offering of the option's instance type and pricing model in its cheapest region on
    the price date, its price, and the choice in words ('cheapest region on 2026-11-23:
    us-east-1 at $55.04/h; also us-west-2 $57.10/h'). ``regions``: its regions (`regions_of`);
    ``prices``: their prices in force (`prices_at`)."""
    ranked = cheapest_first(regions, prices, end=record.range_end)
    if not ranked:
        return option.offering, None, ""
    (offering, point), others = ranked[0], ranked[1:]
    choice = (f"cheapest region on {record.as_of}: {_region(offering)} at "
              f"{_usd(range_point(point, record.range_end))}/h")
    if others:
        choice += "; also " + ", ".join(
            f"{_region(other)} {_usd(range_point(price, record.range_end))}/h"
            for other, price in others)
    return offering, point, choice


def _region(offering: CloudOffering) -> str:
    if offering.region == CloudOffering.UNSPECIFIED_REGION:
        return "region not stated by the source"
    return offering.region


def _equivalence(prefix: str, field: str, option: RentOption, scenario: Scenario,
                 record: _Recorder) -> float:
    """How many of the offering's accelerators do the work of one of the scenario's.

    Renting another accelerator is compared like for like only with a factor: the option's own,
    or on request the catalog's dense throughput ratio at the workload's precision.
    """
    path = f"{prefix}.equivalence_factor"
    if option.equivalence_factor is not None:
        return record.scenario(path, option.equivalence_factor, "accelerators/accelerator",
                               f"{field}.equivalence_factor")
    ours, theirs = scenario.accelerator, option.offering.accelerator
    if ours.pk == theirs.pk:
        record.assumptions.append(Assumption(path, 1.0, "accelerators/accelerator", "catalog",
                                             f"the same accelerator as the system ({ours.name})"))
        return 1.0
    try:
        ratio = throughput_ratio(ours, theirs, scenario.precision)
        hint = (f"or set equivalence_from_throughput to use the catalog's "
                f"{ratio.describe()}")
    except LookupError as exc:
        ratio, hint = None, f"the catalog cannot suggest one ({exc})"
    if ratio is None or not option.equivalence_from_throughput:
        raise ScenarioInputError(
            f"{field}.equivalence_factor",
            f"{option.offering} rents {theirs.name}, not the scenario's "
            f"{ours.name}: that is not like for like. Give equivalence_factor, how many "
            f"{theirs.name} do the work of one {ours.name}; {hint}")
    record.assumptions.append(Assumption(path, ratio.factor, "accelerators/accelerator",
                                         "catalog", ratio.describe()))
    return ratio.factor


def _check_system_fits_rack(inputs: engine.Scenario) -> None:
    buy, facility = inputs.buy, inputs.facility
    # A power cap lowers what a system draws, so a capped system may fit where it would not.
    draw = buy.system_power_max_kw * buy.power_cap_share
    if draw > facility.rack_power_limit_kw:
        raise ScenarioInputError(
            "system", f"one system draws {draw:g} kW, more than the rack "
                      f"power limit of {facility.rack_power_limit_kw:g} kW: it cannot be racked")
    if buy.system_rack_units > facility.rack_units_per_rack:
        raise ScenarioInputError(
            "system", f"one system takes {buy.system_rack_units:g} U, more than the "
                      f"{facility.rack_units_per_rack:g} U of a rack")
