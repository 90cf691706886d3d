"""Price snapshots of evaluated scenarios, and re-pricing with alerts after a price refresh.

The scenario: one DGX H100 bought at $400,000 (energy 10.2 kW x 730 h x $0.10 = $744.60 a month,
PUE 1, no colocation fee, no discounting, 36 months) against one Lambda 8x H100 instance used
730 h a month at the price the Lambda feed gives. Renting at $P an hour costs 730 P a month, and
buying breaks even in the first month m with 400,000 + 744.60 m <= 730 P m.
"""
from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from numpy.testing import assert_allclose

from catalog.models import Accelerator
from catalog.models import CloudOffering
from catalog.models import FacilityProfile
from catalog.models import PricePoint
from catalog.models import SystemSku
from catalog.refresh.services import price_refresh_run
from tco.models import AlertKind
from tco.models import PriceAlert
from tco.models import RentOption
from tco.models import Scenario
from tco.models import ScenarioSnapshot
from tco.models import SnapshotReason
from tco.services.repricing import moved
from tco.services.repricing import scenarios_reprice
from tco.services.scenarios import scenario_save
from tests.catalog.test_refresh import FEED_SETTINGS
from tests.catalog.test_refresh import lambda_payload
from tests.teams.members import member
from tests.teams.members import team

# Buy total over 36 months: 400,000 + 36 x 744.60 = 426,805.60.
BUY_TOTAL_USD = 400_000 + 36 * 744.60


@pytest.fixture
def planner(db):
    return member("planner")


@pytest.fixture
def lambda_refresh(catalog, tmp_path, django_capture_on_commit_callbacks):
    """Refresh Lambda with the 8x H100 at ``cents`` an hour; its commit re-prices (eagerly)."""
    runs = iter(range(1, 100))

    def refresh(cents: int):
        path: Path = lambda_payload(tmp_path / f"lambda-{next(runs)}.json", h100_cents=cents)
        with django_capture_on_commit_callbacks(execute=True):
            return price_refresh_run(provider="lambda", location=str(path), feed_settings=FEED_SETTINGS)

    return refresh


def lambda_h100() -> CloudOffering:
    return CloudOffering.objects.get(provider="lambda", instance_type="gpu_8x_h100_sxm5", region="global")


def make_scenario(owner, **option) -> Scenario:
    scenario = Scenario(
        team=team(), owner=owner, name="8x H100 vs Lambda",
        accelerator=Accelerator.objects.get(slug="h100-sxm-80gb"), accelerators=8,
        utilisation=Decimal("1"), system=SystemSku.objects.get(slug="dgx-h100"),
        system_price_usd=Decimal("400000"), facility=FacilityProfile.objects.get(slug="colo-air"),
        electricity_usd_per_kwh=Decimal("0.10"), pue=Decimal("1"), colocation_usd_per_kw_month=Decimal("0"),
        horizon_months=36, discount_rate_per_year=Decimal("0"), depreciation_months=60)
    return scenario_save(scenario=scenario, rent_options=[
        RentOption(name="Lambda 8x H100", offering=lambda_h100(), **option)])


@pytest.fixture
def evaluated(api, planner, lambda_refresh):
    """The scenario at $55.04 an hour, evaluated through the API (which snapshots it)."""
    lambda_refresh(5504)
    scenario = make_scenario(planner)
    response = api.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/")
    assert response.status_code == 200, response.json()
    return scenario


def test_evaluating_through_the_api_records_the_price_points_used(evaluated):
    snapshot = ScenarioSnapshot.objects.get(scenario=evaluated)

    point = lambda_h100().prices.get(source__kind="cloud_price_api")
    assert snapshot.reason == SnapshotReason.EVALUATED
    assert list(snapshot.price_points.all()) == [point]
    assert snapshot.prices[0]["price_point_id"] == point.pk
    assert snapshot.prices[0]["amount"] == "55.0400"
    (option,) = snapshot.options
    # 730 h x 55.04 = 40,179.20 a month; 400,000 / (40,179.20 - 744.60) = 10.14 -> month 11.
    assert (option["price_point_id"], option["winner"], option["breakeven_month"]) == (point.pk, "buy", 11)
    # 36 x 40,179.20 - 426,805.60 = 1,019,645.60
    assert_allclose(option["npv_saving_usd"], 36 * 730 * 55.04 - BUY_TOTAL_USD, rtol=1e-12)
    assert_allclose(option["npv_saving_usd"], 1_019_645.60, rtol=1e-12)


