"""The words and number formats people read: one label, unit and format per input and figure.

An input's words are declared with the input (``numeric(label=..., unit=..., kind=...)`` in
costmodel/inputs.py, costmodel/tax.py and costmodel/payment.py); ``INPUTS`` and ``TERMS`` gather
them by path. Every engine input path (``buy.system_price_usd``, ``rent.2.price_usd_per_instance_hour``),
every result figure (``rent.npv_saving_usd``, ``footprint.racks``) and every cash-flow line
(``capex_systems``) has one ``Term`` here. The admin, the API, the reports, chart axes, the
tornado and the recommendation sentence all read it, so a figure is named and shown the same
way everywhere. Indexed paths (``rent.2...``, ``cooling.0...``) share the term of ``rent.*``.

Formats (``Kind``): money to the cent with its currency and separators, unit prices to the cent
(or four significant digits below one unit), shares as percentages, months and counts as whole
numbers, physical quantities to a fixed number of digits; never float noise.

Money is in the reporting currency: the engine's ``_usd`` figures are in whatever currency the
inputs were converted into (the team's), so whoever shows them says which one with
``money_in("EUR")`` around the page, the report or the evaluation; US dollars read "$1,234.56",
any other currency its ISO code, "EUR 1,234.56".
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from collections.abc import Mapping
from collections.abc import Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from costmodel.inputs import ApiOption
from costmodel.inputs import BuyOption
from costmodel.inputs import Carbon
from costmodel.inputs import CoolingTier
from costmodel.inputs import Exchange
from costmodel.inputs import Facility
from costmodel.inputs import Finance
from costmodel.inputs import Goodput
from costmodel.inputs import RentOption
from costmodel.inputs import TokenMix
from costmodel.inputs import Workload
from costmodel.inputs import numeric_field_metadata
from costmodel.payment import Lease
from costmodel.tax import TaxTerms

_CURRENCY: ContextVar[str] = ContextVar("reporting_currency", default="USD")
# The one mark of a figure that is missing or does not apply, in every page, export and column.
MISSING = "–"


@contextmanager
def money_in(currency: str) -> Iterator[None]:
    """Show money in ``currency`` (ISO 4217) inside the block."""
    token = _CURRENCY.set(currency)
    try:
        yield
    finally:
        _CURRENCY.reset(token)


def money_currency() -> str:
    """The ISO code of the currency money is shown in ('USD' unless ``money_in`` says)."""
    return _CURRENCY.get()


def money_sign(currency: str | None = None) -> str:
    """What precedes an amount in ``currency`` (default: the one money is shown in): '$' for US
    dollars among US dollars, else the ISO code and a space ('EUR ', and 'USD ' beside euros, so
    a page in euros never reads "$").

    >>> money_sign("USD"), money_sign("EUR")
    ('$', 'EUR ')
    >>> with money_in("EUR"):
    ...     money_sign(), money_sign("USD")
    ('EUR ', 'USD ')
    """
    code = currency or _CURRENCY.get()
    return "$" if code == "USD" == _CURRENCY.get() else f"{code} "


def money(amount: float, decimals: int = 2, currency: str | None = None) -> str:
    """An amount with its currency (``money_sign``) and separators: '$1,234.50', '-EUR 45.60'.

    >>> money(1234.5), money(-45.6, currency="EUR"), money(412000, 0, "GBP")
    ('$1,234.50', '-EUR 45.60', 'GBP 412,000')
    """
    sign = "-" if round(amount, decimals) < 0 else ""
    return f"{sign}{money_sign(currency)}{abs(amount):,.{decimals}f}"


class Kind(StrEnum):
    """How a figure is shown."""

    USD = "usd"  # an amount: $1,234,567.89
    USD_PRICE = "usd_price"  # a unit price: $3.35, $0.0850
    SHARE = "share"  # a fraction shown as a percentage: 38.2%
    MONTH = "month"  # a whole month: 32 (None/NaN: "never")
    COUNT = "count"  # a whole number of things: 1,024
    QUANTITY = "quantity"  # a measured figure to ``digits`` decimals: 15.3
    TEXT = "text"
    FLAG = "flag"  # yes / no


WHOLE_KINDS = frozenset({Kind.MONTH, Kind.COUNT})


@dataclass(frozen=True)
class Term:
    """A figure's words: its label, its unit (empty when the format says it) and its format."""

    label: str
    unit: str
    kind: Kind
    digits: int = 2

    def show(self, value: Any) -> str:
        """The value as people read it, without the unit; see ``show``."""
        return show(value, self.kind, self.digits)

    def show_with_unit(self, value: Any) -> str:
        """The value and its unit: '15.3 kW', '$3.35 per GPU-hour', '38.2%'; a value that is not
        a figure stands alone ('never', 'n/a', 'no limit': not 'never month').

        >>> rack = Term("Rack power limit", "kW", Kind.QUANTITY, 1)
        >>> rack.show_with_unit(15.3), rack.show_with_unit(float("inf"))
        ('15.3 kW', 'no limit')
        >>> Term("Next generation launch", "month", Kind.MONTH).show_with_unit(float("nan"))
        'never'
        """
        text = self.show(value)
        if not self.unit or not _is_number(value) or not math.isfinite(float(value)):
            return text
        return f"{text} {self.unit}"

    def heading(self) -> str:
        """A column or axis heading: 'Label (unit)' or the label alone."""
        return f"{self.label} ({self.unit})" if self.unit else self.label


