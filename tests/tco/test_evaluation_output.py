"""API v1's evaluation output is declared field by field: it says what the engine computed, no
more and no less, and a renamed engine figure fails here instead of changing the API."""
from __future__ import annotations

import io
import json
from dataclasses import fields
from decimal import Decimal

import pytest
import yaml
from django.core.management import call_command

from catalog.models import TokenApiPrice
from costmodel.footprint import Footprint
from costmodel.result import ApiResult
from costmodel.result import BuyResult
from costmodel.result import CashFlows
from costmodel.result import Emissions
from costmodel.result import GoodputResult
from costmodel.result import RentResult
from costmodel.result import Residual
from costmodel.result import Result
from tco.api.evaluation import ApiResultSerializer
from tco.api.evaluation import BuyResultSerializer
from tco.api.evaluation import CashFlowsSerializer
from tco.api.evaluation import EmissionsSerializer
from tco.api.evaluation import EvaluationResultSerializer
from tco.api.evaluation import EvaluationSerializer
from tco.api.evaluation import EvaluationWarningSerializer
from tco.api.evaluation import FootprintSerializer
from tco.api.evaluation import GoodputSerializer
from tco.api.evaluation import InputAssumptionSerializer
from tco.api.evaluation import PriceUsedSerializer
from tco.api.evaluation import RentResultSerializer
from tco.api.evaluation import RentSummarySerializer
from tco.api.evaluation import ResidualSerializer
from tco.models import ApiOption
from tco.services.engine_inputs import Assumption
from tco.services.engine_inputs import EvaluationWarning
from tco.services.engine_inputs import PriceUsed
from tco.services.evaluation import Evaluation
from tco.services.evaluation import scenario_evaluate

pytestmark = pytest.mark.django_db

SERVE_8B = {"mode": "inference", "model": "llama-3.1-8b", "tokens_per_s": 5000}


@pytest.mark.parametrize(("serializer", "engine_class"), [
    (CashFlowsSerializer, CashFlows), (GoodputSerializer, GoodputResult),
    (ResidualSerializer, Residual), (EmissionsSerializer, Emissions),
    (BuyResultSerializer, BuyResult), (RentResultSerializer, RentResult),
    (ApiResultSerializer, ApiResult), (FootprintSerializer, Footprint),
    (InputAssumptionSerializer, Assumption), (PriceUsedSerializer, PriceUsed),
    (EvaluationWarningSerializer, EvaluationWarning),
])
def test_each_output_serializer_names_every_field_of_its_engine_record(serializer, engine_class):
    assert list(serializer().fields) == [f.name for f in fields(engine_class)]


def test_the_result_serializer_names_what_the_result_writes():
    # batch_shape is always () for one scenario and the tornado is read through the evaluation.
    written = [f.name for f in fields(Result) if f.name not in ("batch_shape", "tornado")]
    assert sorted(EvaluationResultSerializer().fields) == sorted([*written, "summary"])
    assert list(RentSummarySerializer().fields) == [
        "breakeven_month", "npv_saving_usd", "saving_usd",
        "cost_per_useful_accelerator_hour_buy_usd", "cost_per_useful_accelerator_hour_rent_usd",
        "winner"]
    # Issue 28: the throughput's range is written inside the sizing (sizing.throughput_range).
    fields_of_evaluation = [f.name for f in fields(Evaluation)
                            if f.name not in ("inputs", "throughput")]
    # Issue 23: "billing" states how each rent option of the inputs is billed (read from them);
    # issue 25: "priced_for" says whose prices POST /evaluate/ used (the view adds it); each
    # per-token API billed for the fleet's own tokens ("api_at_fleet_tokens") is read from both.
    assert sorted(EvaluationSerializer().fields) == sorted([*fields_of_evaluation, "billing",
                                                            "priced_for", "api_at_fleet_tokens"])


def _as_json(evaluation: Evaluation) -> tuple[str, str]:
    """The evaluation dict and the serializer's output, both as JSON text (12 is not 12.0)."""
    written = evaluation.to_dict()
    return (json.dumps(EvaluationSerializer(written).data, sort_keys=True),
            json.dumps(written, sort_keys=True))


@pytest.mark.parametrize("name", ["8x H100 training cluster",
                                  "Inference fleet: 32x L40S vs cloud",
                                  "256x B200 build with liquid cooling"])
def test_the_output_is_the_evaluation_for_each_demo_scenario(demo_scenarios, name):
    served, written = _as_json(scenario_evaluate(scenario=demo_scenarios[name]))

    assert served == written
    assert '"breakeven_month": ' in served  # figures are there, not an empty shell


def test_the_output_is_the_evaluation_with_api_options_and_a_sizing(demo_scenarios):
    scenario = demo_scenarios["Inference fleet: 32x L40S vs cloud"]
    scenario.token_input_share, scenario.token_output_share = Decimal("0.8"), Decimal("0.2")
    scenario.sizing, scenario.accelerators = SERVE_8B, None
    scenario.save()
    ApiOption.objects.create(scenario=scenario,
                             price=TokenApiPrice.objects.get(model_name="large model"))
    evaluation = scenario_evaluate(scenario=scenario)
    served, written = _as_json(evaluation)

    assert len(evaluation.result.api) == 1 and evaluation.sizing is not None
    assert served == written


def test_the_schema_types_the_figures(tmp_path):
    path = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(path), stdout=io.StringIO(), stderr=io.StringIO())
    components = yaml.safe_load(path.read_text())["components"]["schemas"]

    rent = components["RentResult"]["properties"]
    assert rent["breakeven_month"] == {"type": "integer", "nullable": True,
                                       "description": "Breakeven month"}
    assert rent["npv_usd"]["type"] == "number"
    assert components["EvaluationResult"]["properties"]["rent"]["items"] == {
        "$ref": "#/components/schemas/RentResult"}
    assert components["Evaluation"]["properties"]["result"] == {
        "$ref": "#/components/schemas/EvaluationResult"}
