"""Exchange rates over the API: the ECB's (public, read-only: the feed writes them) and a team's
own, entered with their source. A rate is history: a correction is a new row, so rows are
listed, read and added, never changed."""
from __future__ import annotations

from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError
from django.db import transaction
from django_filters import rest_framework as filters
from rest_framework import mixins
from rest_framework import serializers
from rest_framework import viewsets

from catalog.choices import SourceKind
from catalog.models import ExchangeRate
from catalog.models import Source
from catalog.selectors import visible_rows
from core.currency import Currency
from teams.models import Team
from teams.permissions import TeamRolePermission
from teams.selectors import DEFAULT_TEAM_RULE
from teams.selectors import TeamChoiceError
from teams.selectors import team_for_new_object
from teams.selectors import team_ids_of

UNKNOWN_CURRENCY = ('"{input}" is not an ISO 4217 currency this service knows; use one of '
                    + ", ".join(Currency.values))


def currency_field(**kwargs) -> serializers.ChoiceField:
    """An ISO 4217 code among those the catalog knows; another is refused naming what is allowed."""
    return serializers.ChoiceField(choices=Currency.choices,
                                   error_messages={"invalid_choice": UNKNOWN_CURRENCY}, **kwargs)


class ExchangeRateSerializer(serializers.ModelSerializer):
    """One ``base`` is worth ``rate`` ``quote`` on ``on`` (1 EUR = 1.1649 USD on 2026-03-04)."""

    base = currency_field(help_text="The currency one unit of which the rate prices (ISO 4217).")
    quote = currency_field(help_text="The currency the rate is given in (ISO 4217).")
    source = serializers.CharField(
        max_length=200, help_text="Where the rate comes from, by key: a source of your team or the "
                                  "catalog, or a new one of your team (then give source_title).")
    source_title = serializers.CharField(
        max_length=300, required=False,
        help_text="The source's title: 'Treasury rate sheet, March 2026' (a new source's; read: "
                  "the source's title).")
    team = serializers.SlugRelatedField(
        slug_field="slug", queryset=Team.objects.all(), required=False,
        help_text="The team whose rate this is (by slug). " + DEFAULT_TEAM_RULE + " Null on the ECB's "
                  "public rates.")

    class Meta:
        model = ExchangeRate
        fields = ["id", "base", "quote", "rate", "on", "source", "source_title", "team", "retrieved_at"]
        read_only_fields = ["id", "retrieved_at"]
        validators: list = []  # one rate a pair, day and source: checked on saving, as a 400

    def to_representation(self, instance: ExchangeRate) -> dict:
        data = super().to_representation(instance)
        data.update(source=instance.source.key, source_title=instance.source.title)
        return data

    def validate(self, attrs: dict) -> dict:
        """The model's rule, the admin's too (``ExchangeRate.clean``)."""
        row = ExchangeRate(**{name: attrs[name] for name in ("base", "quote", "rate", "on")})
        try:
            row.clean()
        except DjangoValidationError as exc:
            raise serializers.ValidationError(exc.message_dict) from exc
        return attrs

    @transaction.atomic
    def create(self, validated: dict) -> ExchangeRate:
        user = self.context["request"].user
        try:
            team = team_for_new_object(user, team=validated.pop("team", None))
        except TeamChoiceError as exc:
            raise serializers.ValidationError({"team": [str(exc)]}) from exc
        title = validated.pop("source_title", "")
        key = validated.pop("source")
        source = (Source.objects.filter(visible_rows([team.pk]), key=key).order_by("team").first()
                  or Source.objects.create(key=key, title=title or key, team=team,
                                           kind=SourceKind.REFERENCE_DOCUMENT))
        try:
            with transaction.atomic():
                return ExchangeRate.objects.create(team=team, source=source, **validated)
        except IntegrityError as exc:
            raise serializers.ValidationError({"on": [
                f"the source '{key}' already has a {validated['base']}/{validated['quote']} rate on "
                f"{validated['on']}; a correction cites its own source"]}) from exc


class ExchangeRateFilterSet(filters.FilterSet):
    """Rates by pair, date or range of dates, source key, team slug, and public or a team's."""

    base = filters.MultipleChoiceFilter(choices=Currency.choices)
    quote = filters.MultipleChoiceFilter(choices=Currency.choices)
    on = filters.DateFilter()
    on_after = filters.DateFilter(field_name="on", lookup_expr="gte", label="On or after")
    on_before = filters.DateFilter(field_name="on", lookup_expr="lte", label="On or before")
    source = filters.CharFilter(field_name="source__key")
    team = filters.CharFilter(field_name="team__slug", label="Team (slug)")
    public = filters.BooleanFilter(field_name="team", lookup_expr="isnull",
                                   label="Public (the ECB's) rather than a team's")

    class Meta:
        model = ExchangeRate
        fields = ["base", "quote", "on", "on_after", "on_before", "source", "team", "public"]


class ExchangeRateViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, mixins.CreateModelMixin,
                          viewsets.GenericViewSet):
    """Exchange rates, newest first: the ECB's public reference rates and your teams' own.

    POST adds one of your team's (an analyst's): a pair, a rate above zero, the day it applies
    to and its source. Rates are never changed: a correction is a new row with its source.
    """

    queryset = ExchangeRate.objects.select_related("source", "team")
    serializer_class = ExchangeRateSerializer
    filterset_class = ExchangeRateFilterSet
    permission_classes = [TeamRolePermission]
    team_path = "team"

    def get_queryset(self):
        return super().get_queryset().filter(visible_rows(team_ids_of(self.request.user)))
