"""Training FLOPs, scaling efficiency, time to train and accelerators for a deadline."""

from __future__ import annotations

import json

import numpy as np
import pytest
from numpy.testing import assert_allclose

from costmodel.model_presets import MODEL_PRESETS
from costmodel.model_presets import custom_model
from costmodel.model_presets import model_preset
from costmodel.sizing import AcceleratorSpec
from costmodel.sizing import FitPolicy
from costmodel.sizing import Precision
from costmodel.sizing import ScalingEfficiencyTable
from costmodel.sizing import SizingInputError
from costmodel.sizing import TrainingJob
from costmodel.sizing import accelerators_for_deadline
from costmodel.sizing import scaling_efficiency
from costmodel.sizing import size_training
from costmodel.sizing import training_flops
from costmodel.sizing import training_time_s
from costmodel.sizing.fit import TOO_MANY_ACCELERATORS
from costmodel.sizing.table import H100_SXM_80GB
from costmodel.sizing.table import sizing_table
from costmodel.sizing.table import sizing_table_rows
from costmodel.sizing.training import BELOW_MEMORY_MINIMUM
from costmodel.tests.devices import A100_80GB

# 1e15 FLOP/s at MFU 1: easy round figures for hand checks.
PETA_DEVICE = AcceleratorSpec(
    name="1 PFLOPS device", memory_gb=1_000.0, memory_bandwidth_gb_per_s=1_000.0,
    dense_tflops={Precision.BF16: 1_000.0},
)
# A dense 1e9-parameter model: 6e9 FLOP per training token.
SMALL = custom_model("1B", 1e9, layers=16, hidden_size=2_048, attention_heads=16,
                     max_context_length=4_096, vocab_size=32_000)


def test_training_flops_are_six_times_parameters_per_token_times_tokens():
    # Dense 8B: 6 x 8,030,261,248 x 1e12 = 4.818e22. MoE: only the 37e9 active parameters count:
    # 6 x 37e9 x 1e12 = 2.22e23, not 6 x 671e9.
    assert_allclose(training_flops(model_preset("llama-3.1-8b"), 1e12), 4.8181567488e22)
    assert_allclose(training_flops(model_preset("deepseek-r1"), 1e12), 2.22e23)


@pytest.mark.parametrize(
    ("accelerators", "expected"),
    [
        (1, 1.0),  # one device: no scaling loss
        (2, 1.0 - 0.05 / 3),  # a third of the log2 way from 1 (1.0) to 8 (0.95)
        (8, 0.95),
        (64, 0.85),
        (512, 0.75),
        (1_024, 0.70),  # 0.75 - (1/3) x 0.15
        (4_096, 0.60),
        (8_192, 0.525),  # half way from 4,096 (0.60) to 16,384 (0.45)
        (16_384, 0.45),
        (65_536, 0.45),  # held at the last row, not extrapolated
    ],
)
def test_scaling_efficiency_follows_seed_003_interpolated_in_log2(accelerators, expected):
    assert_allclose(scaling_efficiency(accelerators), expected)


def test_scaling_efficiency_of_a_vector_equals_the_scalar_answers():
    counts = np.array([1, 8, 1_024, 65_536])
    assert_allclose(scaling_efficiency(counts), [scaling_efficiency(c) for c in counts])


# Days for 1e12 tokens on 1,024 H100 at 989 dense BF16 TFLOPS, MFU 0.40 and efficiency 0.70:
# 6 x parameters per token x 1e12 / (1,024 x 989e12 x 0.40 x 0.70) / 86,400.
DAYS_FOR_1T_TOKENS_ON_1024_H100 = {
    "bert-base": 0.02693866,  # 6.6e20 / 2.8357e17 = 2,327 s
    "gpt-2-xl": 0.377631,
    "llama-3.1-8b": 1.966586,  # 4.818e22 / 2.8357e17 = 169,912 s
    "llama-3.1-70b": 17.278382,
    "llama-3.1-405b": 99.392223,
    "gpt-3-175b": 42.856952,  # 1.05e24 / 2.8357e17 = 3.703e6 s
    "deepseek-r1": 9.061184,  # 37e9 active: 2.22e23 / 2.8357e17 = 782,886 s
    "llama-2-7b": 1.650217,  # 6.738e9: 4.043e22 / 2.8357e17 = 142,579 s
    "llama-2-70b": 16.892165,  # 6.898e10: 4.139e23 / 2.8357e17 = 1.4595e6 s
    "mixtral-8x7b": 3.15917,  # 12.9e9 active: 7.74e22 / 2.8357e17 = 272,952 s
    "qwen3-30b-a3b": 0.80816,  # 3.3e9 active: 1.98e22 / 2.8357e17 = 69,825 s
    "qwen3-235b-a22b": 5.387731,  # 22e9 active: 1.32e23 / 2.8357e17 = 465,500 s
    "llama-4-maverick": 4.163247,  # 17e9 active: 1.02e23 / 2.8357e17 = 359,705 s
}


