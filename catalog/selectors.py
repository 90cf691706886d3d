"""Reads of the catalog other apps call (the TCO engine's adapters, the API, the admin)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import CharField
from django.db.models import DateField
from django.db.models import F
from django.db.models import OuterRef
from django.db.models import Q
from django.db.models import QuerySet
from django.db.models import Subquery
from django.db.models.functions import Cast
from django.db.models.functions import Coalesce
from django.db.models.functions import JSONObject

from catalog.models import Accelerator
from catalog.models import AcceleratorThroughput
from catalog.models import CloudOffering
from catalog.models import EgressRate
from catalog.models import PricePoint
from catalog.models import Source
from catalog.models import SystemSku
from core.currency import Currency

#: Newest first; among prices of the same as-of date the last retrieved is the one in force.
PRICE_RECENCY = tuple(PricePoint._meta.ordering)


def visible_rows(team_ids: Collection[int] = ()) -> Q:
    """Public catalog rows and the rows of the teams ``team_ids``: prices (a team's are its
    confidential quotes), and the sources and offerings a team's quotes introduced."""
    return Q(team__isnull=True) | Q(team_id__in=list(team_ids))


def dense_tflops(accelerator: Accelerator) -> dict[str, Decimal]:
    """Dense peak throughput per precision: the preferred figure among every source's.

    Parameters
    ----------
    accelerator : Accelerator

    Returns
    -------
    dict
        ``{precision: tflops}`` [TFLOPS; TOPS for integer precisions]. Precisions whose only
        figures are with-sparsity or disputed are absent.

    Examples
    --------
    H100 SXM: ``{"FP16": Decimal("989.00"), "FP8": Decimal("1979.00"), ...}`` (seed-004), not the
    with-sparsity 1,979 FP16 of seeds 002/003.
    """
    # Iterates .all() so a prefetched list is used as is (the API prefetches throughputs).
    return {row.precision: row.tflops for row in accelerator.throughputs.all() if row.is_preferred}


@dataclass(frozen=True)
class ThroughputRatio:
    """How many of accelerator ``theirs`` match one ``ours`` by dense peak throughput."""

    ours: Accelerator
    theirs: Accelerator
    precision: str
    ours_tflops: Decimal
    theirs_tflops: Decimal
    sources: tuple[str, str]

    @property
    def factor(self) -> float:
        return float(self.ours_tflops / self.theirs_tflops)

    def describe(self) -> str:
        """'dense FP16 throughput: H100 989 TFLOPS (seed-004) / V100 112 TFLOPS (seed-004) = 8.83'."""
        return (f"dense {self.precision} throughput: {self.ours.slug} "
                f"{self.ours_tflops.normalize():f} TFLOPS ({self.sources[0]}) / {self.theirs.slug} "
                f"{self.theirs_tflops.normalize():f} TFLOPS ({self.sources[1]}) = {self.factor:.3g}")


def throughput_ratio(ours: Accelerator, theirs: Accelerator, precision: str) -> ThroughputRatio:
    """The catalog's preferred dense figures of two accelerators at one precision, as a ratio.

    Raises
    ------
    LookupError
        One of them has no preferred dense figure at that precision (the message says which).
    """
    rows = {row.accelerator_id: row for row in AcceleratorThroughput.objects.filter(
        accelerator__in=[ours, theirs], precision=precision, is_preferred=True).select_related("source")}
    missing = [a.slug for a in (ours, theirs) if a.pk not in rows]
    if missing:
        raise LookupError(f"no dense {precision} throughput for {' or '.join(missing)}")
    return ThroughputRatio(ours, theirs, precision, rows[ours.pk].tflops, rows[theirs.pk].tflops,
                           (str(rows[ours.pk].source), str(rows[theirs.pk].source)))


def _prices_of(target: CloudOffering | SystemSku, team_ids: Collection[int]) -> QuerySet[PricePoint]:
    target_field = "offering" if isinstance(target, CloudOffering) else "system"
    return PricePoint.objects.filter(visible_rows(team_ids), **{target_field: target})


def price_at(
    target: CloudOffering | SystemSku, *, on: dt.date, team_ids: Collection[int] = ()
) -> PricePoint | None:
    """The price in force on a date for the teams ``team_ids`` (none: public prices only).

    A quote of one of the teams with ``as_of`` on or before ``on`` is in force (the latest such
    quote); otherwise the public price with the latest ``as_of`` on or before ``on``.
    Prices of a cloud offering are per instance-hour; prices of a system are per unit.
    Returns None when the target has no such price.
    """
    return prices_at([target], on=on, team_ids=team_ids).get(target)


