"""Strategy Monte Carlo runs on the workers (``/api/v1/strategy-runs/``): a scenario's strategies
costed over up to a million price paths, in chunks the sweep workers share
(tco/services/strategy_runs.py). POST answers 202 with the run; poll it until done or failed."""
from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework import serializers

from tco.api.scenario_jobs import ScenarioJobViewSet
from tco.models import RunStatus
from tco.models import Scenario
from tco.models import StrategyRun
from tco.selectors import scenarios_for
from tco.selectors import strategy_runs_for
from tco.services.sizing_spec import StrictSerializer
from tco.services.strategy_runs import MAX_RUN_PATHS
from tco.services.strategy_runs import MAX_SEED
from tco.services.strategy_runs import strategy_run_start
from teams.selectors import User


class StrategyRunStartSerializer(StrictSerializer):
    """A scenario of the user's teams with a rental curve, how many price paths, and the seed."""

    scenario = serializers.PrimaryKeyRelatedField(queryset=Scenario.objects.none())
    paths = serializers.IntegerField(min_value=1, max_value=MAX_RUN_PATHS,
                                     help_text=f"Price paths to draw, 1 to {MAX_RUN_PATHS:,}.")
    seed = serializers.IntegerField(min_value=0, max_value=MAX_SEED, default=0,
                                    help_text="The same seed gives the same figures, however the paths "
                                              "are split between workers.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        request = self.context.get("request")  # none when the API schema is generated
        if request is not None:
            self.fields["scenario"] = serializers.PrimaryKeyRelatedField(queryset=scenarios_for(request.user))


class StrategyRunSerializer(serializers.ModelSerializer):
    """A run as clients poll it; ``result`` once done: the probability each strategy is cheapest
    and each one's spread of costs, in the scenario's currency."""

    class Meta:
        model = StrategyRun
        fields = ["id", "scenario", "paths", "seed", "status", "chunks_total", "chunks_done", "model",
                  "result", "error", "created_at", "finished_at"]
        read_only_fields = fields


class StrategyRunViewSet(ScenarioJobViewSet):
    """Strategy Monte Carlo runs over the scenarios of the user's teams."""

    serializer_class = StrategyRunSerializer
    job_name = "strategy run"
    done_status = RunStatus.DONE

    def jobs_for(self, user: User) -> QuerySet[StrategyRun]:
        return strategy_runs_for(user).order_by("-created_at")

    @extend_schema(request=StrategyRunStartSerializer, responses={202: StrategyRunSerializer})
    def create(self, request):
        """Fit the price model on the scenario's curve and queue the paths in chunks; a scenario
        without a curve, or paths and seed out of range, is refused (400) naming the field."""
        start = self.start_data(StrategyRunStartSerializer)
        return self.start(strategy_run_start, **start, created_by=request.user)
