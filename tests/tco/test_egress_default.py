"""A rent option's internet egress: its own price per GB, else its provider's published rate in
the catalog (named with its tier and source), else nothing, said so (issue 49).

The scenario rents one p5.48xlarge at $50/h for 36 months (tests/tco/scenario_body.py) and sends
50 TB a month to the internet: at AWS's first-tier $0.09/GB that is 50 x 1,000 GB x $0.09 =
$4,500 a month, $162,000 over the 36 months (no discounting)."""
from __future__ import annotations

import pytest

from catalog.models import CloudOffering
from tests.tco.scenario_body import p5
from tests.tco.scenario_body import scenario_body

PATH = "rent.0.egress_usd_per_gb"


def evaluate(api, **option) -> dict:
    rent = {"offering": p5().pk, "price_usd_per_instance_hour": "50", **option}
    body = scenario_body(prices_as_of="2026-11-28", rent_options=[rent])
    response = api.post("/api/v1/evaluate/", body, content_type="application/json")
    assert response.status_code == 200, response.json()
    return response.json()


def total(data: dict) -> float:
    return data["result"]["rent"][0]["total_usd"]


def assumption(data: dict) -> dict:
    return next(row for row in data["assumptions"] if row["path"] == PATH)


def test_an_empty_egress_price_is_the_providers_published_rate_with_its_source(api, catalog):
    without = evaluate(api)
    data = evaluate(api, egress_tb_per_month="50")

    assert total(data) - total(without) == pytest.approx(50 * 1000 * 0.09 * 36)  # $162,000
    used = assumption(data)
    assert (used["value"], used["origin"], used["as_of"]) == (0.09, "catalog", "2026-11-28")
    assert "first 10 TB a month to the internet, US East (Ohio)" in used["source"]
    assert used["source_keys"] == ["skypilot-aws-egress"]


def test_the_options_own_egress_price_is_costed_instead(api, catalog):
    without = evaluate(api)
    data = evaluate(api, egress_tb_per_month="50", egress_usd_per_gb="0.05")

    assert total(data) - total(without) == pytest.approx(50 * 1000 * 0.05 * 36)  # $90,000
    assert (assumption(data)["value"], assumption(data)["origin"]) == (0.05, "scenario")


def test_a_provider_without_a_published_rate_costs_egress_at_nothing_and_says_so(api, catalog):
    lambda_h100 = CloudOffering.objects.get(provider="lambda", instance_type="gpu_8x_h100_sxm5")
    rent = {"offering": lambda_h100.pk, "price_usd_per_instance_hour": "26.80",
            "egress_tb_per_month": "50"}
    body = scenario_body(prices_as_of="2026-11-28", rent_options=[rent])
    data = api.post("/api/v1/evaluate/", body, content_type="application/json").json()

    assert data["result"]["rent"][0]["total_usd"] == pytest.approx(730 * 36 * 26.80)
    used = assumption(data)
    assert (used["value"], used["origin"]) == (0.0, "default")
    assert "no published internet egress rate of Lambda" in used["source"]