def prices_at(
    targets: Collection[CloudOffering | SystemSku], *, on: dt.date, team_ids: Collection[int] = ()
) -> dict[CloudOffering | SystemSku, PricePoint]:
    """`price_at` of several offerings and systems in one query: target -> its price in force; a
    target without one is absent.

    Each point comes with its source and its last check (`checked_on`), and names the very
    target it was asked for, so what the caller loaded with it (an offering's accelerator) is
    not read again.
    """
    wanted = {(type(target), target.pk): target for target in targets}
    ids = []  # the id of each target's price in force, offerings' and systems'
    for model, field in ((CloudOffering, "offering"), (SystemSku, "system")):
        if pks := [pk for kind, pk in wanted if kind is model]:
            ids.append(model.objects.filter(pk__in=pks).order_by()
                       .annotate(point=_in_force(field, on, team_ids)).values("point"))
    if not ids:
        return {}
    points = {}
    # One IN over their union: an OR of two INs would read every price.
    in_force = ids[0].union(*ids[1:], all=True) if len(ids) > 1 else ids[0]
    for point in PricePoint.objects.filter(pk__in=in_force).select_related("source", "last_check"):
        if point.offering_id is not None:
            point.offering = target = wanted[CloudOffering, point.offering_id]
        else:
            point.system = target = wanted[SystemSku, point.system_id]
        points[target] = point
    return points


def _in_force(field: str, on: dt.date, team_ids: Collection[int]) -> Subquery | Coalesce:
    """The id of the price in force of the offering or system (``field``) of the outer query."""
    # The teams' latest quote, else the latest public price: two subqueries in the order of the
    # (target, as_of) indexes, each stopping at its first row (see offerings_with_price_at).
    def latest(rows: Q) -> Subquery:
        return Subquery(PricePoint.objects.filter(rows, as_of__lte=on, **{field: OuterRef("pk")})
                        .order_by(*PRICE_RECENCY).values("id")[:1])

    public = latest(Q(team__isnull=True))
    return Coalesce(latest(Q(team_id__in=list(team_ids))), public) if team_ids else public


def regions_of(offering: CloudOffering, *, team_ids: Collection[int] = ()) -> list[CloudOffering]:
    """The offering's instance type and pricing model in every region: the offerings (public, or
    of the teams ``team_ids``) with its provider, instance type and pricing model."""
    return list(CloudOffering.objects.filter(
        visible_rows(team_ids), provider=offering.provider, instance_type=offering.instance_type,
        pricing_model=offering.pricing_model,
    ).select_related("accelerator"))


def cheapest_first(
    regions: Collection[CloudOffering], prices: Mapping[CloudOffering | SystemSku, PricePoint], *, end: str
) -> list[tuple[CloudOffering, PricePoint]]:
    """The regions (`regions_of`) that have a price in ``prices`` (`prices_at`), with it, cheapest
    first.

    Prices are compared at the ``end`` of their ranges (see `range_point`). USD prices come
    before others, which are not compared with them; an offering whose source names no region
    comes after every stated region, so it is the cheapest only when no region has a price.
    Equal prices go by region name.
    """
    priced = [(region, prices[region]) for region in regions if region in prices]
    return sorted(priced, key=lambda pair: (
        pair[0].region == CloudOffering.UNSPECIFIED_REGION, pair[1].currency != Currency.USD,
        range_point(pair[1], end), pair[0].region))


def egress_rates_at(providers: Collection[str], on: dt.date) -> dict[str, EgressRate]:
    """Each provider's newest published internet egress rate on or before ``on`` (a provider with
    none is missing from the answer)."""
    newest: dict[str, EgressRate] = {}
    rates = (EgressRate.objects.filter(provider__in=providers, as_of__lte=on)
             .select_related("source").order_by("provider", "-as_of"))
    for rate in rates:
        newest.setdefault(rate.provider, rate)
    return newest


def range_point(point: PricePoint, end: str) -> Decimal:
    """The price to cost at ``end`` ("low", "typical" or "high") of a point's quoted range.

    A range's typical price is its middle; a single or open-ended ("$X+") price is itself.
    """
    if point.amount_high is None or end == "low":
        return point.amount
    if end == "high":
        return point.amount_high
    return (point.amount + point.amount_high) / 2


