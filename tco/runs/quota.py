"""Each team's storage quota for run results: what its runs hold, and the check before a run starts.

The quota (``RUN_RESULTS_QUOTA_BYTES``, a request limit like the run's point limit) counts
the stored parts of every run of the team's scenarios, whatever their status, until the runs
are deleted. A run is refused before anything is written when its result could take the team
over the quota; what it could take is its points times the bytes of one row before
compression, an upper bound (a 10^6-point sweep with 50 rent options wrote 1.06 GB against
1.63 GB estimated).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.db.models import Count
from django.db.models import Sum

import costmodel as engine
from tco.models import SweepRun
from tco.runs.compute import OPTION_METRICS
from tco.runs.errors import RunSpecError
from tco.runs.specs import MonteCarloSpec
from tco.runs.specs import SensitivitySpec
from tco.runs.specs import SweepSpec
from teams.models import Team

QUOTA_FIELD = "result_storage"
FLOAT_BYTES = 8
# point, the buy side's cost per hour, buying's NPV, the winner's margin; the winner is a
# one-byte dictionary code. Each rent option adds its figures and its NPV, each per-token API its NPV.
FIXED_COLUMNS = 4
WINNER_BYTES = 1
# A sensitivity run stores one row of thirteen figures and names per input.
SENSITIVITY_ROW_BYTES = 13 * FLOAT_BYTES


@dataclass(frozen=True)
class TeamUsage:
    """What one team's runs hold against its quota."""

    team: Team
    runs: int
    used_bytes: int
    quota_bytes: int

    def to_json(self) -> dict:
        return {"team": self.team.slug, "runs": self.runs, "used_bytes": self.used_bytes,
                "quota_bytes": self.quota_bytes, "used_share": self.used_bytes / self.quota_bytes,
                "used": size_text(self.used_bytes), "quota": size_text(self.quota_bytes)}


def quota_bytes() -> int:
    """The quota of every team [bytes]."""
    return settings.RUN_RESULTS_QUOTA_BYTES


def team_usage(teams: Iterable[Team]) -> list[TeamUsage]:
    """Each team's stored run results, in the order given."""
    teams = list(teams)
    figures = dict.fromkeys((team.pk for team in teams), (0, 0))
    rows = (SweepRun.objects.filter(scenario__team__in=teams).values("scenario__team")
            .annotate(runs=Count("pk"), used=Sum("result_bytes")))
    figures.update({row["scenario__team"]: (row["runs"], row["used"] or 0) for row in rows})
    return [TeamUsage(team, *figures[team.pk], quota_bytes()) for team in teams]


def result_bytes_bound(spec: SweepSpec | MonteCarloSpec | SensitivitySpec, inputs: engine.Scenario) -> int:
    """The most a run's result can take in storage, before compression [bytes]."""
    if isinstance(spec, SensitivitySpec):
        return SENSITIVITY_ROW_BYTES * len(spec.paths or engine.numeric_input_paths(inputs))
    varied = len(spec.axes) if isinstance(spec, SweepSpec) else len(spec.distributions)
    options = (len(OPTION_METRICS) + 1) * len(inputs.rent) + len(inputs.api)
    row = FLOAT_BYTES * (FIXED_COLUMNS + varied + options) + WINNER_BYTES
    return spec.points_total * row


def quota_check(
    team: Team, spec: SweepSpec | MonteCarloSpec | SensitivitySpec, inputs: engine.Scenario
) -> None:
    """RunSpecError under ``result_storage`` when the run could take the team over its quota."""
    usage = team_usage([team])[0]
    needed = result_bytes_bound(spec, inputs)
    if usage.used_bytes + needed > usage.quota_bytes:
        raise RunSpecError(QUOTA_FIELD, (
            f"this run could store up to {size_text(needed)} and team {team.slug}'s {usage.runs:,} runs "
            f"hold {size_text(usage.used_bytes)} of its {size_text(usage.quota_bytes)} quota for run "
            f"results (RUN_RESULTS_QUOTA_BYTES): delete runs it no longer needs, or run fewer points"))


def size_text(size: int) -> str:
    """Bytes as a person reads them: 1.06 GB, 512.0 kB (powers of 1,000)."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if size >= scale:
            return f"{size / scale:,.2f} {unit}"
    return f"{size:,} bytes"
