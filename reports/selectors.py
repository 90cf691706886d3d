"""Report exports a user may see: those of their teams' scenarios (others are not found: 404)."""

from __future__ import annotations

from django.db.models import QuerySet

from reports.models import ReportExport
from teams.models import Role
from teams.selectors import User
from teams.selectors import for_teams


def report_exports_for(user: User, *, role: Role = Role.VIEWER) -> QuerySet[ReportExport]:
    """Exports of the scenarios of the teams in which ``user`` has ``role`` or above."""
    return for_teams(ReportExport.objects.all(), user, team_path="scenario__team", role=role)
