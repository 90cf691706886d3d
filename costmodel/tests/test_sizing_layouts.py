"""The serving layout searched by the engine alone (no catalog): issue 47's 70B FP8 request on
H100s, a target that forces a larger fleet, and a given tensor_parallel."""
from __future__ import annotations

from dataclasses import replace

from costmodel.model_presets import model_preset
from costmodel.sizing import InferenceTarget
from costmodel.sizing import Precision
from costmodel.sizing.layouts import search_layouts
from costmodel.sizing.table import H100_SXM_80GB
from costmodel.sizing.throughput import Efficiency

SEVENTY_B = model_preset("llama-3.1-70b")
# Round shares of peak, close to what the calibration fits on published measurements.
EFFICIENCY = Efficiency(0.7, 0.5, 0.5, 5e-6)
REQUEST = InferenceTarget(tokens_per_s=20_000, input_tokens=1_000, output_tokens=300,
                          precision=Precision.FP8)


def test_one_device_a_replica_is_not_proposed_when_two_serve_far_more():
    search = search_layouts(SEVENTY_B, H100_SXM_80GB, REQUEST, EFFICIENCY)

    chosen = search.chosen
    # 70.6 GB of FP8 weights leave one 80 GB device (72 GB usable) room for a few requests' KV
    # cache only; two devices hold hundreds.
    one = next(o for o in search.options if o.tensor_parallel == 1)
    assert one.max_concurrency_per_replica < 10 < chosen.max_concurrency_per_replica
    assert chosen.tensor_parallel >= 2 and chosen.meets_targets
    assert chosen.accelerators == min(o.accelerators for o in search.options if o.meets_targets)
    assert one.accelerators > 4 * chosen.accelerators
    assert [o.label for o in search.next_two] == [o.label for o in search.options[1:3]]


def test_a_target_that_rules_out_the_smallest_fleet_is_named():
    search = search_layouts(SEVENTY_B, H100_SXM_80GB, replace(REQUEST, tokens_per_s_per_user=40),
                            EFFICIENCY)

    assert search.chosen.accelerators > search.smallest_fleet_without_targets
    assert search.forced_by == ("tokens/s per user",)
    assert search.chosen.tokens_per_s_per_user >= 40


def test_a_given_tensor_parallel_is_the_only_layout_tried():
    search = search_layouts(SEVENTY_B, H100_SXM_80GB, replace(REQUEST, tensor_parallel=4.0),
                            EFFICIENCY)

    assert [o.label for o in search.options] == ["TP 4 x PP 1"]
