"""Report export routes; config/urls.py includes them under api/v1/."""

from rest_framework.routers import SimpleRouter

from reports.api.views import ReportExportViewSet

router = SimpleRouter()
router.register("report-exports", ReportExportViewSet, basename="report-export")

urlpatterns = router.urls