def test_a_changed_price_reprices_the_scenario_and_alerts_with_old_and_new_figures(evaluated, lambda_refresh):
    old_point = lambda_h100().prices.get(source__kind="cloud_price_api")

    job = lambda_refresh(2752)

    (alert,) = PriceAlert.objects.all()
    new_point = PricePoint.objects.get(offering=lambda_h100(), amount=Decimal("27.52"))
    assert (alert.scenario, alert.refresh_job, alert.kind) == (evaluated, job, AlertKind.BREAKEVEN_MOVED)
    assert (alert.old_price_point, alert.new_price_point) == (old_point, new_point)
    assert (alert.old_price_usd_per_instance_hour, alert.new_price_usd_per_instance_hour) == (
        Decimal("55.04"), Decimal("27.52"))
    # 730 h x 27.52 = 20,089.60 a month; 400,000 / (20,089.60 - 744.60) = 20.68 -> month 21.
    assert (alert.old_breakeven_month, alert.new_breakeven_month) == (11, 21)
    assert (alert.old_winner, alert.new_winner) == ("buy", "buy")
    # 36 x 20,089.60 - 426,805.60 = 296,420.00
    assert (alert.old_npv_saving_usd, alert.new_npv_saving_usd) == (
        Decimal("1019645.60"), Decimal("296420.00"))
    assert alert.rent_option == "Lambda 8x H100"
    assert "8x H100 vs Lambda" in alert.message and "month 11 -> month 21" in alert.message
    assert f"price point {new_point.pk}" in alert.message
    # The alert's figures are the new baseline.
    latest = evaluated.snapshots.order_by("-created_at", "-id").first()
    assert (latest.reason, latest.refresh_job, list(latest.price_points.all())) == (
        SnapshotReason.REPRICED, job, [new_point])


def test_a_price_that_flips_the_winner_alerts(evaluated, lambda_refresh):
    lambda_refresh(1000)

    (alert,) = PriceAlert.objects.all()
    # 730 h x $10 = 7,300 a month: 36 x 7,300 = 262,800 < 426,805.60, so renting wins and
    # buying never breaks even (400,000 / (7,300 - 744.60) = 61 months > 36).
    assert alert.kind == AlertKind.WINNER_CHANGED
    assert (alert.old_winner, alert.new_winner) == ("buy", "rent")
    assert (alert.old_breakeven_month, alert.new_breakeven_month) == (11, None)
    assert alert.new_npv_saving_usd == Decimal("-164005.60")  # 262,800 - 426,805.60
    assert "month 11 -> never" in alert.message


def test_small_moves_add_up_until_they_cross_the_threshold(evaluated, lambda_refresh, settings):
    settings.REPRICE_BREAKEVEN_THRESHOLD_MONTHS = 3
    evaluated.team.alert_margin_share = Decimal("1")  # the winner's margin alone never alerts here
    evaluated.team.save()
    # Breakeven at $50: 400,000 / (36,500 - 744.60) = 11.19 -> month 12 (1 month later);
    # at $45: 400,000 / (32,850 - 744.60) = 12.46 -> month 13 (2 months).
    lambda_refresh(5000)
    lambda_refresh(4500)
    assert not PriceAlert.objects.exists()

    lambda_refresh(4000)  # 400,000 / (29,200 - 744.60) = 14.06 -> month 15: 4 months after 11

    (alert,) = PriceAlert.objects.all()
    assert (alert.old_breakeven_month, alert.new_breakeven_month) == (11, 15)
    assert (alert.old_price_usd_per_instance_hour, alert.new_price_usd_per_instance_hour) == (
        Decimal("55.04"), Decimal("40.00"))


