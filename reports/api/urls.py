"""Report export routes; config/urls.py includes them under api/v1/."""

from rest_framework.routers import SimpleRouter

from reports.api.views import ReportExportViewSet
from reports.api.views import SideBySideDownloadViewSet

router = SimpleRouter()
router.register("report-exports", ReportExportViewSet, basename="report-export")
# Beside the scenarios' own side-by-side figures (tco.api): the same comparison as files.
router.register("scenarios/side-by-side", SideBySideDownloadViewSet, basename="scenario-side-by-side")

urlpatterns = [
    *router.urls,
]
