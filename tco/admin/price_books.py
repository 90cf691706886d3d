"""Admin for a team's contract price books: the agreement, its discounts and savings plans."""
from __future__ import annotations

from django.contrib import admin

from tco.models import ContractDiscount
from tco.models import ContractPriceBook
from tco.models import SavingsPlanCommitment
from teams.admin_mixins import TeamScopedAdminMixin


class ContractDiscountInline(admin.TabularInline):
    model = ContractDiscount
    extra = 0
    fields = ("share", "instance_family", "pricing_model", "excluded_instance_types")


class SavingsPlanInline(admin.TabularInline):
    model = SavingsPlanCommitment
    extra = 0
    fields = ("commitment_per_hour", "currency", "term_months", "plan_discount", "instance_family")


@admin.register(ContractPriceBook)
class ContractPriceBookAdmin(TeamScopedAdminMixin, admin.ModelAdmin):
    list_display = ("name", "provider", "team", "effective_from", "effective_to", "source")
    list_filter = ("provider",)
    inlines = [ContractDiscountInline, SavingsPlanInline]
