"""Every system and offering either can be costed in a scenario or says what it lacks; pickers
list the complete ones first, named as people name them."""

from __future__ import annotations

import pytest

from catalog.completeness import system_missing
from catalog.completeness import systems_with_completeness
from catalog.models import SystemSku

# The seeds' systems the catalog must cost: DGX/HGX H100, H200, B200, GB200 NVL72, MI300X
# platforms, L40S servers and seed-000's workstation rigs.
MUST_COST = [
    "dgx-h100", "hgx-h100-8gpu-server", "dgx-h200", "hgx-h200-8gpu-server", "dgx-b200",
    "hgx-b200-8gpu-server", "gb200-nvl72", "mi300x-8gpu-server", "server-4x-l40s",
    "workstation-rtx-4080", "workstation-rtx-4090", "workstation-rtx-6000-ada",
    "server-2x-rtx-4090", "server-4x-rtx-4090",
]


def test_the_seeds_systems_are_complete_with_sourced_price_power_and_size(catalog):
    complete = {s.slug: s for s in systems_with_completeness() if s.is_complete}
    assert set(MUST_COST) <= set(complete)
    for slug in MUST_COST:
        system = complete[slug]
        assert system_missing(system) == []
        for figure in ("power_max_kw", "power_idle_kw", "rack_units"):
            assert system.field_sources[figure], (slug, figure)
        assert system.prices.filter(team__isnull=True).exists(), slug


def test_dgx_h200_has_a_derived_price_range_and_power(catalog):
    dgx = SystemSku.objects.get(slug="dgx-h200")
    # seed-003's 8x H200 baseboard $280,000 + the DGX H100's premium over its baseboard
    # ($450,000-500,000 - $200,000): $530,000-580,000; 8 x 700 W + 4.6 kW host = 10.2 kW.
    assert (dgx.purchase_price_low_usd, dgx.purchase_price_high_usd) == (530000, 580000)
    assert (float(dgx.power_max_kw), float(dgx.power_idle_kw), dgx.rack_units) == (10.2, 3.06, 8)
    assert "catalog-assumptions" in dgx.field_sources["purchase_price_low_usd"]


def test_incomplete_systems_say_what_is_missing(catalog):
    incomplete = [s for s in systems_with_completeness() if not s.is_complete]
    assert incomplete, "components (modules, baseboards) cannot be costed alone"
    for system in incomplete:
        assert system_missing(system), system.slug
    module = SystemSku.objects.get(slug="b200-sxm-192gb-module")
    assert system_missing(module) == ["rack units (a component: cost the server that holds it)"]
    superchip = SystemSku.objects.get(slug="grace-hopper-superchip")
    assert system_missing(superchip) == ["a purchase price", "maximum power (kW)", "rack units"]


def test_systems_are_named_as_people_name_them(catalog):
    names = {s.slug: s.label for s in SystemSku.objects.select_related("accelerator")}
    assert names["dgx-h200"] == "NVIDIA DGX H200 (8x H200 SXM 141 GB)"
    assert names["gb200-nvl72"] == "NVIDIA GB200 NVL72 (72x GB200 192 GB)"
    assert names["server-4x-rtx-4090"] == "4-GPU server (4x RTX 4090 24 GB)"
    assert names["mi300x-8gpu-server"] == "AMD Instinct MI300X 8-GPU platform server (8x MI300X 192 GB)"


def test_the_api_lists_complete_systems_first_with_what_the_others_lack(admin_client, catalog):
    rows = admin_client.get("/api/v1/systems/", {"page_size": 100}).json()["results"]
    flags = [row["is_complete"] for row in rows]
    assert flags == sorted(flags, reverse=True) and True in flags and False in flags
    by_slug = {row["slug"]: row for row in rows}
    assert by_slug["dgx-h200"]["label"] == "NVIDIA DGX H200 (8x H200 SXM 141 GB)"
    assert by_slug["dgx-h200"]["missing"] == []
    assert by_slug["h100-sxm-8gpu-baseboard"]["missing"] == [
        "maximum power (kW)", "rack units (a component: cost the server that holds it)"]


@pytest.mark.parametrize(("term", "first"), [
    ("b200", "NVIDIA DGX B200 (8x B200 SXM 192 GB)"),
    ("h200", "NVIDIA DGX H200 (8x H200 SXM 141 GB)"),
])
def test_the_scenario_system_picker_offers_complete_systems_first(admin_client, catalog, term, first):
    answer = admin_client.get("/admin/autocomplete/", {
        "term": term, "app_label": "tco", "model_name": "scenario", "field_name": "system"}).json()
    texts = [row["text"] for row in answer["results"]]
    assert texts[0] == first
    assert any("incomplete: missing rack units" in text for text in texts), texts
    complete = ["incomplete" not in text for text in texts]
    assert complete == sorted(complete, reverse=True)
