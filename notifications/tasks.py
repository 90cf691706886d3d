"""Deliveries on the workers: each failed attempt is retried after a doubling wait
(``NOTIFY_RETRY_BASE_S`` x 2^n), at most ``NOTIFY_MAX_ATTEMPTS`` attempts in all."""
from __future__ import annotations

from celery import shared_task
from django.conf import settings

from notifications.services import DeliveryFailed
from notifications.services import Undeliverable
from notifications.services import delivery_attempt
from notifications.services import delivery_give_up


@shared_task(bind=True, max_retries=None)
def deliver_task(self, delivery_id: int) -> None:
    try:
        delivery_attempt(delivery_id=delivery_id)
    except Undeliverable:
        return
    except DeliveryFailed as exc:
        if self.request.retries + 1 >= settings.NOTIFY_MAX_ATTEMPTS:
            delivery_give_up(delivery_id=delivery_id)
            return
        raise self.retry(exc=exc, countdown=settings.NOTIFY_RETRY_BASE_S * 2 ** self.request.retries) from exc
