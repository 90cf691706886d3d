"""Rental prices by term: spot, on demand and 1 to 36-month commitments, today and forward.

A term structure holds, for one accelerator, today's price per accelerator-hour of each term it is
offered in, and where known its forward prices: the price a contract of that term starting at a
later month is expected to cost (a published index's forward curve, a broker's quote sheet).
Between two forward points the price is linear; before the first it is today's, beyond the last
it stays at the last.

``read_curve`` checks an imported curve (rows of date, term, price, source) and refuses it with
every problem named by row and column: a term outside the ladder, terms out of order or with a gap
within one date's curve, a price that is not a positive number, a date after today, no source.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Iterable
from collections.abc import Mapping
from dataclasses import dataclass
from dataclasses import field

import numpy as np
from numpy.typing import NDArray

SPOT = "spot"
ON_DEMAND = "on_demand"
#: Every term a curve may quote, shortest commitment first; numbers are months.
TERM_LADDER = (SPOT, ON_DEMAND, "1", "3", "6", "12", "24", "36")
_TERM_WORDS = {"spot": SPOT, "on demand": ON_DEMAND, "on_demand": ON_DEMAND, "on-demand": ON_DEMAND}
CURVE_COLUMNS = ("date", "term", "price", "source")


def term_months(term: str) -> int:
    """Months a term commits to; 0 for spot and on demand (paid month by month).

    Examples
    --------
    >>> term_months("12"), term_months("on_demand")
    (12, 0)
    """
    return int(term) if term.isdigit() else 0


def term_label(term: str) -> str:
    """The term as people say it.

    Examples
    --------
    >>> term_label("12"), term_label("1"), term_label("on_demand")
    ('12 months', '1 month', 'on demand')
    """
    if term.isdigit():
        return f"{term} month" + ("" if term == "1" else "s")
    return term.replace("_", " ")


@dataclass(frozen=True)
class TermPrice:
    """One term's price per accelerator-hour today [USD/h], its forward points (month of the
    contract's start, price [USD/h]) and where the figure comes from.

    As everywhere in the engine, "USD" stands for the currency the figures are computed in:
    ``currency`` names the one this price is quoted in, and a curve is converted to the
    scenario's before its strategies are costed (``TermStructure.currencies``).
    """

    term: str
    price_usd_per_accelerator_hour: float
    forward: tuple[tuple[float, float], ...] = ()
    source: str = ""
    currency: str = "USD"


@dataclass(frozen=True)
class TermStructure:
    """The prices of one accelerator by term, dated (``as_of``) and sourced per term."""

    prices: tuple[TermPrice, ...]
    as_of: datetime.date | None = None
    spot_interruption_overhead: float = 0.0

    def offered(self, term: str) -> bool:
        return any(price.term == term for price in self.prices)

    def price(self, term: str) -> TermPrice:
        for price in self.prices:
            if price.term == term:
                return price
        raise KeyError(term)

    def currencies(self) -> set[str]:
        """The currencies the prices are quoted in: one, for a curve that can be costed."""
        return {price.currency for price in self.prices}

    def commitment_terms(self) -> tuple[str, ...]:
        """The month terms offered, shortest first."""
        return tuple(term for term in TERM_LADDER[2:] if self.offered(term))

    def forward_usd(self, term: str, start_months: NDArray[np.float64]) -> NDArray[np.float64]:
        """Expected price per accelerator-hour of a contract of ``term`` starting at each month [USD/h].

        Examples
        --------
        >>> curve = TermStructure((TermPrice("12", 2.0, forward=((12, 2.4),)),))
        >>> curve.forward_usd("12", np.array([0.0, 6.0, 12.0, 24.0])).tolist()
        [2.0, 2.2, 2.4, 2.4]
        """
        quote = self.price(term)
        months = np.asarray(start_months, dtype=np.float64)
        if not quote.forward:
            return np.full(months.shape, quote.price_usd_per_accelerator_hour)
        points = ((0.0, quote.price_usd_per_accelerator_hour), *quote.forward)
        at, price = zip(*sorted(points), strict=True)
        return np.asarray(np.interp(months, at, price), dtype=np.float64)


@dataclass(frozen=True)
class CurveProblem:
    """Why one cell of an imported curve is refused: its row (as numbered in the file), column."""

    row: int
    column: str
    message: str

    def __str__(self) -> str:
        return f"row {self.row}, {self.column}: {self.message}"


class CurveError(ValueError):
    """An imported curve refused, with every problem found."""

    def __init__(self, problems: list[CurveProblem]) -> None:
        super().__init__("; ".join(str(problem) for problem in problems))
        self.problems = problems


@dataclass(frozen=True)
class CurveRow:
    """One checked row of an imported curve."""

    row: int
    date: datetime.date
    term: str
    price_usd_per_accelerator_hour: float
    source: str


@dataclass(frozen=True)
class Curve:
    """An imported curve: every dated, sourced row, checked; one term structure per date."""

    rows: tuple[CurveRow, ...]
    by_date: dict[datetime.date, TermStructure] = field(default_factory=dict)

    def latest(self) -> TermStructure:
        return self.by_date[max(self.by_date)]

    def history(self, term: str) -> tuple[tuple[datetime.date, float], ...]:
        """(date, price) of one term, oldest first: the series a price model is fitted on."""
        return tuple(
            sorted((row.date, row.price_usd_per_accelerator_hour) for row in self.rows if row.term == term)
        )


def _term(value: object) -> str | None:
    text = str(value).strip().lower()
    text = text.removesuffix("months").removesuffix("month").removesuffix("m").strip()
    term = _TERM_WORDS.get(text, text)
    return term if term in TERM_LADDER else None


def _check_row(
    number: int, row: Mapping[str, object], today: datetime.date, problems: list[CurveProblem]
) -> CurveRow | None:
    found = len(problems)
    unknown = sorted(set(row) - set(CURVE_COLUMNS))
    for column in unknown:
        problems.append(CurveProblem(number, column, f"unknown column; expected {', '.join(CURVE_COLUMNS)}"))
    raw_date = str(row.get("date") or "").strip()
    try:
        date = datetime.date.fromisoformat(raw_date)
    except ValueError:
        problems.append(CurveProblem(number, "date", f"{raw_date!r} is not a date (YYYY-MM-DD)"))
        date = None
    if date is not None and date > today:
        problems.append(CurveProblem(number, "date", f"{date} is in the future (today is {today})"))
    term = _term(row.get("term") or "")
    if term is None:
        problems.append(
            CurveProblem(
                number,
                "term",
                f"{row.get('term')!r} is not a term; one of {', '.join(map(term_label, TERM_LADDER))}",
            )
        )
    raw_price = str(row.get("price") or "").strip()
    try:
        price = float(raw_price)
    except ValueError:
        problems.append(
            CurveProblem(number, "price", "empty" if not raw_price else f"{raw_price!r} is not a number")
        )
        price = math.nan
    if not math.isnan(price) and (price <= 0 or math.isinf(price)):
        problems.append(
            CurveProblem(number, "price", f"{raw_price} must be a positive price per accelerator-hour")
        )
    source = str(row.get("source") or "").strip()
    if not source:
        problems.append(CurveProblem(number, "source", "empty: every price needs its source"))
    if len(problems) > found or date is None or term is None:
        return None
    return CurveRow(number, date, term, price, source)


def _check_date(rows: list[CurveRow], problems: list[CurveProblem]) -> None:
    """One date's terms: each once, in ladder order, the month terms with no gap between them."""
    previous = -1
    for row in rows:
        rank = TERM_LADDER.index(row.term)
        if rank == previous:
            problems.append(
                CurveProblem(row.row, "term", f"{term_label(row.term)} given twice for {row.date}")
            )
        elif rank < previous:
            problems.append(
                CurveProblem(
                    row.row,
                    "term",
                    f"{term_label(row.term)} after {term_label(TERM_LADDER[previous])}: "
                    "terms out of order (shortest first)",
                )
            )
        previous = max(previous, rank)
    months = sorted({TERM_LADDER.index(row.term) for row in rows if term_months(row.term)})
    for low, high in zip(months, months[1:], strict=False):
        if high - low > 1:
            missing = ", ".join(term_label(term) for term in TERM_LADDER[low + 1 : high])
            row = next(row for row in rows if TERM_LADDER.index(row.term) == high)
            problems.append(
                CurveProblem(
                    row.row,
                    "term",
                    f"gap in the curve of {row.date}: {missing} missing between "
                    f"{term_label(TERM_LADDER[low])} and {term_label(TERM_LADDER[high])}",
                )
            )