def test_a_move_below_the_threshold_is_no_alert(evaluated, lambda_refresh, settings):
    settings.REPRICE_BREAKEVEN_THRESHOLD_MONTHS = 11
    evaluated.team.alert_margin_share = Decimal("1")  # the winner's margin alone never alerts here
    evaluated.team.save()

    lambda_refresh(2752)  # month 11 -> 21: 10 months

    assert not PriceAlert.objects.exists()
    assert evaluated.snapshots.count() == 1  # the baseline stays the figures last reported


def test_a_refresh_with_no_new_price_reprices_nothing(evaluated, lambda_refresh):
    job = lambda_refresh(5504)

    assert job.prices_unchanged == 4
    assert not PriceAlert.objects.exists()
    assert evaluated.snapshots.count() == 1


def test_repricing_a_refresh_twice_alerts_once(evaluated, lambda_refresh):
    job = lambda_refresh(2752)

    again = scenarios_reprice(job_id=job.pk)

    assert again == []
    assert PriceAlert.objects.count() == 1


def test_a_scenario_edited_since_its_snapshot_gets_a_new_baseline_not_an_alert(evaluated, lambda_refresh):
    evaluated.name = "8x H100 vs Lambda, renamed"
    evaluated.save()

    job = lambda_refresh(2752)

    assert not PriceAlert.objects.exists()
    latest = evaluated.snapshots.order_by("-created_at", "-id").first()
    assert (latest.reason, latest.refresh_job, latest.options[0]["breakeven_month"]) == (
        SnapshotReason.REPRICED, job, 21)


def test_a_scenario_never_evaluated_gets_its_first_snapshot_from_the_repricing(planner, lambda_refresh):
    lambda_refresh(5504)
    scenario = make_scenario(planner)

    lambda_refresh(2752)

    assert not PriceAlert.objects.exists()
    assert scenario.snapshots.get().options[0]["breakeven_month"] == 21


def test_a_rent_option_with_its_own_price_is_not_repriced(planner, api, lambda_refresh):
    lambda_refresh(5504)
    scenario = make_scenario(planner, price_usd_per_instance_hour=Decimal("55.04"))
    api.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/")

    lambda_refresh(1000)

    assert not PriceAlert.objects.exists()
    assert scenario.snapshots.count() == 1
    assert scenario.snapshots.get().options[0]["price_point_id"] is None


def test_the_alerts_api_lists_the_users_own_alerts(evaluated, lambda_refresh, api, client):
    lambda_refresh(2752)
    someone_else = get_user_model().objects.create_user("someone")

    mine = api.get("/api/v1/price-alerts/").json()["results"]
    client.force_login(someone_else)
    theirs = client.get("/api/v1/price-alerts/").json()["results"]

    assert theirs == []
    (row,) = mine
    assert (row["scenario_name"], row["kind"], row["old_breakeven_month"], row["new_breakeven_month"]) == (
        "8x H100 vs Lambda", "breakeven_moved", 11, 21)
    assert (row["old_price_usd_per_instance_hour"], row["new_price_usd_per_instance_hour"]) == (
        "55.0400", "27.5200")


def test_the_admin_shows_alerts(evaluated, lambda_refresh, client):
    lambda_refresh(2752)
    client.force_login(get_user_model().objects.create_superuser("root", "root@example.com", "pw"))

    listing = client.get(reverse("admin:tco_pricealert_changelist"))
    page = client.get(reverse("admin:tco_pricealert_change", args=[PriceAlert.objects.get().pk]))

    assert listing.status_code == page.status_code == 200
    assert "8x H100 vs Lambda" in listing.content.decode()
    assert "month 11 -&gt; month 21" in page.content.decode()


