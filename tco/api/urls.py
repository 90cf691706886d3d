from django.urls import path
from rest_framework.routers import SimpleRouter

from tco.api.alerts import PriceAlertViewSet
from tco.api.cash_flows import CashFlowsView
from tco.api.plans import PlanViewSet
from tco.api.price_books import PriceBookViewSet
from tco.api.runs import SweepRunViewSet
from tco.api.sizing import ModelPresetListView
from tco.api.sizing import SizingView
from tco.api.sizing_throughput import ThroughputView
from tco.api.strategy_runs import StrategyRunViewSet
from tco.api.views import EvaluateView
from tco.api.views import ScenarioViewSet
from tco.api.vocabulary import VocabularyView

router = SimpleRouter()
router.register("scenarios", ScenarioViewSet, basename="scenario")
router.register("runs", SweepRunViewSet, basename="sweep-run")
router.register("price-alerts", PriceAlertViewSet, basename="price-alert")
router.register("plans", PlanViewSet, basename="plan")
router.register("strategy-runs", StrategyRunViewSet, basename="strategy-run")
router.register("price-books", PriceBookViewSet, basename="price-book")

urlpatterns = [
    path("evaluate/", EvaluateView.as_view(), name="evaluate"),
    path("sizing/", SizingView.as_view(), name="sizing"),
    path("sizing/presets/", ModelPresetListView.as_view(), name="sizing-presets"),
    path("sizing/throughput/", ThroughputView.as_view(), name="sizing-throughput"),
    path("vocabulary/", VocabularyView.as_view(), name="vocabulary"),
    path("scenarios/<int:pk>/cash-flows/", CashFlowsView.as_view(), name="scenario-cash-flows"),
    *router.urls,
]
