"""Tell a team's (or a scenario's) subscribers of an event, and make one attempt at a delivery.

    notify(event=Event.PRICE_ALERT, team=..., scenario=..., subject=..., body=..., payload=...)

``notify`` writes one Delivery per subscription that wants the event and queues each once the
transaction commits; the worker's task (notifications/tasks.py) calls ``delivery_attempt`` and
retries with backoff while it fails.
"""
from __future__ import annotations

import json
import time
from functools import partial
from typing import Any

from django.conf import settings
from django.core.mail import BadHeaderError
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from core import outbound
from core.queues import Queue
from notifications.choices import Channel
from notifications.choices import DeliveryStatus
from notifications.hosts import WebhookUrlError
from notifications.hosts import check_webhook_url
from notifications.models import Delivery
from notifications.models import DeliveryAttempt
from notifications.models import Subscription
from notifications.signing import SIGNATURE_HEADER
from notifications.signing import TIMESTAMP_HEADER
from notifications.signing import signature


class DeliveryFailed(Exception):
    """This attempt failed; the task tries again later."""


class Undeliverable(Exception):
    """No attempt can succeed (a webhook URL no longer allowed): given up at once."""


def notify(*, event: str, team_id: int, scenario_id: int | None, subject: str, body: str,
           payload: dict[str, Any]) -> list[Delivery]:
    """One delivery per active subscription of the team (or of this scenario) wanting ``event``."""
    subscriptions = Subscription.objects.filter(active=True, team_id=team_id).filter(
        Q(scenario__isnull=True) | Q(scenario_id=scenario_id))
    # A line break in a subject (a plan's name) is refused by every mail header: one line.
    subject = " ".join(subject.splitlines())
    deliveries = [Delivery.objects.create(subscription=subscription, event=event, subject=subject,
                                          body=body, payload={"event": event, **payload})
                  for subscription in subscriptions if subscription.wants(event)]
    for delivery in deliveries:
        transaction.on_commit(partial(_send, delivery.pk))
    return deliveries


def _send(delivery_id: int) -> None:
    from notifications.tasks import deliver_task  # the tasks module imports this one

    deliver_task.apply_async((delivery_id,), queue=Queue.DEFAULT)


def delivery_attempt(*, delivery_id: int) -> bool:
    """Try once; True when delivered (or already), raises DeliveryFailed or Undeliverable."""
    delivery = Delivery.objects.select_related("subscription").get(pk=delivery_id)
    if delivery.status != DeliveryStatus.PENDING:
        return delivery.status == DeliveryStatus.DELIVERED
    subscription = delivery.subscription
    status_code, error = None, ""
    try:
        if subscription.channel == Channel.EMAIL:
            send_mail(delivery.subject, delivery.body, settings.DEFAULT_FROM_EMAIL, [subscription.address])
        else:
            status_code = _post(subscription, delivery.payload)
            if not 200 <= status_code < 300:
                error = f"the receiver answered HTTP {status_code}"
    except (WebhookUrlError, outbound.OutboundRefused, BadHeaderError) as exc:  # no retry can succeed
        _record(delivery, None, f"{type(exc).__name__}: {exc}", give_up=True)
        raise Undeliverable(str(exc)) from exc
    except Exception as exc:  # noqa: BLE001 - any failure is this attempt's, recorded and retried
        error = f"{type(exc).__name__}: {exc}"
    _record(delivery, status_code, error)
    if error:
        raise DeliveryFailed(error)
    return True


def delivery_give_up(*, delivery_id: int) -> None:
    pending = Delivery.objects.filter(pk=delivery_id, status=DeliveryStatus.PENDING)
    pending.update(status=DeliveryStatus.FAILED)


def _post(subscription: Subscription, payload: dict[str, Any]) -> int:
    url = check_webhook_url(subscription.address)
    body = json.dumps(payload, sort_keys=True).encode()
    timestamp = int(time.time())
    with outbound.OutboundSession(timeout=settings.NOTIFY_WEBHOOK_TIMEOUT_S) as session:
        response = session.post(url, data=body, allow_redirects=False, headers={
            "Content-Type": "application/json", TIMESTAMP_HEADER: str(timestamp),
            SIGNATURE_HEADER: signature(subscription.secret, timestamp, body)})
    return response.status_code


def _record(delivery: Delivery, status_code: int | None, error: str, *, give_up: bool = False) -> None:
    ok = not error
    with transaction.atomic():
        DeliveryAttempt.objects.create(delivery=delivery, status_code=status_code, ok=ok, error=error)
        status = DeliveryStatus.FAILED if give_up else DeliveryStatus.PENDING
        if ok:
            status = DeliveryStatus.DELIVERED
        Delivery.objects.filter(pk=delivery.pk).update(
            attempts=delivery.attempts + 1, status=status, delivered_at=timezone.now() if ok else None)
