"""No admin form writes into another team: every add and change form of every registered model
admin and inline, opened by a member of team beta (an analyst, then a staff analyst), offers
none of team alpha's rows in its pickers, and a POST naming one of them is a form error that
writes nothing.

The walk is over ``admin.site``'s registry, so a model admin or inline added later is checked
without touching this file; a picker of a team-owned model no fixture row exists for fails the
walk until one is added below.
"""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib import admin
from django.forms import ModelChoiceField
from django.forms import ModelMultipleChoiceField
from django.test import RequestFactory
from django.urls import reverse

from catalog.models import CloudOffering
from catalog.models import PricePoint
from catalog.models import Source
from finops.models import CostTarget
from notifications.models import Subscription
from tco.models import ContractPriceBook
from tco.models import ProcurementPlan
from teams.admin_mixins import team_path_of
from teams.models import Membership
from teams.models import Role
from teams.models import Team
from tests.teams.members import member
from tests.teams.members import team


@pytest.fixture
def alpha_rows(alpha_scenario) -> dict[type, object]:
    """One alpha row of every team-owned model an admin form picks."""
    alpha = team("alpha")
    source = Source.objects.create(key="alpha-quote-2026", title="Alpha's quote", kind="quote",
                                   team=alpha)
    offering = CloudOffering.objects.create(provider="coreweave", instance_type="alpha-8x-h100",
                                            region="us-east", pricing_model="on_demand", team=alpha,
                                            accelerator=alpha_scenario.accelerator,
                                            accelerators_per_instance=8)
    PricePoint.objects.create(offering=offering, amount=Decimal("20"), currency="USD",
                              as_of=dt.date(2026, 11, 1), source=source, team=alpha,
                              retrieved_at=dt.datetime(2026, 11, 1, tzinfo=dt.UTC))
    plan = ProcurementPlan.objects.create(scenario=alpha_scenario, name="Alpha's plan", spec={})
    return {
        Team: alpha, type(alpha_scenario): alpha_scenario, Source: source, CloudOffering: offering,
        ProcurementPlan: plan,
        Subscription: Subscription.objects.create(team=alpha, channel="email", address="a@example.com"),
        ContractPriceBook: ContractPriceBook.objects.create(team=alpha, name="Alpha's EDP",
                                                            provider="aws", source="EDP 2026",
                                                            effective_from=dt.date(2026, 1, 1)),
    }


@pytest.fixture(params=["analyst", "staff analyst"])
def beta_member(request, db):
    return member(f"beta-{request.param.replace(' ', '-')}", of="beta", role=Role.ANALYST,
                  is_staff=request.param == "staff analyst")


def _forms(user):
    """(where, form class) of every admin add form and inline form ``user`` may open."""
    request = RequestFactory().get("/admin/")
    request.user = user
    for model, model_admin in admin.site._registry.items():
        if not model_admin.has_add_permission(request):
            continue
        yield f"{model._meta.label} add form", model_admin.get_form(request, None)
        for inline in model_admin.get_inline_instances(request, None):
            where = f"{model._meta.label} inline {inline.model._meta.label}"
            yield where, inline.get_formset(request, None).form


def _team_pickers(form_class):
    for name, field in form_class.base_fields.items():
        picks_rows = isinstance(field, ModelChoiceField | ModelMultipleChoiceField)
        if picks_rows and team_path_of(field.queryset.model):
            yield name, field


def test_no_admin_picker_offers_another_teams_rows(alpha_rows, beta_member):
    checked = []
    for where, form_class in _forms(beta_member):
        for name, field in _team_pickers(form_class):
            model = field.queryset.model
            assert model in alpha_rows, f"{where}: add an alpha {model.__name__} to alpha_rows"
            offered = set(field.queryset.values_list("pk", flat=True))
            assert alpha_rows[model].pk not in offered, f"{where}: '{name}' offers alpha's {model.__name__}"
            checked.append((where, name))
    # The walk reached the pickers the probe wrote through.
    assert ("notifications.Subscription add form", "team") in checked
    assert ("tco.ContractPriceBook add form", "team") in checked
    assert ("finops.CostTarget add form", "scenario") in checked
    assert len(checked) >= 9


def test_posting_another_teams_id_is_a_form_error_that_writes_nothing(client, alpha_rows, beta_member):
    client.force_login(beta_member)
    request = RequestFactory().get("/admin/")
    request.user = beta_member
    refused = 0
    for model, model_admin in admin.site._registry.items():
        if not model_admin.has_add_permission(request):
            continue
        form_class = model_admin.get_form(request, None)
        for name, field in _team_pickers(form_class):
            before = model.objects.count()
            url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_add")
            response = client.post(url, {name: alpha_rows[field.queryset.model].pk})

            assert model.objects.count() == before, f"{url} wrote a row with alpha's {name}"
            assert response.status_code == 200, url
            errors = response.context["adminform"].form.errors
            assert "Select a valid choice" in str(errors.get(name)), f"{url}: {name} accepted alpha's id"
            refused += 1
    assert refused >= 4


def test_a_row_cannot_join_two_teams(client, alpha_rows, outsider, beta_scenario):
    """An analyst of both teams cannot set a cost target of beta on alpha's scenario."""
    both = outsider
    Membership.objects.create(user=both, team=team("alpha"), role=Role.ANALYST)
    client.force_login(both)

    response = client.post(reverse("admin:finops_costtarget_add"), {
        "team": team("beta").pk, "scenario": alpha_rows[type(beta_scenario)].pk, "option": "buy",
        "starts_on": "2026-12-01", "alert_share": "0.1", "variancealert_set-TOTAL_FORMS": 0,
        "variancealert_set-INITIAL_FORMS": 0})

    assert not CostTarget.objects.exists()
    assert "another team" in str(response.context["adminform"].form.errors["scenario"])
