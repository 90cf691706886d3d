"""Signals of the price refresh, so apps that use prices (tco) react without catalog importing them."""

from __future__ import annotations

from django.dispatch import Signal

#: Sent once the transaction that wrote a refresh's new or changed prices has committed.
#: Keyword arguments: ``job_id`` (the PriceRefreshJob).
prices_refreshed = Signal()