def read_curve(rows: Iterable[Mapping[str, object]], *, today: datetime.date, first_row: int = 2) -> Curve:
    """Check an imported curve and build its term structure per date.

    ``rows`` are mappings of the columns ``date, term, price, source`` (strings as read from a
    CSV, or typed values), numbered from ``first_row`` (2: the row under a header line).

    Examples
    --------
    >>> rows = [{"date": "2026-06-01", "term": "on demand", "price": "2.50", "source": "index"},
    ...         {"date": "2026-06-01", "term": "12", "price": "-2", "source": "index"}]
    >>> read_curve(rows, today=datetime.date(2026, 7, 1))
    Traceback (most recent call last):
    ...
    costmodel.term_structure.CurveError: row 3, price: -2 must be a positive price per accelerator-hour
    """
    problems: list[CurveProblem] = []
    checked = [_check_row(number, row, today, problems) for number, row in enumerate(rows, start=first_row)]
    good = [row for row in checked if row is not None]
    if not checked:
        problems.append(CurveProblem(first_row, "date", "the curve has no rows"))
    by_date: dict[datetime.date, list[CurveRow]] = {}
    for row in good:
        by_date.setdefault(row.date, []).append(row)
    for rows_of_date in by_date.values():
        _check_date(rows_of_date, problems)
    if problems:
        raise CurveError(
            sorted(
                problems,
                key=lambda problem: (
                    problem.row,
                    CURVE_COLUMNS.index(problem.column) if problem.column in CURVE_COLUMNS else 9,
                ),
            )
        )
    structures = {
        date: TermStructure(
            tuple(
                TermPrice(row.term, row.price_usd_per_accelerator_hour, source=row.source)
                for row in rows_of_date
            ),
            as_of=date,
        )
        for date, rows_of_date in sorted(by_date.items())
    }
    return Curve(tuple(good), structures)
