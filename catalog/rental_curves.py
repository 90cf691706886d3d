"""Rental term structures in the catalog: imported curves, and the curve a scenario reads.

A curve file is CSV with the columns ``date, term, price, source`` (prices per accelerator-hour
in the file's currency, US dollars unless the import names another; a term is spot, on demand or
1, 3, 6, 12, 24 or 36 months); scenarios read it converted at their rates
(``tco.services.strategies``). The engine's
``read_curve`` checks it (``costmodel.term_structure``): a file with any problem is refused whole,
each problem named by row and column, and nothing is written. A source is a public source's key
or title (or words whose slug is its key: "seed 003"); one the catalog does not know becomes a
public source of kind "quote".
"""

from __future__ import annotations

import csv
import datetime
import io
from decimal import Decimal

from django.db import transaction
from django.utils.text import slugify

from catalog.choices import SourceKind
from catalog.models import Accelerator
from catalog.models import RentalCurvePrice
from catalog.models import Source
from core.currency import Currency
from costmodel.term_structure import CURVE_COLUMNS
from costmodel.term_structure import TERM_LADDER
from costmodel.term_structure import CurveError
from costmodel.term_structure import CurveProblem
from costmodel.term_structure import TermPrice
from costmodel.term_structure import TermStructure
from costmodel.term_structure import read_curve


def import_rental_curve(*, accelerator: Accelerator, text: str, today: datetime.date,
                        currency: str = Currency.USD) -> int:
    """Write a curve file's prices (in ``currency``) for the accelerator, all or nothing; the
    count of new rows.

    A price already recorded for the same date and term is replaced by the file's (a corrected
    quote sheet). Raises CurveError naming each bad row and column, ValueError for a currency
    the catalog does not know.
    """
    if currency not in Currency.values:
        raise ValueError(f"currency: {currency!r} is not one of {', '.join(Currency.values)}")
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
    missing = [column for column in CURVE_COLUMNS if column not in (reader.fieldnames or ())]
    if missing:
        raise CurveError([CurveProblem(1, column, "column missing from the header") for column in missing])
    curve = read_curve(list(reader), today=today)
    created = 0
    with transaction.atomic():
        sources: dict[str, Source] = {}
        for row in curve.rows:
            if row.source not in sources:
                sources[row.source] = _source(row.source, today)
            _, new = RentalCurvePrice.objects.update_or_create(
                accelerator=accelerator, as_of=row.date, term=row.term,
                defaults={"price_per_accelerator_hour": Decimal(str(row.price_usd_per_accelerator_hour)),
                          "currency": currency, "source": sources[row.source]},
            )
            created += new
    return created


def _source(named: str, today: datetime.date) -> Source:
    public = Source.objects.filter(team__isnull=True)
    key = slugify(named)[:500] or "rental-curve"
    # By key as typed, by title, then by the key its words make ("seed 003" is seed-003).
    found = (public.filter(key=named).first() or public.filter(title=named).first()
             or public.filter(key=key).first())
    if found:
        return found
    return Source.objects.create(key=key, title=named, kind=SourceKind.QUOTE, retrieved_on=today,
                                 note="Named by an imported rental curve.")


def term_structure(accelerator: Accelerator, *, as_of: datetime.date) -> TermStructure | None:
    """The accelerator's latest curve dated on or before ``as_of`` (None: no curve yet), each term
    in the currency it was quoted in, with its source's title."""
    rows = RentalCurvePrice.objects.filter(accelerator=accelerator, as_of__lte=as_of)
    latest = rows.order_by("-as_of").values_list("as_of", flat=True).first()
    if latest is None:
        return None
    points = rows.filter(as_of=latest).select_related("source")
    prices = sorted(
        (TermPrice(point.term, float(point.price_per_accelerator_hour), source=point.source.title,
                   currency=point.currency)
         for point in points),
        key=lambda price: TERM_LADDER.index(price.term),
    )
    return TermStructure(tuple(prices), as_of=latest)


def curve_history(accelerator: Accelerator) -> list[tuple[datetime.date, dict[str, tuple[Decimal, str]]]]:
    """Each date's curve, newest first: (date, {term: (price per accelerator-hour, its currency)})."""
    history: dict[datetime.date, dict[str, tuple[Decimal, str]]] = {}
    for point in RentalCurvePrice.objects.filter(accelerator=accelerator).order_by("-as_of", "id"):
        history.setdefault(point.as_of, {})[point.term] = (point.price_per_accelerator_hour, point.currency)
    return list(history.items())
