"""Report export routes and the FinOps files; config/urls.py includes them under api/v1/."""

from django.urls import path
from django.urls import re_path
from rest_framework.routers import SimpleRouter

from reports.api.finops import PRICE_SHEETS
from reports.api.finops import OwnedPriceSheetView
from reports.api.finops import PlanFocusView
from reports.api.finops import ScenarioFocusView
from reports.api.views import ReportExportViewSet
from reports.api.views import SideBySideDownloadViewSet

router = SimpleRouter()
router.register("report-exports", ReportExportViewSet, basename="report-export")
# Beside the scenarios' own side-by-side figures (tco.api): the same comparison as files.
router.register("scenarios/side-by-side", SideBySideDownloadViewSet, basename="scenario-side-by-side")

SHEETS = "|".join(name.replace(".", r"\.") for name in PRICE_SHEETS)

urlpatterns = [
    path("scenarios/<int:pk>/focus/", ScenarioFocusView.as_view(), name="scenario-focus"),
    path("plans/<int:pk>/focus/", PlanFocusView.as_view(), name="plan-focus"),
    re_path(rf"^scenarios/(?P<pk>\d+)/price-sheets/(?P<sheet>{SHEETS})$", OwnedPriceSheetView.as_view(),
            name="scenario-price-sheet"),
    *router.urls,
]
