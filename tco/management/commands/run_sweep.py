"""Start a sweep (or Monte Carlo) run on the workers and follow it with a progress bar."""
from __future__ import annotations

import json

from django.core.management.base import BaseCommand
from django.core.management.base import CommandError
from tqdm import tqdm

from tco.models import RunKind
from tco.models import RunStatus
from tco.models import Scenario
from tco.models import SweepRun
from tco.runs.errors import RunSpecError
from tco.runs.quota import size_text
from tco.runs.specs import axis_from_text
from tco.runs.specs import distribution_from_text
from tco.services.run_waits import sweep_run_wait
from tco.services.runs import sweep_run_start


class Command(BaseCommand):
    help = ("Run a sweep over SCENARIO_ID on the Celery workers: --axis NAME=SPEC per axis, where SPEC "
            "is a list 0.4,0.55,0.7, a range START:STOP:STEP or a count LOW:HIGH@COUNT. With "
            "--distribution NAME=KIND(a,b,..) and --samples N it runs a Monte Carlo instead. "
            "Prints the summary as JSON when the run is done.")

    def add_arguments(self, parser):
        parser.add_argument("scenario_id", type=int)
        parser.add_argument("--axis", action="append", default=[], metavar="NAME=SPEC",
                            help="a sweep axis, e.g. utilisation=0.3:0.9:0.05 (repeat for more axes)")
        parser.add_argument("--heatmap-axes", metavar="A,B", help="the two axes of the breakeven heat map")
        parser.add_argument("--distribution", action="append", default=[], metavar="NAME=KIND(..)",
                            help="a Monte Carlo input, e.g. utilisation=triangular(0.4,0.6,0.9)")
        parser.add_argument("--samples", type=int, default=10_000, help="Monte Carlo samples")
        parser.add_argument("--seed", type=int, help="Monte Carlo seed (default: random, printed)")
        parser.add_argument("--chunk-size", type=int, help="points per chunk (default: chosen for you)")
        parser.add_argument("--no-wait", action="store_true", help="print the run id and return")

    def handle(self, *args, scenario_id: int, **options):
        scenario = Scenario.objects.filter(pk=scenario_id).first()
        if scenario is None:
            raise CommandError(f"no scenario {scenario_id}")
        if bool(options["axis"]) == bool(options["distribution"]):
            raise CommandError("give --axis (a sweep) or --distribution (a Monte Carlo), not both or neither")
        try:
            kind, spec = _spec(options)
            run = sweep_run_start(scenario=scenario, kind=kind, spec=spec, seed=options["seed"],
                                  chunk_size=options["chunk_size"])
        except RunSpecError as exc:
            raise CommandError(f"refused: {exc}") from exc
        self.stderr.write(f"run {run.pk}: {run.points_total:,} points in {run.chunks_total} chunks"
                          + (f", seed {run.seed}" if run.seed is not None else ""))
        if options["no_wait"]:
            self.stdout.write(str(run.pk))
            return
        run = _follow(run)
        if run.status != RunStatus.DONE:
            raise CommandError(f"run {run.pk} {run.status}: {run.error}")
        self.stderr.write(f"result: {run.chunks_total} parts, {size_text(run.result_bytes)}, "
                          f"downloadable at /api/v1/runs/{run.pk}/result.parquet")
        self.stdout.write(json.dumps(run.summary, indent=2))


def _spec(options: dict) -> tuple[str, dict]:
    if options["axis"]:
        spec = {"axes": [axis_from_text(text) for text in options["axis"]]}
        if options["heatmap_axes"]:
            spec["heatmap_axes"] = [name.strip() for name in options["heatmap_axes"].split(",")]
        return RunKind.SWEEP, spec
    distributions = [distribution_from_text(text) for text in options["distribution"]]
    return RunKind.MONTE_CARLO, {"samples": options["samples"], "distributions": distributions}


def _follow(run: SweepRun) -> SweepRun:
    """Wait for the run to end, moving a progress bar as chunks finish."""
    with tqdm(total=run.chunks_total, unit="chunk", desc=f"run {run.pk}") as bar:
        def show(run: SweepRun) -> None:
            bar.update(run.chunks_done - bar.n)
            bar.set_postfix_str(run.get_status_display())

        return sweep_run_wait(run, on_change=show)