@pytest.mark.parametrize(("preset", "expected_days"), DAYS_FOR_1T_TOKENS_ON_1024_H100.items())
def test_days_to_train_each_preset_on_1t_tokens_with_1024_h100(preset, expected_days):
    job = TrainingJob(tokens=1e12, mfu=0.40)
    days = training_time_s(model_preset(preset), H100_SXM_80GB, job, 1_024) / 86_400
    assert_allclose(days, expected_days, rtol=1e-6)


def test_every_preset_has_a_training_figure():
    assert set(DAYS_FOR_1T_TOKENS_ON_1024_H100) == set(MODEL_PRESETS)


def test_seed_004s_8b_on_8_a100_for_100b_tokens_takes_weeks_not_days():
    # 6 x 8.0303e9 x 1e11 = 4.818e21 FLOP / (8 x 312e12 x 0.40 x 0.95) = 5.08e6 s = 58.79 days.
    # Seed 004 says "~7-10 days on an 8x A100 cluster", which its own 312 TFLOPS cannot give.
    job = TrainingJob(tokens=1e11, mfu=0.40)
    days = training_time_s(model_preset("llama-3.1-8b"), A100_80GB, job, 8) / 86_400
    assert_allclose(days, 58.794812, rtol=1e-6)


def test_a_power_cap_stretches_the_run_by_its_throughput_loss():
    # 1e9 parameters x 6 x 1e12 tokens = 6e21 FLOP on one 1e15 FLOP/s device at MFU 0.5:
    # 12e6 s; a 10 % throughput loss makes it 12e6 / 0.9 = 13.33e6 s.
    job = TrainingJob(tokens=1e12, mfu=0.5, power_cap_throughput_loss=0.10)
    assert_allclose(training_time_s(SMALL, PETA_DEVICE, job, 1), 12e6 / 0.9)


def test_training_time_over_a_vector_of_counts_equals_the_scalar_answers():
    job = TrainingJob(tokens=1e12)
    counts = np.array([1, 64, 1_024, 20_000])
    assert_allclose(training_time_s(SMALL, PETA_DEVICE, job, counts),
                    [training_time_s(SMALL, PETA_DEVICE, job, c) for c in counts])


def _deadline_job(**overrides) -> TrainingJob:
    # 6 x 1e9 x (1e22 / 6e9) tokens = 1e22 FLOP at 1e15 FLOP/s per device (MFU 1).
    return TrainingJob(tokens=1e22 / 6e9, mfu=1.0, **overrides)


def test_accelerators_for_a_deadline_is_the_smallest_count_that_makes_it():
    # 1e22 FLOP in 1e5 s at 1e15 FLOP/s each needs n x efficiency(n) >= 100.
    # efficiency(n) = 0.85 - 0.10 x (log2 n - 6) / 3 between 64 and 512:
    # n = 122 gives 122 x 0.81898 = 99.92 (late), n = 123 gives 123 x 0.81858 = 100.69.
    deadline_days = 1e5 / 86_400
    assert accelerators_for_deadline(SMALL, PETA_DEVICE, _deadline_job(), deadline_days) == 123
    finish_s = training_time_s(SMALL, PETA_DEVICE, _deadline_job(), 123)
    assert finish_s <= 1e5 < training_time_s(SMALL, PETA_DEVICE, _deadline_job(), 122)


