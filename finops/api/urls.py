"""Actual-cost routes; config/urls.py includes them under api/v1/."""
from django.urls import path
from rest_framework.routers import SimpleRouter

from finops.api.views import CostImportView
from finops.api.views import CostTargetViewSet

router = SimpleRouter()
router.register("cost-targets", CostTargetViewSet, basename="cost-target")

urlpatterns = [
    path("cost-imports/", CostImportView.as_view(), name="cost-import"),
    *router.urls,
]
