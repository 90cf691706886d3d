"""Price refresh: provider feeds -> new and changed price points, job rows, freshness.

- ``services.price_refresh_run(provider=..., location=None)``: one refresh, one job row.
- ``freshness.price_age`` / ``price_point_age``: how old a price's information is, stale or not.
- ``signals.prices_refreshed``: sent after a refresh that wrote prices commits (tco re-prices).
- ``catalog/tasks.py`` runs refreshes on the refresh queue; beat schedules them daily.
"""
