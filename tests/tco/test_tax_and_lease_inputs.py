"""Tax and lease terms are declared as every other input: refused in words naming the field, by
the API's validators, and the engine's own refusal mapped to its field without reading its text."""
from __future__ import annotations

import pytest

from tests.tco.scenario_body import scenario_body


@pytest.mark.parametrize(("field", "value", "words"), [
    ("tax_depreciation_months", 30,
     "Tax depreciation life must be a whole multiple of 12 (12, 24, ...), not 30"),
    ("declining_balance_factor", "4", "Declining-balance factor must be from 1 to 3, not 4"),
    ("tax_rate", "25", "Tax rate is a share from 0 to 1: 25 % is 0.25"),
    ("operating_lease_term_months", 0, "Operating lease term must be at least 1, not 0"),
    ("finance_lease_buyout_usd", "-5", "Finance lease buy-out must be at least 0, not -5"),
])
def test_tax_and_lease_terms_out_of_bounds_are_refused_in_words(api, catalog, field, value, words):
    response = api.post("/api/v1/evaluate/", scenario_body(**{field: value}), content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {field: [words]}


def test_a_finance_lease_no_interest_rate_explains_is_refused_naming_its_payment(api, catalog):
    # A first payment of $500,000 alone is more than the $400,000 of hardware: even at 100 % a
    # month the payments are worth more than the hardware, so no implicit rate links them.
    body = scenario_body(finance_lease_usd_per_month="500000", finance_lease_term_months=36)
    response = api.post("/api/v1/evaluate/", body, content_type="application/json")
    assert response.status_code == 400
    (message,) = response.json()["finance_lease_usd_per_month"]
    assert "no interest rate links them" in message