def _t(label: str, unit: str, kind: Kind, digits: int = 2) -> Term:
    return Term(label, unit, kind, digits)


USD, PRICE, SHARE, MONTH, COUNT, QTY = (Kind.USD, Kind.USD_PRICE, Kind.SHARE, Kind.MONTH,
                                         Kind.COUNT, Kind.QUANTITY)

# The sections of inputs, by the path prefix their terms are found under.
SCENARIO_SECTIONS: Mapping[str, type] = {
    "workload": Workload, "buy": BuyOption, "facility": Facility, "cooling.*": CoolingTier,
    "rent.*": RentOption, "api.*": ApiOption, "carbon": Carbon, "goodput": Goodput,
    "tokens": TokenMix, "finance": Finance, "exchange": Exchange,
}
# Terms of the scenario that no engine ``Scenario`` holds: its tax and the leases compared.
TERMS_SECTIONS: Mapping[str, type] = {"tax": TaxTerms, "finance_lease": Lease, "operating_lease": Lease}
# A lease's figures are named by the lease they belong to ("Finance lease payment").
_SECTION_WORDS = {"finance_lease": "Finance", "operating_lease": "Operating"}


def declared_terms(sections: Mapping[str, type]) -> dict[str, Term]:
    """Each numeric input's term, by dotted path, from its declaration (``inputs.numeric``)."""
    terms = {}
    for prefix, cls in sections.items():
        for name, meta in numeric_field_metadata(cls).items():
            label = meta["label"]
            if prefix in _SECTION_WORDS:
                label = f"{_SECTION_WORDS[prefix]} {label[0].lower()}{label[1:]}"
            terms[f"{prefix}.{name}"] = Term(label, meta["unit"], Kind(meta["kind"]), meta["digits"])
    return terms


# Engine inputs, by dotted path; rent options and cooling tiers by "rent.*" / "cooling.*".
INPUTS: dict[str, Term] = declared_terms(SCENARIO_SECTIONS)
# The tax and lease terms, by dotted path ("tax.rate", "finance_lease.term_months").
TERMS: dict[str, Term] = declared_terms(TERMS_SECTIONS)

