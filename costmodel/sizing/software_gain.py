"""How much faster the same chip serves the same model as its software matures, and what that is
worth over an asset's life.

`fit_yearly_gain` reads dated results of one configuration (same accelerator, model, weight
format, fleet and request shape) published at different dates: within each such group the log
of tokens/s per accelerator is regressed on the date, the groups sharing one slope (each
centred on its own mean, so a faster chip does not pass for a newer result). The yearly gain is
exp(slope) - 1. `life_average_factor` turns a yearly gain into the average throughput over a
life, as a multiple of today's: a fleet bought today serves today's rate on day one and
(1 + g)^t after t years.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

DAYS_PER_YEAR = 365.25


@dataclass(frozen=True)
class DatedResult:
    """One published tokens/s per accelerator, the configuration it belongs to and its date."""

    group: Hashable
    published_on: date
    tokens_per_s_per_accelerator: float
    label: str = ""


@dataclass(frozen=True)
class YearlyGain:
    """A fitted yearly software gain and the pairs of results it rests on."""

    per_year: float
    groups: tuple[str, ...]

    def describe(self) -> str:
        return (f"{self.per_year:.1%} a year, fitted on {len(self.groups)} configuration"
                f"{'' if len(self.groups) == 1 else 's'} measured at two dates or more: "
                f"{'; '.join(self.groups)}")


def fit_yearly_gain(results: Sequence[DatedResult]) -> YearlyGain | None:
    """The yearly gain shared by every group with results at two dates or more; None without one.

    Examples
    --------
    One configuration at 1,000 tokens/s, then 1,210 two years later: 1.21 = 1.1^2, 10 % a year.

    >>> a = DatedResult("x", date(2023, 1, 1), 1000.0, "x")
    >>> b = DatedResult("x", date(2025, 1, 1), 1210.0)
    >>> round(fit_yearly_gain([a, b]).per_year, 3)
    0.1
    """
    groups: dict[Hashable, list[DatedResult]] = {}
    for result in results:
        groups.setdefault(result.group, []).append(result)
    numerator = denominator = 0.0
    labels = []
    for members in groups.values():
        if len({m.published_on for m in members}) < 2:
            continue
        years = [m.published_on.toordinal() / DAYS_PER_YEAR for m in members]
        logs = [math.log(m.tokens_per_s_per_accelerator) for m in members]
        mean_year, mean_log = sum(years) / len(years), sum(logs) / len(logs)
        numerator += sum((y - mean_year) * (v - mean_log) for y, v in zip(years, logs, strict=True))
        denominator += sum((y - mean_year) ** 2 for y in years)
        first, last = min(members, key=lambda m: m.published_on), max(
            members, key=lambda m: m.published_on)
        labels.append(f"{first.label or last.label}: {first.tokens_per_s_per_accelerator:,.0f} on "
                      f"{first.published_on} to {last.tokens_per_s_per_accelerator:,.0f} on "
                      f"{last.published_on} tokens/s per accelerator")
    if denominator == 0.0:
        return None
    return YearlyGain(math.exp(numerator / denominator) - 1.0, tuple(labels))


def life_average_factor(gain_per_year: float, years: float) -> float:
    """Average throughput over ``years`` as a multiple of today's, at ``gain_per_year``:
    the mean of (1 + g)^t for t from 0 to the life, ((1 + g)^L - 1) / (L ln(1 + g)).

    Examples
    --------
    10 % a year over 5 years: (1.1^5 - 1) / (5 ln 1.1) = 0.6105 / 0.4766 = 1.281.

    >>> round(life_average_factor(0.10, 5.0), 3)
    1.281
    >>> life_average_factor(0.0, 5.0)
    1.0
    """
    if gain_per_year <= -1.0:
        raise ValueError("gain_per_year must be above -100 %")
    if gain_per_year == 0.0 or years <= 0.0:
        return 1.0
    rate = math.log1p(gain_per_year)
    return math.expm1(rate * years) / (rate * years)
