"""GET /api/v1/scenarios/{id}/cash-flows/: the cash flows by month, fiscal quarter or year,
as JSON or as text/csv (``Accept: text/csv`` or ``?format=csv``) with the same figures."""
from __future__ import annotations

import csv
import io
from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BaseRenderer
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from core.csv_cells import inert
from tco.selectors import scenarios_for
from tco.services.cash_flows import PERIODS
from tco.services.cash_flows import cash_flow_table
from tco.services.evaluation import scenario_evaluate


class CashFlowCsvRenderer(BaseRenderer):
    """The table's rows as CSV: one header line of column names, then one line per period."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: dict | None = None) -> bytes:
        rows = data.get("rows") if isinstance(data, dict) else None
        out = io.StringIO()
        if rows is None:  # an error: its fields and messages
            writer = csv.writer(out)
            writer.writerow(["field", "message"])
            for field, messages in (data or {}).items():
                for message in messages if isinstance(messages, list) else [messages]:
                    writer.writerow([inert(str(field)), inert(str(message))])
            return out.getvalue().encode()
        columns = list(dict.fromkeys(name for row in rows for name in row))
        writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows({name: f"{value:.2f}" if isinstance(value, float) else value
                          for name, value in row.items()} for row in rows)
        return out.getvalue().encode()


class CashFlowTableSerializer(serializers.Serializer):
    currency = serializers.CharField(help_text="ISO 4217 code of every money figure.")
    period = serializers.ChoiceField(choices=PERIODS)
    fiscal_year_start_month = serializers.IntegerField(help_text="The team's, 1 = January.")
    first_month = serializers.CharField(help_text="Calendar month (YYYY-MM) of month 0.")
    rent_options = serializers.ListField(child=serializers.CharField(), help_text=(
        "Names of the rent options, in the order of the rent_<i>_... columns."))
    rows = serializers.ListField(child=serializers.DictField(), help_text=(
        "One per period: period (FY2027, FY2027 Q1 or 2026-07), buy_pre_tax, buy_tax_shield, "
        "buy_after_tax, book_depreciation, tax_depreciation, rent_<i>_pre_tax and "
        "rent_<i>_after_tax, to the cent."))


class CashFlowsView(APIView):
    permission_classes = [IsAuthenticated]
    renderer_classes = [JSONRenderer, CashFlowCsvRenderer]

    @extend_schema(
        parameters=[OpenApiParameter("period", OpenApiTypes.STR, enum=list(PERIODS),
                                     description="month, quarter or year (fiscal); default year")],
        responses={(200, "application/json"): CashFlowTableSerializer,
                   (200, "text/csv"): OpenApiTypes.STR})
    def get(self, request, pk: int):
        """The scenario's cash flows by fiscal year (or quarter, or month), before and after
        tax, in the scenario's reporting currency."""
        scenario = get_object_or_404(scenarios_for(request.user), pk=pk)
        period = request.query_params.get("period", "year")
        if period not in PERIODS:
            raise serializers.ValidationError({"period": [
                f"{period!r} is not one of {', '.join(PERIODS)}"]})
        evaluation = scenario_evaluate(scenario=scenario)  # a refusal: the API's 400 handler
        table = cash_flow_table(scenario, evaluation, period)
        response = Response(CashFlowTableSerializer(table.to_dict()).data)
        if request.accepted_renderer.format == "csv":
            response["Content-Disposition"] = (f'attachment; filename="scenario-{scenario.pk}-'
                                               f'cash-flows-by-{period}.csv"')
        return response
