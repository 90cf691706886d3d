"""Actual-cost routes, FOCUS projections and price sheets; config/urls.py includes them under api/v1/."""
from django.urls import path
from django.urls import re_path
from rest_framework.routers import SimpleRouter

from finops.api.exports import PRICE_SHEETS
from finops.api.exports import OwnedPriceSheetView
from finops.api.exports import PlanFocusView
from finops.api.exports import ScenarioFocusView
from finops.api.views import CostImportViewSet
from finops.api.views import CostTargetViewSet

router = SimpleRouter()
router.register("cost-imports", CostImportViewSet, basename="cost-import")
router.register("cost-targets", CostTargetViewSet, basename="cost-target")

SHEETS = "|".join(name.replace(".", r"\.") for name in PRICE_SHEETS)

urlpatterns = [
    # FOCUS and the price sheets a decision sends to the tools that run the money.
    path("scenarios/<int:pk>/focus/", ScenarioFocusView.as_view(), name="scenario-focus"),
    path("plans/<int:pk>/focus/", PlanFocusView.as_view(), name="plan-focus"),
    re_path(rf"^scenarios/(?P<pk>\d+)/price-sheets/(?P<sheet>{SHEETS})$", OwnedPriceSheetView.as_view(),
            name="scenario-price-sheet"),
    *router.urls,
]