# Result figures, by path in the result ("rent.*" for every rent option).
RESULTS: dict[str, Term] = {
    "horizon_months": _t("Horizon", "months", MONTH),
    "months": _t("Month", "", MONTH),
    "buy.total_usd": _t("Total cost of buying", "", USD),
    "buy.npv_usd": _t("NPV of buying", "", USD),
    "buy.total_capex_usd": _t("Up-front cost (capex)", "", USD),
    "buy.capex_usd": _t("Capex", "", USD),
    "buy.depreciation_usd_per_month": _t("Depreciation", "per month", USD),
    "buy.depreciation_line_usd": _t("Depreciation", "per month", USD),
    "buy.cost_per_useful_accelerator_hour_usd": _t("Cost per useful GPU-hour, buying", "", PRICE),
    "buy.cost_per_million_tokens_usd": _t("Cost per million tokens, buying", "", PRICE),
    "rent.name": _t("Rent option", "", Kind.TEXT),
    "rent.pricing_model": _t("Pricing", "", Kind.TEXT),
    "rent.total_usd": _t("Total cost of renting", "", USD),
    "rent.npv_usd": _t("NPV of renting", "", USD),
    "rent.cost_per_useful_accelerator_hour_usd": _t("Cost per useful GPU-hour, renting", "", PRICE),
    "rent.cost_per_million_tokens_usd": _t("Cost per million tokens, renting", "", PRICE),
    "rent.saving_usd": _t("Saving of buying", "", USD),
    "rent.npv_saving_usd": _t("NPV saving of buying", "", USD),
    "rent.breakeven_month": _t("Breakeven month", "", MONTH),
    "rent.breakeven_utilisation": _t("Breakeven utilisation", "", SHARE),
    "rent.irr_per_year": _t("IRR of buying over renting", "a year", SHARE),
    "buy.goodput": _t("Goodput", "", QTY, 2),
    "buy.carbon": _t("Emissions", "", QTY, 2),
    "buy.residual": _t("Residual value", "", USD),
    "rent.goodput": _t("Goodput", "", QTY, 2),
    "rent.carbon": _t("Emissions", "", QTY, 2),
    "rent.utilisation_slope_usd": _t("Cost change per unit of utilisation", "", USD),
    "rent.equivalence_factor": _t("Rented accelerators per own accelerator", "", QTY, 3),
    "rent.accelerators_rented": _t("Accelerators rented", "", QTY, 1),
    "rent.instances": _t("Instances rented", "", COUNT),
    "summary.breakeven_month": _t("Breakeven month", "", MONTH),
    "summary.npv_saving_usd": _t("NPV saving of buying", "", USD),
    "summary.saving_usd": _t("Saving of buying", "", USD),
    "summary.cost_per_useful_accelerator_hour_buy_usd": _t("Cost per useful GPU-hour, buying", "",
                                                            PRICE),
    "summary.cost_per_useful_accelerator_hour_rent_usd": _t("Cost per useful GPU-hour, renting", "",
                                                             PRICE),
    "summary.winner": _t("Cheaper option", "", Kind.TEXT),
    "footprint.accelerators_bought": _t("Accelerators bought", "", COUNT),
    "footprint.systems": _t("Systems", "", COUNT),
    "footprint.system_power_max_kw": _t("Power per system, maximum", "kW", QTY, 2),
    "footprint.system_power_idle_kw": _t("Power per system, idle", "kW", QTY, 2),
    "footprint.systems_per_rack": _t("Systems per rack", "", COUNT),
    "footprint.racks": _t("Racks", "", COUNT),
    "footprint.kw_per_rack": _t("Power per rack", "kW", QTY, 1),
    "footprint.it_kw_max": _t("IT power, maximum", "kW", QTY, 1),
    "footprint.it_kw_average": _t("IT power, average", "kW", QTY, 1),
    "footprint.facility_kw_max": _t("Facility power, maximum", "kW", QTY, 1),
    "footprint.facility_kw_average": _t("Facility power, average", "kW", QTY, 1),
    "footprint.mwh_per_year": _t("Energy per year", "MWh", QTY, 1),
    "footprint.cooling_tier_index": _t("Cooling tier number", "", COUNT),
    "footprint.cooling_tier_name": _t("Cooling technology", "", Kind.TEXT),
    "footprint.needs_new_cooling": _t("Needs new cooling", "", Kind.FLAG),
    "footprint.cooling_capex_usd_per_kw": _t("Cooling plant price", "per kW", USD),
    "footprint.cooling_opex_usd_per_kw_month": _t("Cooling plant running cost", "per kW-month", PRICE),
    "footprint.warnings": _t("Warnings", "", Kind.TEXT),
}

