"""Contract price books over the API: a team's agreement with a provider, its discounts and its
savings plans written in one body (all or nothing), read and changed by the team's analysts as
its quotes are."""
from __future__ import annotations

from datetime import date
from datetime import timedelta
from decimal import Decimal

from django_filters import rest_framework as filters
from rest_framework import serializers
from rest_framework import viewsets

from catalog.api.exchange_rates import currency_field
from tco.models import ContractDiscount
from tco.models import ContractPriceBook
from tco.models import SavingsPlanCommitment
from tco.services.price_book_saves import price_book_create
from tco.services.price_book_saves import price_book_update
from teams.models import Team
from teams.permissions import TeamRolePermission
from teams.selectors import DEFAULT_TEAM_RULE
from teams.selectors import TeamChoiceError
from teams.selectors import for_teams


def share_field(help_text: str) -> serializers.DecimalField:
    # No bounds here: the validate_ methods say what was given and what is allowed.
    return serializers.DecimalField(max_digits=20, decimal_places=6, help_text=help_text)


class ContractDiscountSerializer(serializers.ModelSerializer):
    share = share_field("The share off list prices, 0 to 1: 0.10 = 10 % off.")

    class Meta:
        model = ContractDiscount
        fields = ["share", "instance_family", "pricing_model", "excluded_instance_types"]

    def validate_share(self, share: Decimal) -> Decimal:
        if not 0 <= share <= 1:
            raise serializers.ValidationError(
                f"{share.normalize():f} is outside 0 to 1: a discount is a share of the list "
                "price (0.10 = 10 % off), at most 1 (100 %)")
        return share


class SavingsPlanSerializer(serializers.ModelSerializer):
    currency = currency_field(required=False, help_text="The commitment's currency (ISO 4217); "
                                                        "default USD.")
    plan_discount = share_field("The plan's rates: list x (1 - this); 0 to below 1.")
    term_months = serializers.ChoiceField(
        choices=[12, 36], error_messages={"invalid_choice": '"{input}" months is no plan term; a '
                                                            "savings plan runs 12 or 36 months"})

    class Meta:
        model = SavingsPlanCommitment
        fields = ["commitment_per_hour", "currency", "term_months", "plan_discount", "instance_family"]

    def validate_plan_discount(self, share: Decimal) -> Decimal:
        if not 0 <= share < 1:
            raise serializers.ValidationError(
                f"{share.normalize():f} is outside 0 to below 1: the plan's rates are list x (1 - this)")
        return share

    def validate_commitment_per_hour(self, amount: Decimal) -> Decimal:
        if amount < 0:
            raise serializers.ValidationError(f"{amount.normalize():f} is below zero: a commitment "
                                              "is an amount per hour, zero or more")
        return amount