@pytest.mark.parametrize(("before", "after", "kind"), [
    ({"winner": "buy", "breakeven_month": 11}, {"winner": "rent", "breakeven_month": None},
     AlertKind.WINNER_CHANGED),
    ({"winner": "buy", "breakeven_month": None}, {"winner": "buy", "breakeven_month": 30},
     AlertKind.BREAKEVEN_MOVED),  # from never to a month always counts
    ({"winner": "buy", "breakeven_month": 11}, {"winner": "buy", "breakeven_month": 14},
     AlertKind.BREAKEVEN_MOVED),  # 3 months = the threshold
    ({"winner": "buy", "breakeven_month": 11}, {"winner": "buy", "breakeven_month": 9}, None),
    ({"winner": "rent", "breakeven_month": None}, {"winner": "rent", "breakeven_month": None}, None),
])
def test_what_counts_as_moved(before, after, kind):
    assert moved(before, after, threshold_months=3) == kind


# --- the verdict over every option ------------------------------------------------------------
# The same scenario with a per-token API option at a flat minimum of $10,000 a month and no
# per-token price: 36 x 10,000 = 360,000, cheaper than buying (426,805.60) and than Lambda at
# $55.04 (36 x 730 x 55.04 = 1,446,451.20). The API wins by 426,805.60 - 360,000 = 66,805.60.


@pytest.fixture
def with_api(api, planner, lambda_refresh):
    """The scenario with the API option, evaluated (and snapshotted) with Lambda at ``cents``."""
    from tco.models import ApiOption

    def evaluated_at(cents: int) -> Scenario:
        lambda_refresh(cents)
        scenario = make_scenario(planner)
        Scenario.objects.filter(pk=scenario.pk).update(tokens_per_s_per_accelerator=Decimal("100"))
        ApiOption.objects.create(scenario=scenario, name="Hosted Llama", usd_per_million_input=Decimal("0"),
                                 usd_per_million_cached_input=Decimal("0"),
                                 usd_per_million_output=Decimal("0"), minimum_usd_per_month=Decimal("10000"))
        response = api.post(f"/api/v1/scenarios/{scenario.pk}/evaluate/")
        assert response.status_code == 200, response.json()
        return scenario

    return evaluated_at


def test_a_price_that_makes_renting_the_cheapest_of_every_option_alerts_naming_both_winners(
        with_api, lambda_refresh):
    with_api(5504)
    lambda_refresh(1000)  # 36 x 730 x $10 = 262,800: renting beats the API's 360,000

    alerts = list(PriceAlert.objects.all())
    assert len(alerts) == 1  # the rent option's own alert carries the verdict: one alert, not two
    (alert,) = alerts
    assert (alert.old_cheapest, alert.new_cheapest) == ("Pay per token: Hosted Llama", "Rent Lambda 8x H100")
    # Before: the API by 66,805.60 over buying; after: renting by 360,000 - 262,800 = 97,200.
    assert (alert.old_margin, alert.new_margin) == (Decimal("66805.60"), Decimal("97200.00"))
    assert alert.currency == "USD"


def test_a_price_that_moves_the_winners_margin_past_the_teams_share_alerts(with_api, lambda_refresh):
    # Lambda at $5: 36 x 730 x 5 = 131,400 wins; the API (360,000) is next: margin 228,600.
    # Buying never breaks even against Lambda at any of these prices, and Lambda stays the
    # cheaper of the two: the option's own figures never alert; only the verdict's margin moves.
    with_api(500)
    lambda_refresh(480)  # 126,144: margin 233,856, 2.3 % more: under the team's 10 %

    assert not PriceAlert.objects.exists()

    lambda_refresh(400)  # 105,120: margin 254,880, 11.5 % above the 228,600 last alerted on

    (alert,) = PriceAlert.objects.all()
    assert alert.kind == AlertKind.MARGIN_MOVED
    assert (alert.old_cheapest, alert.new_cheapest) == ("Rent Lambda 8x H100",) * 2
    assert (alert.old_margin, alert.new_margin) == (Decimal("228600.00"), Decimal("254880.00"))
    assert "margin over the next cheapest (NPV) $228,600.00 -> $254,880.00" in alert.message
