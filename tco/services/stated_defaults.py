"""Figures a scenario may leave empty for goodput and carbon, each with the source it comes from.

They enter the evaluation as assumptions with origin "default", so a report names them.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StatedDefault:
    """A default figure, its unit and where it comes from."""

    value: float
    unit: str
    source: str


LLAMA3 = ("Meta, 'The Llama 3 Herd of Models' (2024), section 3.3.4: 419 unexpected "
          "interruptions in 54 days of training on 16,384 H100 GPUs")
EGRID = ("US EPA eGRID2022 (published 2024): US average total output emission rate, "
         "823.1 lb CO2e/MWh = 0.3734 kg CO2e/kWh (year 2022)")

DEFAULTS = {
    "failures_per_accelerator_hour": StatedDefault(419 / (54 * 24 * 16_384), "1/accelerator-hour", LLAMA3),
    "checkpoint_cost_h": StatedDefault(
        0.05, "h", "documented assumption: 3 minutes to write a checkpoint to a parallel file system"),
    "restart_h": StatedDefault(
        0.25, "h", "documented assumption: 15 minutes to detect a failure, reschedule and reload"),
    "grid_kg_co2e_per_kwh": StatedDefault(0.3734, "kg CO2e/kWh", EGRID),
    "cloud_grid_kg_co2e_per_kwh": StatedDefault(0.3734, "kg CO2e/kWh", EGRID),
    "cloud_pue": StatedDefault(
        1.10, "ratio", "Google, 2024 Environmental Report: fleet-wide trailing twelve-month PUE "
                       "1.10 (year 2023)"),
    "embodied_kg_co2e_per_system": StatedDefault(
        0.0, "kg CO2e/system", "not given: embodied emissions left at zero"),
}
