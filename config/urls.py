"""URL configuration: admin (also at /), the versioned REST API, its schema and docs, the health
check and the favicon."""
from django.contrib import admin
from django.urls import include
from django.urls import path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework.routers import DefaultRouter

from catalog.api.urls import router as catalog_router
from core.body_limit import bad_request
from core.favicon import favicon
from core.health import healthz
from core.openapi import CachedSchemaView
from finops.api.urls import router as finops_router
from reports.api.urls import router as reports_router
from sites.api.urls import router as sites_router
from tco.api.urls import router as tco_router

# /api/v1/ itself lists every endpoint (browsable): the apps' routers' collections and the
# endpoints that are not collections, by URL name.
api_root = DefaultRouter()
for app_router in (catalog_router, tco_router, reports_router, sites_router, finops_router):
    api_root.registry.extend(app_router.registry)
ENDPOINTS = {
    "evaluate": "evaluate", "sizing": "sizing", "sizing/presets": "sizing-presets",
    "sizing/throughput": "sizing-throughput", "vocabulary": "vocabulary",
    "price-refresh-jobs/refresh": "pricerefreshjob-refresh", "schema": "schema", "docs": "api-docs",
}
api_root_view = api_root.APIRootView.as_view(
    api_root_dict={**{prefix: api_root.routes[0].name.format(basename=basename)
                      for prefix, _, basename in api_root.registry}, **ENDPOINTS})

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", api_root_view, name="api-root"),
    path("api/v1/", include("catalog.api.urls")),
    path("api/v1/", include("tco.api.urls")),
    path("api/v1/", include("reports.api.urls")),
    path("api/v1/", include("sites.api.urls")),
    path("api/v1/", include("finops.api.urls")),
    path("api/schema/", CachedSchemaView.as_view(), name="schema"),
    # The split view serves its start-up script as a file, so the CSP needs no inline script.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon, name="favicon"),
    path("", RedirectView.as_view(pattern_name="admin:index"), name="home"),
]

# A body over the upload limit: JSON naming the limit, not an HTML page (core/body_limit.py).
handler400 = bad_request
