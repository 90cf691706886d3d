"""Webhook secrets for editors only, signatures that expire, and deliveries that cannot get stuck."""
from __future__ import annotations

import pytest
from django.test import Client

from notifications.choices import Channel
from notifications.choices import DeliveryStatus
from notifications.models import Delivery
from notifications.models import Subscription
from notifications.services import Undeliverable
from notifications.services import delivery_attempt
from notifications.services import notify
from notifications.signing import signature
from notifications.signing import verify
from teams.models import Role
from tests.teams.members import member
from tests.teams.members import team


def test_a_signature_older_than_the_tolerance_is_refused():
    body = b'{"event": "price_alert"}'
    signed = signature("s3cret", 1_800_000_000, body)
    assert verify("s3cret", "1800000000", body, signed, now=1_800_000_000 + 299)
    assert not verify("s3cret", "1800000000", body, signed, now=1_800_000_000 + 301)  # a replay
    assert not verify("s3cret", "1800000000", body, signed, now=1_800_000_000 - 301)
    assert not verify("s3cret", "not-a-time", body, signed, now=1_800_000_000)


@pytest.mark.django_db
def test_a_subject_with_a_line_break_is_given_up_with_its_reason_not_left_pending():
    subscription = Subscription.objects.create(team=team("alpha"), channel=Channel.EMAIL,
                                               address="infra@example.com")
    delivery = Delivery.objects.create(subscription=subscription, event="job_finished",
                                       subject="Finished: Plan 'a\nBcc: x@example.com'", body="b", payload={})
    with pytest.raises(Undeliverable):
        delivery_attempt(delivery_id=delivery.pk)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (DeliveryStatus.FAILED, 1)
    assert delivery.log.get().error.startswith("BadHeaderError: Header values can't contain newlines")


@pytest.mark.django_db
def test_notify_puts_a_multi_line_subject_on_one_line():
    Subscription.objects.create(team=team("alpha"), channel=Channel.EMAIL, address="infra@example.com",
                                events=["job_finished"])
    [delivery] = notify(event="job_finished", team_id=team("alpha").pk, scenario_id=None,
                        subject="Finished: Plan 'a\nb'", body="b", payload={})
    assert delivery.subject == "Finished: Plan 'a b'"


@pytest.mark.django_db
def test_a_viewer_does_not_see_the_signing_secret_an_analyst_does():
    subscription = Subscription.objects.create(team=team("alpha"), channel=Channel.WEBHOOK,
                                               address="https://hooks.example.com/x")
    pages = {}
    for role in (Role.VIEWER, Role.ANALYST):
        client = Client()
        client.force_login(member(f"a-{role}", of="alpha", role=role, is_staff=True))
        page = client.get(f"/admin/notifications/subscription/{subscription.pk}/change/")
        assert page.status_code == 200
        pages[role] = page.content.decode()
    assert subscription.secret not in pages[Role.VIEWER]
    assert subscription.secret in pages[Role.ANALYST]
