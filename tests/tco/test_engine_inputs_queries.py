"""A stored scenario's engine inputs read the catalog in batches: its rows, the prices in force and
what the other sources say are read once for all its rent options, not once for each."""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from catalog.models import CloudOffering
from tco.models import RentOption
from tco.models import Scenario
from tco.services.engine_inputs import engine_case


def _queries(scenario: Scenario) -> int:
    fresh = Scenario.objects.get(pk=scenario.pk)  # nothing loaded with it
    with CaptureQueriesContext(connection) as queries:
        engine_case(fresh)
    return len(queries.captured_queries)


def test_more_rent_options_priced_from_the_catalog_read_no_more_queries(demo_scenarios):
    scenario = demo_scenarios["8x H100 training cluster"]
    before = _queries(scenario)
    priced = CloudOffering.objects.filter(
        accelerator=scenario.accelerator, team__isnull=True, prices__team__isnull=True,
        prices__as_of__lte=timezone.localdate()).distinct().order_by("pk")[:3]
    assert len(priced) == 3
    RentOption.objects.bulk_create([RentOption(scenario=scenario, offering=offering) for offering in priced])

    case = engine_case(Scenario.objects.get(pk=scenario.pk))
    assert len(case.inputs.rent) == len(scenario.rent_options.all()) == 6
    assert _queries(scenario) == before