def other_sources_prices(
    points: Collection[PricePoint], *, on: dt.date, team_ids: Collection[int] = ()
) -> dict[int, list[PricePoint]]:
    """For each point (by id), the latest price on or before ``on`` of each other source of its
    target: what the sources that were not chosen say, to show beside the price in force. One
    query for any number of points."""
    if not points:
        return {}
    by_target: dict[tuple[int | None, int | None], list[PricePoint]] = {}
    for point in points:
        by_target.setdefault((point.offering_id, point.system_id), []).append(point)
    targets = Q()
    for point in points:
        target = Q(offering=point.offering_id) if point.offering_id else Q(system=point.system_id)
        targets |= target & ~Q(source=point.source_id)
    others: dict[int, dict[int, PricePoint]] = {point.id: {} for point in points}
    prices = PricePoint.objects.filter(visible_rows(team_ids), targets, as_of__lte=on)
    for other in prices.select_related("source").order_by(*PRICE_RECENCY):
        for point in by_target[(other.offering_id, other.system_id)]:
            if other.source_id != point.source_id:
                others[point.id].setdefault(other.source_id, other)
    return {point_id: list(latest.values()) for point_id, latest in others.items()}


def price_history(
    target: CloudOffering | SystemSku,
    *,
    start: dt.date | None = None,
    end: dt.date | None = None,
    team_ids: Collection[int] = (),
) -> QuerySet[PricePoint]:
    """Every public price of the target, and the quotes of the teams ``team_ids``, with
    ``start <= as_of <= end``, newest first."""
    prices = _prices_of(target, team_ids).select_related("source")
    if start is not None:
        prices = prices.filter(as_of__gte=start)
    if end is not None:
        prices = prices.filter(as_of__lte=end)
    return prices.order_by(*PRICE_RECENCY)


def offerings_with_price_at(
    offerings: QuerySet[CloudOffering], *, on: dt.date, team_ids: Collection[int] = ()
) -> QuerySet[CloudOffering]:
    """Annotate each offering with ``price_in_force``: its price on ``on`` as a dict, or None.

    The price in force is chosen as in `price_at`, among public prices and the quotes of the
    teams ``team_ids``.

    One query for any number of offerings; the dict has the PricePoint's ``id``, ``amount`` and
    ``amount_high`` (decimal strings), ``currency``, ``as_of`` (ISO date), ``source`` (key) and
    ``checked_on`` (ISO date a refresh last found it current, or None).
    """
    # The teams' latest quote, else the latest public price: two subqueries in the order of
    # the (offering, as_of) indexes, each stopping at its first row. One subquery ordered by
    # "a team's first" read and sorted every price of the offering instead (1.1 s for 100,000
    # quote rows over two offerings; benchmarks/quote_filter.py).
    def latest(rows: Q) -> Subquery:
        return Subquery(
            PricePoint.objects.filter(rows, offering=OuterRef("pk"), as_of__lte=on)
            .order_by(*PRICE_RECENCY)
            .values(
                data=JSONObject(
                    id=F("id"),
                    # As text, so amounts keep every decimal instead of becoming JSON floats.
                    amount=Cast("amount", CharField()),
                    amount_high=Cast("amount_high", CharField()),
                    currency=F("currency"),
                    as_of=F("as_of"),
                    source=F("source__key"),
                    checked_on=Cast("last_check__checked_at", DateField()),
                )
            )[:1]
        )

    public = latest(Q(team__isnull=True))
    if not team_ids:
        return offerings.annotate(price_in_force=public)
    # COALESCE reads the public price only for offerings without a quote of the teams.
    return offerings.annotate(price_in_force=Coalesce(latest(Q(team_id__in=list(team_ids))), public))


@dataclass(frozen=True)
class Citation:
    """A document the figures came from, as a reader finds it: title, publisher or URL, date."""

    key: str
    title: str
    where: str  # the URL, or the kind of document and its path
    dated: dt.date | None


def source_citations(keys: Collection[str], *, team_id: int | None) -> tuple[Citation, ...]:
    """The catalog sources of these keys, each with its title, where and date, by key: public
    sources and those of the team ``team_id`` (another team's are not theirs to cite)."""
    by_key: dict[str, Source] = {}
    rows = (Source.objects.filter(visible_rows([team_id] if team_id else []), key__in=set(keys))
            .order_by("key", F("team").asc(nulls_last=True)))
    for row in rows:
        by_key.setdefault(row.key, row)  # a key both public and the team's: the team's own
    return tuple(Citation(key=row.key, title=row.title,
                          where=row.url or f"{row.get_kind_display()}: {row.document}".rstrip(": "),
                          dated=row.published_on or row.retrieved_on) for row in by_key.values())
