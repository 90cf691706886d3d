"""Import duty and non-recoverable VAT through the API, on the hand-checkable scenario.

Buying costs $400,000 of hardware up front (one DGX H100, no network, storage or spares): 19 %
VAT that cannot be recovered adds 0.19 x 400,000 = $76,000 at month 0, so the 36 months cost
$426,805.60 + $76,000 = $502,805.60 before tax. Renting pays none of it.
"""
from __future__ import annotations

import pytest

from tco.admin.scenarios import ScenarioAdmin
from tests.tco.scenario_body import scenario_body


def evaluate(api, **overrides) -> dict:
    response = api.post("/api/v1/evaluate/", scenario_body(**overrides), content_type="application/json")
    assert response.status_code == 200, response.json()
    return response.json()


def test_19_percent_vat_on_400000_of_hardware_costs_76000_more_up_front(api, catalog):
    without = evaluate(api)["after_tax"]
    with_vat = evaluate(api, import_duty_vat_share="0.19")["after_tax"]
    assert with_vat["buy"]["total_pre_tax_usd"] == pytest.approx(502_805.60, abs=0.01)
    assert with_vat["buy"]["total_pre_tax_usd"] - without["buy"]["total_pre_tax_usd"] == pytest.approx(
        76_000.00, abs=0.01)
    assert with_vat["rent"][0]["total_pre_tax_usd"] == without["rent"][0]["total_pre_tax_usd"]


def test_a_percent_typed_as_19_is_refused_naming_the_field(api, catalog):
    response = api.post("/api/v1/evaluate/", scenario_body(import_duty_vat_share="19"),
                        content_type="application/json")
    assert response.status_code == 400
    assert response.json()["import_duty_vat_share"] == [
        "19 looks like a percent: 19 % is 0.19 (Import duty and VAT is from 0 to 1)"]


def test_the_admin_form_has_the_new_input_with_its_section():
    hardware = dict(ScenarioAdmin.fieldsets)["Buy: hardware"]["fields"]
    assert "import_duty_vat_share" in hardware