def test_accelerators_for_a_deadline_come_in_whole_model_parallel_groups():
    # 123 devices rounded up to groups of TP 8: 128.
    job = _deadline_job(tensor_parallel=8)
    assert accelerators_for_deadline(SMALL, PETA_DEVICE, job, 1e5 / 86_400) == 128


def test_accelerators_for_deadlines_of_a_vector_equal_the_scalar_answers():
    days = np.array([0.5, 1e5 / 86_400, 30.0, 1_000.0])
    job = _deadline_job()
    assert_allclose(accelerators_for_deadline(SMALL, PETA_DEVICE, job, days),
                    [accelerators_for_deadline(SMALL, PETA_DEVICE, job, d) for d in days])


def test_size_training_defaults_to_the_memory_minimum():
    # Llama 3 70B under ZeRO-3 needs 20 H100 (see test_sizing_fit); on 20 devices
    # (efficiency 0.95 - 0.10 x (log2 20 - 3) / 3 = 0.9031) 2e12 tokens take
    # 6 x 70.554e9 x 2e12 / (20 x 989e12 x 0.40 x 0.9031) = 1.1846e8 s = 1,371 days.
    sizing = size_training(model_preset("llama-3.1-70b"), H100_SXM_80GB,
                           TrainingJob(tokens=2e12))
    assert sizing.fits
    assert sizing.accelerators == 20
    efficiency = 0.95 - 0.10 * (np.log2(20) - 3) / 3
    assert_allclose(sizing.scaling_efficiency, efficiency)
    expected_s = 6 * 70_553_706_496 * 2e12 / (20 * 989e12 * 0.40 * efficiency)
    assert_allclose(sizing.time_s, expected_s)
    assert_allclose(sizing.accelerator_hours, 20 * expected_s / 3_600)


def test_size_training_for_a_deadline_takes_the_larger_of_deadline_and_memory_counts():
    # SMALL (18 GB of state) fits one 1,000 GB device, so the deadline's 123 decides.
    sizing = size_training(SMALL, PETA_DEVICE, _deadline_job(), deadline_days=1e5 / 86_400)
    assert sizing.accelerators == 123
    assert sizing.time_s <= 1e5
    # A lax deadline needs 1 device by time, but memory still needs 20 for the 70B.
    sizing = size_training(model_preset("llama-3.1-70b"), H100_SXM_80GB,
                           TrainingJob(tokens=1e6), deadline_days=365.0)
    assert sizing.accelerators == 20


def test_a_given_count_below_the_memory_minimum_does_not_fit():
    counts = np.array([16, 1_024])
    sizing = size_training(model_preset("llama-3.1-70b"), H100_SXM_80GB,
                           TrainingJob(tokens=1e12), accelerators=counts)
    assert list(sizing.fits) == [False, True]
    assert np.isnan(sizing.time_s[0])
    assert_allclose(sizing.time_days[1], DAYS_FOR_1T_TOKENS_ON_1024_H100["llama-3.1-70b"],
                    rtol=1e-6)
    assert sizing.reason[0] == BELOW_MEMORY_MINIMUM
    # At 1,024 devices ZeRO-3 spreads 1,269.97 GB: 1.240 GB + 5.369 GB activations each.
    assert_allclose(sizing.per_device_memory_gb[1], 1_269.966716928 / 1_024 + 5.36870912)


def test_a_deadline_needing_more_than_the_cap_does_not_fit():
    # The deadline needs 123 devices (above); a cap of 100 refuses it.
    sizing = size_training(SMALL, PETA_DEVICE, _deadline_job(), deadline_days=1e5 / 86_400,
                           policy=FitPolicy(max_accelerators=100))
    assert not sizing.fits
    assert np.isnan(sizing.accelerators)
    assert sizing.reason == TOO_MANY_ACCELERATORS


def test_size_training_to_dict_is_json_ready():
    sizing = size_training(model_preset("llama-3.1-8b"), H100_SXM_80GB, TrainingJob(tokens=1e12),
                           accelerators=1_024)
    data = json.loads(json.dumps(sizing.to_dict(), allow_nan=False))
    assert data["accelerators"] == 1_024
    assert data["fit"]["layout"] == "TP 1 x PP 1 x DP 3, ZeRO-3/FSDP"
    by_name = {row["name"]: row for row in data["assumptions"]}
    assert by_name["dense_peak_bf16"]["value"] == 989.0
    assert "seed 004" in by_name["dense_peak_bf16"]["source"]
    assert by_name["scaling_efficiency_table"]["value"][1] == [8.0, 0.95]
    assert by_name["optimizer_states_bytes_per_parameter"]["value"] == 8.0