class PriceBookSerializer(serializers.ModelSerializer):
    """An agreement with a provider (an AWS EDP, an Azure MACC, a Google commitment): when it is in
    force, where it comes from, its discounts and its savings plans."""

    team = serializers.SlugRelatedField(
        slug_field="slug", queryset=Team.objects.all(), required=False,
        help_text="The team whose agreement this is (by slug). " + DEFAULT_TEAM_RULE + " It cannot move.")
    discounts = ContractDiscountSerializer(many=True, required=False, help_text=(
        "Shares off list prices; the most specific matching one applies. Given on an edit, they "
        "replace the book's."))
    savings_plans = SavingsPlanSerializer(many=True, required=False, help_text=(
        "Amounts per hour committed for 12 or 36 months. Given on an edit, they replace the book's."))

    class Meta:
        model = ContractPriceBook
        fields = ["id", "team", "provider", "name", "effective_from", "effective_to", "source",
                  "discounts", "savings_plans"]
        read_only_fields = ["id"]

    def validate(self, attrs: dict) -> dict:
        _whole_rows(attrs)
        current = self.instance
        start = attrs.get("effective_from", current.effective_from if current else None)
        end = attrs.get("effective_to", current.effective_to if current else None)
        if end is not None and start is not None and end < start:
            raise serializers.ValidationError({"effective_to": [
                f"{end} is before effective_from ({start}); empty = open-ended"]})
        if current is not None and attrs.get("team", current.team) != current.team:
            raise serializers.ValidationError({"team": ["a price book cannot move to another team"]})
        plans = attrs.get("savings_plans")
        if plans is None and current is not None:
            plans = [{"term_months": plan.term_months} for plan in current.savings_plans.all()]
        errors = [_longer_than_the_book(plan["term_months"], start, end) for plan in plans or []]
        if any(errors):
            # by the plan's index, as the nested serializers name theirs
            raise serializers.ValidationError({"savings_plans": {
                str(index): {"term_months": [error]} for index, error in enumerate(errors) if error}})
        return attrs

    def create(self, validated: dict) -> ContractPriceBook:
        discounts, plans = validated.pop("discounts", []), validated.pop("savings_plans", [])
        team = validated.pop("team", None)
        try:
            return price_book_create(user=self.context["request"].user, team=team, fields=validated,
                                     discounts=discounts, savings_plans=plans)
        except TeamChoiceError as exc:
            raise serializers.ValidationError({"team": [str(exc)]}) from exc

    def update(self, book: ContractPriceBook, validated: dict) -> ContractPriceBook:
        return price_book_update(book=book, discounts=validated.pop("discounts", None),
                                 savings_plans=validated.pop("savings_plans", None), fields=validated)


def _whole_rows(attrs: dict) -> None:
    """Discounts and plans replace the book's whole, so even in a PATCH each row is complete."""
    errors = {}
    for name, serializer in (("discounts", ContractDiscountSerializer),
                             ("savings_plans", SavingsPlanSerializer)):
        required = [field for field, declared in serializer().fields.items() if declared.required]
        missing = {str(index): {field: ["This field is required."] for field in required
                                if field not in row}
                   for index, row in enumerate(attrs.get(name) or [])}
        if any(missing.values()):
            errors[name] = {index: fields for index, fields in missing.items() if fields}
    if errors:
        raise serializers.ValidationError(errors)


def _longer_than_the_book(term_months: int, start: date | None, end: date | None) -> str:
    """Why a plan's commitment does not fit in the book's period ('' when it does)."""
    if start is None or end is None:
        return ""
    after = end + timedelta(days=1)  # whole months in force: 2026-01-01 to 2026-12-31 is 12
    if (after.year - start.year) * 12 + after.month - start.month - (after.day < start.day) >= term_months:
        return ""
    return (f"a commitment of {term_months} months is longer than the book, in force from {start} "
            f"to {end}; end the book later or commit for a shorter term")


class PriceBookFilterSet(filters.FilterSet):
    """Books by provider, team slug, name, and the books in force on a day."""

    team = filters.CharFilter(field_name="team__slug", label="Team (slug)")
    name = filters.CharFilter(lookup_expr="icontains")
    in_force_on = filters.DateFilter(method="in_force", label="In force on (date)")

    class Meta:
        model = ContractPriceBook
        fields = ["provider", "team", "name", "in_force_on"]

    def in_force(self, queryset, name: str, on: date):
        return queryset.filter(effective_from__lte=on).exclude(effective_to__lt=on)


class PriceBookViewSet(viewsets.ModelViewSet):
    """Your teams' contract price books with providers, newest first per provider.

    A rent option priced from the public catalog gets the best matching discount of its
    provider's book in force on the price date (and its savings plan, for on-demand); the
    evaluation shows list and contracted cost side by side. Analysts of the book's team write.
    """

    serializer_class = PriceBookSerializer
    filterset_class = PriceBookFilterSet
    permission_classes = [TeamRolePermission]
    team_path = "team"

    def get_queryset(self):
        books = ContractPriceBook.objects.select_related("team").prefetch_related("discounts",
                                                                                 "savings_plans")
        return for_teams(books, self.request.user)