# Monthly cash-flow lines (and the capex lines they come from), by the engine's line name.
CASH_FLOW_LINES: dict[str, str] = {
    "capex_systems": "Systems",
    "capex_network": "Network",
    "capex_storage": "Storage",
    "capex_racks_install": "Rack installation",
    "capex_spares": "Spares",
    "capex_cooling_plant": "Cooling plant",
    "capex_facility_buildout": "Space build-out",
    "energy": "Electricity",
    "colocation": "Colocation",
    "owned_facility": "Owned space running cost",
    "cooling_plant_opex": "Cooling plant running cost",
    "support": "Support contract",
    "staff": "Staff",
    "licences": "Software licences",
    "loan_payments": "Loan payments",
    "residual_value": "Residual value (resale)",
    "carbon": "Carbon cost",
    "depreciation": "Depreciation (accounting, not cash)",
    "compute": "Instance hours",
    "upfront": "Up-front payments",
    "egress": "Data egress",
    "storage": "Cloud storage",
    "total": "Total",
    "cumulative": "Running total",
    # The capex lines a share of the hardware capex adds, named as their input is.
    **{f"capex_{meta['capex_line']}": meta["label"] for meta in numeric_field_metadata(BuyOption).values()
       if meta["capex_line"]},
}

_INDEX = re.compile(r"^(rent|cooling|api)\.(\d+)\.")


def generic_path(path: str) -> str:
    """'rent.2.price_usd_per_instance_hour' -> 'rent.*.price_usd_per_instance_hour'."""
    return _INDEX.sub(r"\1.*.", path)


def input_term(path: str) -> Term:
    """The term of an engine input path.

    An input added to the engine before its term (``test_vocabulary`` fails until it has one)
    is named by its field's words, so no page breaks over a missing label.
    """
    term = INPUTS.get(generic_path(path)) or TERMS.get(path)
    if term is None:
        words = path.rsplit(".", 1)[-1].replace("_usd", "").replace("_", " ")
        term = Term(words.capitalize(), "", Kind.QUANTITY, 4)
    return term


def result_term(path: str) -> Term:
    """The term of a result figure ('rent.npv_saving_usd', 'footprint.racks')."""
    return RESULTS[path]


def line_label(name: str) -> str:
    """Words for a cash-flow line; 'capex_systems' -> 'Systems' (a line without its words yet
    is named by its own, spaced: ``test_vocabulary`` fails until it has them)."""
    return CASH_FLOW_LINES.get(name) or name.replace("_", " ").capitalize()


def input_label(path: str, *, rent_names: Sequence[str] = (), cooling_names: Sequence[str] = (),
                api_names: Sequence[str] = ()) -> str:
    """An input's label, naming the rent option, per-token API or cooling tier an indexed path
    belongs to.

    >>> input_label("rent.0.price_usd_per_instance_hour", rent_names=["AWS p5.48xlarge, on-demand"])
    'Instance price, AWS p5.48xlarge, on-demand'
    >>> input_label("facility.pue")
    'PUE'
    """
    label = input_term(path).label
    match = _INDEX.match(path)
    if match:
        names = {"rent": rent_names, "api": api_names}.get(match.group(1), cooling_names)
        index = int(match.group(2))
        owner = names[index] if index < len(names) else f"{match.group(1)} option {index + 1}"
        label = f"{label}, {owner}"
    return label


def sentence_labels(paths: Sequence[str], *, rent_names: Sequence[str] = (),
                    cooling_names: Sequence[str] = (), api_names: Sequence[str] = ()) -> dict[str, str]:
    """Labels to put in a sentence ('the electricity price'), keeping acronyms and names."""

    def lowered(label: str) -> str:
        head, _, rest = label.partition(" ")
        head = head if head.isupper() else head.lower()
        return f"the {head}{' ' + rest if rest else ''}"

    return {path: lowered(input_label(path, rent_names=rent_names, cooling_names=cooling_names,
                                      api_names=api_names))
            for path in paths}


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) or hasattr(value, "dtype")


