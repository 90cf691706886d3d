"""Print the throughput calibration: each measurement's ratio before and after, leave-one-out
(with the share inside 0.7-1.4x and inside the stated range), the yearly software gain
fitted on dated results, the seeds' claims judged, and the L40S demo's cost per token and API
breakeven before and after."""
from __future__ import annotations

import math
import statistics

from django.core.management.base import BaseCommand
from django.core.management.base import CommandError

from tco.demo import DEMO_TEAM_SLUG
from tco.models import Scenario
from tco.services.sizing_throughput import calibration
from tco.services.sizing_throughput import catalog_software_gain
from tco.services.throughput_report import L40S_DEMO
from tco.services.throughput_report import demo_comparison
from tco.services.throughput_report import measurement_table
from tco.services.throughput_report import seed_claims


class Command(BaseCommand):
    help = ("Print the throughput estimate against every published measurement of the catalog "
            "(estimate / measured before and after calibration, and leave-one-out), the seeds' "
            "throughput claims judged, and the L40S demo before and after (needs load_catalog, "
            "and load_demo for the demo).")

    def handle(self, *args, **options):
        fitted, _, _ = calibration()
        table = measurement_table()
        self.stdout.write("| measurement | measured tokens/s | uncalibrated (seed 001's "
                          "efficiencies) | calibrated | leave-one-out |")
        self.stdout.write("|---|---:|---:|---:|---:|")
        for row in table:
            self.stdout.write(f"| {row['key']} | {row['measured']:,.0f} | "
                              f"{row['uncalibrated']:.2f} | {row['after']:.2f} | "
                              f"{row['leave_one_out']:.2f} |")
        for name in ("uncalibrated", "after", "leave_one_out"):
            values = [row[name] for row in table]
            inside = sum(0.5 <= v <= 2.0 for v in values)
            self.stdout.write(f"{name}: median {statistics.median(values):.2f}, "
                              f"min {min(values):.2f}, max {max(values):.2f}, "
                              f"{inside}/{len(values)} within 0.5-2x")
        loo = [row["leave_one_out"] for row in table]
        close = sum(0.7 <= v <= 1.4 for v in loo)
        # An estimate E states E x range_low to E x range_high; the measurement is E / ratio.
        inside = sum(fitted.range_low <= 1 / v <= fitted.range_high for v in loo)
        self.stdout.write(f"leave_one_out: {close}/{len(loo)} within 0.7-1.4x, {inside}/"
                          f"{len(loo)} inside the stated range")
        gain = catalog_software_gain()
        self.stdout.write("software gain: " + ("no configuration measured at two dates"
                                               if gain is None else gain.describe()))
        efficiency = fitted.efficiency
        self.stdout.write(
            f"fitted: bandwidth {float(efficiency.memory_bandwidth):.3f}, decode compute "
            f"{float(efficiency.decode_compute):.3f}, prefill compute "
            f"{float(efficiency.prefill_compute):.3f} of peak, all-reduce "
            f"{float(efficiency.all_reduce_latency_s) * 1e6:.1f} us; range x{fitted.range_low:.2f}"
            f" to x{fitted.range_high:.2f}")
        self.stdout.write("\nSeed claims:")
        for claim in seed_claims():
            verdict = "possible" if claim.physically_possible else "IMPOSSIBLE"
            self.stdout.write(f"- {claim.key}: {verdict}: {claim.judgement}")
        scenario = Scenario.objects.filter(name=L40S_DEMO, team__slug=DEMO_TEAM_SLUG).first()
        if scenario is None:
            raise CommandError(f"no demo scenario {L40S_DEMO!r}: run load_demo")
        self.stdout.write(f"\n{L40S_DEMO} (sizing {scenario.sizing}):")
        self.stdout.write("| case | tokens/s per L40S | cost per million tokens | API price | "
                          "API breakeven (million tokens/month) | fleet capacity (million/month) |")
        self.stdout.write("|---|---:|---:|---:|---:|---:|")
        for case in demo_comparison(scenario):
            breakeven = ("never" if math.isnan(case.api_breakeven_tokens_per_month)
                         else f"{case.api_breakeven_tokens_per_month / 1e6:,.0f}")
            self.stdout.write(f"| {case.label} | {case.tokens_per_s_per_accelerator:,.0f} | "
                              f"${case.cost_per_million_tokens_usd:.3f} | "
                              f"${case.api_usd_per_million_tokens:.2f} | {breakeven} | "
                              f"{case.fleet_tokens_per_month / 1e6:,.0f} |")
