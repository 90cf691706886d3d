"""Sites API routes, mounted at /api/v1/ by config/urls.py."""

from __future__ import annotations

from rest_framework.routers import SimpleRouter

from sites.api import views

router = SimpleRouter()
router.register("sites", views.SiteViewSet)
router.register("netbox-imports", views.NetBoxImportViewSet)
urlpatterns = router.urls
