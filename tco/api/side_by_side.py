"""Which scenarios a side-by-side request names (``?ids=``), for the JSON view here and the
downloads the reports app serves."""
from __future__ import annotations

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

from tco.models import Scenario
from tco.services.side_by_side import Column
from tco.services.side_by_side import side_by_side

SIDE_BY_SIDE_IDS = OpenApiParameter(
    "ids", str, required=True,
    description="Comma-separated scenario ids, 2 to 12, in the order to show them (versions are scenarios).")


def side_by_side_columns(request: Request, scenarios: QuerySet[Scenario]) -> list[Column]:
    """The columns of the scenarios ``?ids=`` names, among ``scenarios``; a 400 naming ``ids``."""
    try:
        ids = [int(part) for part in request.query_params.get("ids", "").split(",") if part]
    except ValueError as exc:
        raise ValidationError({"ids": ["give comma-separated scenario ids"]}) from exc
    visible = {s.pk: s for s in scenarios.filter(pk__in=ids)}
    missing = [pk for pk in ids if pk not in visible]
    if missing:
        raise ValidationError({"ids": [f"no scenario {pk} among yours" for pk in missing]})
    return side_by_side([visible[pk] for pk in ids])
