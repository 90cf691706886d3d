"""Webhook secrets for editors only, signatures that expire, and deliveries that cannot get stuck."""
from __future__ import annotations

import pytest
from django.test import Client
from django.test import override_settings

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
@override_settings(NOTIFY_WEBHOOK_ALLOWED_HOSTS=["hooks.example.com"])
def test_the_signing_secret_is_shown_once_to_its_maker_and_on_renewal_never_to_a_viewer():
    analyst, viewer = Client(), Client()
    analyst.force_login(member("ann", of="alpha", role=Role.ANALYST, is_staff=True))
    viewer.force_login(member("vic", of="alpha", role=Role.VIEWER, is_staff=True))
    form = {"team": team("alpha").pk, "channel": Channel.WEBHOOK, "address": "https://hooks.example.com/x",
            "events": "[]", "active": "on"}

    made = analyst.post("/admin/notifications/subscription/add/", form, follow=True).content.decode()
    subscription = Subscription.objects.get()
    first = subscription.secret
    change = f"/admin/notifications/subscription/{subscription.pk}/change/"
    later = analyst.get(change).content.decode()
    renewed = analyst.post(change, {**form, "new_secret": "on"}, follow=True).content.decode()
    subscription.refresh_from_db()
    after_renewal = analyst.get(change).content.decode()
    viewed = viewer.get(change)

    assert first in made and "shown this once" in made
    assert first not in later and "Kept hidden" in later
    assert subscription.secret != first and subscription.secret in renewed
    assert subscription.secret not in after_renewal
    assert viewed.status_code == 200
    assert subscription.secret not in viewed.content.decode()
    assert "Signing secret" not in viewed.content.decode()
