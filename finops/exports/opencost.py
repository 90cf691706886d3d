"""An owned fleet's hourly cost as the price sheets of a cluster's own cost tools.

The rate is the scenario's cost per useful accelerator-hour of buying: everything buying costs
over the horizon (amortised capex net of resale, power, cooling, space, support, staff,
licences) over the accelerator-hours that do useful work at the scenario's utilisation and
goodput. Charged on the GPU-hours a cluster allocates, it recovers the whole cost when the
fleet is as busy as the scenario assumed; CPU and memory are priced at 0 because the rate
already carries the whole node.

* OpenCost / Kubecost custom provider ``default.json`` (hourly prices as strings);
* OpenCost CSV pricing (``EndTimestamp, InstanceID, Region, AssetClass, InstanceIDField,
  InstanceType, MarketPriceHourly, Version``): a node row and a GPU row;
* SkyPilot ``~/.sky/config.yaml``: ``kubernetes.pricing`` ($/vCPU-hour, $/GB-hour, $/accelerator-hour).
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from datetime import datetime

import yaml

from core.csv_cells import inert
from costmodel.vocabulary import money
from tco.models import Scenario
from tco.services.engine_inputs import ScenarioInputError
from tco.services.evaluation import Evaluation
from tco.services.evaluation import scenario_evaluate

PRICE_DECIMALS = 6


@dataclass(frozen=True)
class OwnedRate:
    """What one owned accelerator costs per useful hour, and the assumptions it rests on."""

    scenario_id: int
    scenario_name: str
    accelerator: str  # the name SkyPilot and GPU labels use: "H100"
    node_type: str  # the system's slug: "dgx-h100"
    region: str  # the facility's slug
    accelerators_per_node: int
    usd_per_accelerator_hour: float  # in ``currency``, the scenario's reporting currency
    utilisation: float
    goodput_share: float
    currency: str = "USD"

    @property
    def usd_per_node_hour(self) -> float:
        return self.usd_per_accelerator_hour * self.accelerators_per_node

    @property
    def description(self) -> str:
        return (f"Owned {self.node_type} ({self.accelerators_per_node}x {self.accelerator}) from TCO "
                f"scenario {self.scenario_id} '{self.scenario_name}': "
                f"{money(self.usd_per_accelerator_hour, 4, self.currency)} per GPU-hour at "
                f"{self.utilisation:.0%} utilisation ({self.goodput_share:.1%} of hours useful); CPU and "
                "memory are included in the GPU price.")


def owned_rate(scenario: Scenario, evaluation: Evaluation | None = None) -> OwnedRate:
    """The owned accelerator-hour rate of a saved scenario (pinned, if approved)."""
    evaluation = evaluation or scenario_evaluate(scenario=scenario)
    buy, inputs = evaluation.result.buy, evaluation.inputs
    return OwnedRate(
        scenario_id=scenario.pk, scenario_name=scenario.name,
        accelerator=scenario.accelerator.family.split()[-1], node_type=scenario.system.slug,
        region=scenario.facility.slug, accelerators_per_node=int(inputs.buy.accelerators_per_system),
        usd_per_accelerator_hour=float(buy.cost_per_useful_accelerator_hour_usd),
        utilisation=float(inputs.workload.utilisation), goodput_share=float(buy.goodput.share),
        currency=evaluation.currency)


def _price(usd: float) -> str:
    return f"{usd:.{PRICE_DECIMALS}f}"


def opencost_default_json(rate: OwnedRate) -> str:
    """OpenCost's custom pricing ``default.json``: every price hourly, as a string."""
    zero = _price(0.0)
    sheet = {
        "provider": "custom",
        "description": rate.description,
        "currencyCode": rate.currency,
        "CPU": zero, "spotCPU": zero, "RAM": zero, "spotRAM": zero,
        "GPU": _price(rate.usd_per_accelerator_hour), "spotGPU": _price(rate.usd_per_accelerator_hour),
        "storage": zero,
        "zoneNetworkEgress": zero, "regionNetworkEgress": zero, "internetNetworkEgress": zero,
    }
    return json.dumps(sheet, indent=2) + "\n"


CSV_COLUMNS = ("EndTimestamp", "InstanceID", "Region", "AssetClass", "InstanceIDField", "InstanceType",
               "MarketPriceHourly", "Version")


def opencost_csv(rate: OwnedRate, *, valid_until: datetime) -> str:
    """OpenCost CSV pricing: the node (by instance-type label) and its GPUs (by GPU type)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    end = valid_until.strftime("%Y-%m-%d %H:%M:%S UTC")
    node, accelerator, region = inert(rate.node_type), inert(rate.accelerator), inert(rate.region)
    writer.writerow([end, node, region, "node", "metadata.labels.node.kubernetes.io/instance-type", node,
                     _price(rate.usd_per_node_hour), ""])
    writer.writerow([end, accelerator, region, "gpu", "nvidia.com/gpu_type", f"{accelerator}-owned",
                     _price(rate.usd_per_accelerator_hour), ""])
    return buffer.getvalue()


def skypilot_config(rate: OwnedRate) -> str:
    """SkyPilot's ``kubernetes.pricing`` block for the owned cluster ($/accelerator-hour all-in).

    SkyPilot compares it with the clouds' prices in US dollars, so a rate in another currency is
    refused (ScenarioInputError) rather than exported as if it were dollars.
    """
    if rate.currency != "USD":
        raise ScenarioInputError("reporting_currency", f"SkyPilot compares hourly prices in US dollars; "
                                 f"this scenario reports in {rate.currency}: report it in USD to export "
                                 "its SkyPilot pricing")
    config = {"kubernetes": {"pricing": {
        "cpu": 0.0, "memory": 0.0,
        "accelerators": {rate.accelerator: round(rate.usd_per_accelerator_hour, PRICE_DECIMALS)}}}}
    # Every line of the description stays a comment: a name with a line break adds no key.
    comment = "".join(f"# {line}\n" for line in rate.description.splitlines() or [""])
    return comment + yaml.safe_dump(config, sort_keys=False)