@pytest.mark.parametrize("mfu", [0.0, -0.1, 1.2, np.array([0.4, 1.5])])
def test_it_rejects_mfu_outside_zero_to_one(mfu):
    with pytest.raises(SizingInputError, match="mfu"):
        TrainingJob(tokens=1e12, mfu=mfu)


@pytest.mark.parametrize("tokens", [0.0, -1e9, np.inf, np.array([1e12, 0.0])])
def test_it_rejects_tokens_that_are_not_positive_and_finite(tokens):
    with pytest.raises(SizingInputError, match="tokens"):
        TrainingJob(tokens=tokens)


@pytest.mark.parametrize("parameters", [0.0, -7e9, np.array([7e9, -1.0])])
def test_it_rejects_parameters_that_are_not_positive(parameters):
    with pytest.raises(SizingInputError, match="parameters"):
        custom_model("bad", parameters, layers=32, hidden_size=4_096, attention_heads=32,
                     max_context_length=4_096, vocab_size=32_000)


def test_it_rejects_a_precision_the_accelerator_has_no_tflops_for():
    # The A100 has no FP8 tensor cores; its spec lists no FP8 figure.
    job = TrainingJob(tokens=1e12, precision=Precision.FP8)
    with pytest.raises(SizingInputError, match=r"TrainingJob\.precision.*no dense TFLOPS.*fp8"):
        training_time_s(SMALL, A100_80GB, job, 8)


def test_it_rejects_an_unknown_precision_name():
    with pytest.raises(SizingInputError, match="precision"):
        TrainingJob(tokens=1e12, precision="fp12")


def test_it_rejects_both_a_count_and_a_deadline():
    with pytest.raises(SizingInputError, match="deadline_days"):
        size_training(SMALL, PETA_DEVICE, TrainingJob(tokens=1e9), accelerators=8,
                      deadline_days=1.0)


def test_it_rejects_a_count_that_is_not_whole_model_parallel_groups():
    with pytest.raises(SizingInputError, match="accelerators"):
        size_training(SMALL, PETA_DEVICE, TrainingJob(tokens=1e9, tensor_parallel=8),
                      accelerators=12)


def test_scaling_tables_whose_efficiency_rises_or_collapses_are_refused():
    with pytest.raises(SizingInputError, match="efficiencies"):
        ScalingEfficiencyTable((1.0, 8.0), (0.9, 0.95))
    # From 1.0 to 0.1 over one doubling: 2 devices would do less than 1.
    with pytest.raises(SizingInputError, match="finish later"):
        ScalingEfficiencyTable((1.0, 2.0), (1.0, 0.1))


def test_sizing_table_has_a_row_per_preset_with_the_hand_checked_figures():
    rows = {row["preset"]: row for row in sizing_table_rows()}
    assert set(rows) == set(MODEL_PRESETS)
    llama_70b = rows["llama-3.1-70b"]
    assert_allclose(llama_70b["weights_bf16_gb"], 141.107412992)
    # 143.59 GB / 72 -> 2 H100; / (192 x 0.9 = 172.8) -> 1 MI300X.
    assert (llama_70b["serve_h100"], llama_70b["serve_mi300x"]) == (2, 1)
    # ZeRO-3: 1,269.97 / (72 - 5.37) = 19.06 -> 20 H100; / (172.8 - 5.37) = 7.59 -> 8 MI300X.
    assert (llama_70b["train_h100"], llama_70b["train_mi300x"]) == (20, 8)
    for preset, days in DAYS_FOR_1T_TOKENS_ON_1024_H100.items():
        assert_allclose(rows[preset]["train_days_1t_tokens_1024_h100"], days, rtol=1e-6)
    assert "| llama-3.1-70b | 70.554 | 70.554 | 141.1 | 2 | 1 | 20 | 8 | 17.28 |" in sizing_table()