def show(value: Any, kind: Kind, digits: int = 2, currency: str | None = None) -> str:
    """A value as people read it.

    >>> show(1234567.891, Kind.USD), show(-45.6, Kind.USD), show(3.35264, Kind.USD_PRICE)
    ('$1,234,567.89', '-$45.60', '$3.35')
    >>> show(0.085, Kind.USD_PRICE), show(0.382, Kind.SHARE), show(32.0, Kind.MONTH)
    ('$0.0850', '38.2%', '32')
    >>> show(float("nan"), Kind.MONTH), show(15.299999999999999, Kind.QUANTITY, 1)
    ('never', '15.3')
    >>> show(float("inf"), Kind.QUANTITY), show(1024.0, Kind.COUNT), show(True, Kind.FLAG)
    ('no limit', '1,024', 'yes')
    """
    if kind is Kind.TEXT:
        return "" if value is None else str(value)
    if kind is Kind.FLAG:
        return "yes" if bool(value) else "no"
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "never" if kind is Kind.MONTH else "n/a"
    value = float(value)
    if math.isnan(value):
        return "never" if kind is Kind.MONTH else "n/a"
    if math.isinf(value):
        return "no limit"
    if kind is Kind.USD:
        return money(value, currency=currency)
    if kind is Kind.USD_PRICE:
        sign = "-" if value < 0 else ""
        size = abs(value)
        if size >= 1 or size == 0:
            return money(value, currency=currency)
        return f"{sign}{money_sign(currency)}{_significant(size, 3)}"
    if kind is Kind.SHARE:
        return f"{value:.1%}"
    if kind in WHOLE_KINDS:
        return f"{round(value):,}"
    if value == 0:
        return "0"  # a rate shown to 6 decimals would otherwise read "0.000000"
    return f"{value:,.{digits}f}"


def _significant(size: float, figures: int) -> str:
    """A positive amount below one with ``figures`` significant digits, trailing zeros kept."""
    decimals = max(2, figures - 1 - math.floor(math.log10(size)))
    return f"{size:.{decimals}f}"


def json_value(value: Any, kind: Kind) -> Any:
    """A figure for JSON: whole kinds as int (None for NaN), everything else unchanged.

    >>> json_value(32.0, Kind.MONTH), json_value(float("nan"), Kind.MONTH), json_value(0.5, Kind.SHARE)
    (32, None, 0.5)
    """
    if kind in WHOLE_KINDS and isinstance(value, float):
        return None if not math.isfinite(value) else round(value)
    return value


def usd_short(amount: float) -> str:
    """Money for a sentence or an axis: $1.23M, $45.6k, $789 (EUR 1.23M in euros).

    >>> usd_short(1_234_567), usd_short(-45_600), usd_short(789.4), usd_short(2.5e9)
    ('$1.23M', '-$45.6k', '$789', '$2.50B')
    """
    sign = "-" if amount < 0 else ""
    size = abs(amount)
    for scale, suffix, decimals in ((1e9, "B", 2), (1e6, "M", 2), (1e3, "k", 1)):
        if size >= scale:
            return f"{sign}{money_sign()}{size / scale:.{decimals}f}{suffix}"
    return f"{sign}{money_sign()}{size:.0f}"


def labelled(figures: Mapping[str, Any], prefix: str) -> list[tuple[str, str]]:
    """(label with unit, shown value) rows for a mapping of figures under ``prefix``.

    >>> labelled({"racks": 2.0, "facility_kw_max": 15.299999999999999}, "footprint")
    [('Racks', '2'), ('Facility power, maximum (kW)', '15.3')]
    """
    rows = []
    for name, value in figures.items():
        term = RESULTS[f"{prefix}.{name}"]
        rows.append((term.heading(), term.show(value)))
    return rows
