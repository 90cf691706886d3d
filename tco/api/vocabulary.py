"""GET /api/v1/vocabulary/: the label, unit and format of every input path, figure and line.

A budgeting tool shows an evaluation's figures with the words the admin and the reports use:
``inputs["rent.*.price_usd_per_instance_hour"]`` for ``rent.2.price_usd_per_instance_hour``.
"""
from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from costmodel.vocabulary import CASH_FLOW_LINES
from costmodel.vocabulary import INPUTS
from costmodel.vocabulary import RESULTS
from costmodel.vocabulary import Kind
from costmodel.vocabulary import Term


class TermSerializer(serializers.Serializer):
    label = serializers.CharField(help_text="What people call the figure.")
    unit = serializers.CharField(help_text="Its unit; empty when the format says it ($, %).")
    display_format = serializers.ChoiceField(
        choices=[kind.value for kind in Kind],
        help_text="usd: $ to the cent; usd_price: a unit price; share: a fraction shown as a "
                  "percentage; month and count: whole numbers; quantity: `digits` decimals.")
    digits = serializers.IntegerField(help_text="Decimals shown for a quantity.")


class VocabularySerializer(serializers.Serializer):
    inputs = serializers.DictField(child=TermSerializer(), help_text=(
        "By engine input path; a rent option's or cooling tier's index is written `*`."))
    results = serializers.DictField(child=TermSerializer(), help_text=(
        "By figure path in an evaluation's result (`rent.*` for each rent option)."))
    cash_flow_lines = serializers.DictField(child=serializers.CharField(), help_text=(
        "Monthly cash-flow line name -> label."))


def _term(term: Term) -> dict:
    return {"label": term.label, "unit": term.unit, "display_format": term.kind.value,
            "digits": term.digits}


class VocabularyView(APIView):
    """Labels, units and display formats for everything an evaluation returns."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses=VocabularySerializer)
    def get(self, request):
        """Every input path, result figure and cash-flow line, in people's words."""
        return Response({"inputs": {path: _term(term) for path, term in INPUTS.items()},
                         "results": {path: _term(term) for path, term in RESULTS.items()},
                         "cash_flow_lines": CASH_FLOW_LINES})
