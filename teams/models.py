"""Teams share one deployment without seeing each other's cases: a member's role in a team says
what they may do with the team's scenarios, runs, reports, alerts and quotes."""
from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import Q

from core.currency import Currency
from core.verdict_basis import VerdictBasis
from teams.finance_defaults import FINANCE_DEFAULTS
from teams.finance_defaults import FinanceFigure


class Role(models.TextChoices):
    """What a member may do in a team; each role may do everything the roles before it may."""

    VIEWER = "viewer", "Viewer (reads)"
    ANALYST = "analyst", "Analyst (edits, evaluates, runs, exports)"
    APPROVER = "approver", "Approver (also approves scenarios)"

    @classmethod
    def at_least(cls, role: Role) -> list[Role]:
        """The roles that include ``role``'s rights: ANALYST -> [ANALYST, APPROVER]."""
        members = list(cls)
        return members[members.index(role):]


class Team(models.Model):
    """A group of people whose scenarios, runs, reports, alerts and quotes are theirs alone."""

    name = models.CharField(max_length=200, unique=True)
    slug = models.SlugField(max_length=64, unique=True, help_text="How the API names the team.")
    reporting_currency = models.CharField(
        max_length=3, choices=Currency.choices, default=Currency.USD,
        help_text="The currency the team's figures are reported in (ISO 4217); inputs in other "
                  "currencies are converted at the rate of their date.")
    fiscal_year_start_month = models.PositiveSmallIntegerField(
        default=1, validators=[MinValueValidator(1), MaxValueValidator(12)],
        help_text="The month the team's fiscal year starts in (1 = January, 7 = July).")
    alert_margin_share = models.DecimalField(
        max_digits=4, decimal_places=3, default="0.100",
        validators=[MinValueValidator(0), MaxValueValidator(1)],
        verbose_name="alert when the winner's margin moves by more than (share)",
        help_text="A price change that moves the winner's margin over the next cheapest option by "
                  "more than this share of it (0.1 = 10 %) alerts the team; a change of winner "
                  "always does.")
    exchange_rate_tolerance_days = models.PositiveSmallIntegerField(
        null=True, blank=True, verbose_name="exchange rate tolerance (days)",
        help_text="How old the newest exchange rate before a figure's date may be before the "
                  "figures warn of its age (it is used all the same); empty = the site's "
                  "EXCHANGE_RATE_MAX_AGE_DAYS (7 by default).")
    verdict_basis = models.CharField(
        max_length=10, choices=VerdictBasis.choices, blank=True, default="",
        help_text="What the team's verdicts rank options on, unless a scenario chooses: before or "
                  "after tax; empty = after tax once a scenario has a tax rate, else before.")

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(condition=Q(reporting_currency__in=Currency.values),
                                   name="team_reporting_currency_known"),
            models.CheckConstraint(condition=Q(fiscal_year_start_month__gte=1)
                                   & Q(fiscal_year_start_month__lte=12),
                                   name="team_fiscal_year_start_month_1_12"),
        ]

    def __str__(self) -> str:
        return self.name


class Membership(models.Model):
    """A user's role in one team."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="memberships")
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.VIEWER)

    class Meta:
        ordering = ["team", "user"]
        constraints = [
            models.UniqueConstraint(fields=["user", "team"], name="membership_one_per_user_and_team"),
            models.CheckConstraint(condition=Q(role__in=Role.values), name="membership_role_known"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.team} ({self.role})"


class FinanceDefault(models.Model):
    """A team's own figure for one of the finance defaults new scenarios start from
    (teams/finance_defaults.py lists them with the reason for each)."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="finance_defaults")
    field = models.CharField(max_length=40, choices=[(name, name.replace("_", " ").capitalize())
                                                     for name in FINANCE_DEFAULTS])
    value = models.DecimalField(max_digits=16, decimal_places=6)
    reason = models.CharField(max_length=300, help_text="Where the figure comes from, or why.")

    class Meta:
        ordering = ["team", "field"]
        constraints = [
            models.UniqueConstraint(fields=["team", "field"], name="finance_default_one_per_field"),
            models.CheckConstraint(condition=Q(value__gte=0), name="finance_default_nonnegative"),
        ]

    def __str__(self) -> str:
        return f"{self.team}: {self.field} = {self.value}"


def team_finance_defaults(team: Team | None) -> dict[str, FinanceFigure]:
    """The finance defaults of a team: the table's, with the team's own figures over them."""
    figures = dict(FINANCE_DEFAULTS)
    if team is not None:
        figures.update({row.field: FinanceFigure(row.value, row.reason)
                        for row in team.finance_defaults.all()})
    return figures


class ApiTokenName(models.Model):
    """The name a user gave an API token ("budget sync"), so they know which one to revoke."""

    token = models.OneToOneField("knox.AuthToken", on_delete=models.CASCADE, primary_key=True,
                                 related_name="label")
    name = models.CharField(max_length=100)

    def __str__(self) -> str:
        return self.name
