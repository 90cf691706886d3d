"""What a user may see of scenarios and what hangs off them; every API view, serializer field and
admin page of these rows goes through here (another team's rows are not found: 404)."""
from __future__ import annotations

from django.db.models import QuerySet

from tco.models import PriceAlert
from tco.models import ProcurementPlan
from tco.models import Scenario
from tco.models import StrategyRun
from tco.models import SweepRun
from teams.models import Role
from teams.selectors import User
from teams.selectors import for_teams


def scenarios_for(user: User, *, role: Role = Role.VIEWER) -> QuerySet[Scenario]:
    """Scenarios of the teams in which ``user`` has ``role`` or above."""
    return for_teams(Scenario.objects.all(), user, role=role)


def sweep_runs_for(user: User, *, role: Role = Role.VIEWER) -> QuerySet[SweepRun]:
    """Runs over the scenarios of ``user``'s teams."""
    return for_teams(SweepRun.objects.all(), user, team_path="scenario__team", role=role)


def price_alerts_for(user: User) -> QuerySet[PriceAlert]:
    """Price alerts on the scenarios of ``user``'s teams."""
    return for_teams(PriceAlert.objects.all(), user, team_path="scenario__team")


def plans_for(user: User, *, role: Role = Role.VIEWER) -> QuerySet[ProcurementPlan]:
    """Procurement plans over the scenarios of ``user``'s teams."""
    return for_teams(ProcurementPlan.objects.all(), user, team_path="scenario__team", role=role)


def strategy_runs_for(user: User, *, role: Role = Role.VIEWER) -> QuerySet[StrategyRun]:
    """Strategy Monte Carlo runs over the scenarios of ``user``'s teams."""
    return for_teams(StrategyRun.objects.all(), user, team_path="scenario__team", role=role)
