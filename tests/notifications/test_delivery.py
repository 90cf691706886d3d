"""A price alert reaches people: by e-mail through a real SMTP server process, and by a signed
webhook to a real HTTP receiver that fails twice and accepts the worker's third try."""
from __future__ import annotations

from decimal import Decimal

import pytest
from django.core.exceptions import ValidationError
from django.test import override_settings

from notifications.choices import Channel
from notifications.choices import DeliveryStatus
from notifications.models import Delivery
from notifications.models import Subscription
from tco.models import AlertKind
from tco.models import PriceAlert
from tco.models import ProcurementPlan
from tco.models import Winner
from teams.models import Role
from tests.notifications.receivers import SmtpServer
from tests.notifications.receivers import WebhookReceiver
from tests.teams.conftest import hand_scenario
from tests.teams.members import member
from tests.teams.members import team
from tests.worker import WorkerProcess
from tests.worker import poll_until

MESSAGE = "8x H100 vs p5 (alpha): against p5 on demand, winner buy -> rent"


def price_alert(scenario) -> PriceAlert:
    return PriceAlert.objects.create(
        scenario=scenario, kind=AlertKind.WINNER_CHANGED, rent_option="p5 on demand",
        old_price_usd_per_instance_hour=Decimal("50"), new_price_usd_per_instance_hour=Decimal("20"),
        old_winner=Winner.BUY, new_winner=Winner.RENT, old_breakeven_month=12, new_breakeven_month=None,
        old_npv_saving_usd=Decimal("900000"), new_npv_saving_usd=Decimal("-20000"), message=MESSAGE)


@pytest.fixture
def alert_worker(transactional_db, live_celery, tmp_path, settings):
    """A real worker whose mail goes to a real SMTP server and which may call 127.0.0.1."""
    from catalog.services import catalog_load

    catalog_load()
    live_celery.control.purge()
    with SmtpServer(tmp_path / "maildir") as smtp:
        env = {"REDIS_URL": settings.REDIS_URL, "EMAIL_PORT": str(smtp.port),
               "NOTIFY_WEBHOOK_ALLOWED_HOSTS": "127.0.0.1", "NOTIFY_RETRY_BASE_S": "0.5"}
        worker = WorkerProcess(broker_env=env).start()
        yield smtp
        worker.stop()


@override_settings(NOTIFY_WEBHOOK_ALLOWED_HOSTS=["127.0.0.1"])
def test_a_price_alert_goes_by_mail_and_by_a_webhook_retried_until_accepted(alert_worker):
    scenario = hand_scenario("alpha", member("ana", of="alpha", role=Role.ANALYST))
    smtp = alert_worker
    email = Subscription.objects.create(team=team("alpha"), channel=Channel.EMAIL,
                                        address="finance@example.com")
    hook = Subscription(team=team("alpha"), scenario=scenario, channel=Channel.WEBHOOK, address="")
    with WebhookReceiver(hook.secret, failures=2) as receiver:
        hook.address = receiver.url
        hook.full_clean()
        hook.save()
        alert = price_alert(scenario)

        (message,) = poll_until(smtp.messages, "e-mail at the SMTP server", timeout_s=60)
        assert message["To"] == "finance@example.com"
        assert message["Subject"] == f"Price alert: {scenario.name}"
        assert MESSAGE in message.get_payload()

        poll_until(lambda: len(receiver.requests) >= 3, "third webhook request", timeout_s=60)
    assert [request.status for request in receiver.requests] == [500, 500, 200]
    assert all(request.signature_ok for request in receiver.requests)
    assert receiver.requests[-1].body["price_alert"]["id"] == alert.pk
    delivered = poll_until(lambda: Delivery.objects.filter(subscription=hook, status=DeliveryStatus.DELIVERED)
                           .first(), "delivered webhook", timeout_s=30)
    assert delivered.attempts == 3
    assert list(delivered.log.values_list("status_code", "ok")) == [(500, False), (500, False), (200, True)]
    assert Delivery.objects.get(subscription=email).status == DeliveryStatus.DELIVERED


@pytest.mark.django_db
@override_settings(NOTIFY_WEBHOOK_ALLOWED_HOSTS=["hooks.example.com"])
def test_webhook_urls_must_be_allowed_and_not_internal():
    def refused(url: str) -> str:
        with pytest.raises(ValidationError) as error:
            Subscription(team=team("alpha"), channel=Channel.WEBHOOK, address=url).full_clean()
        return error.value.message_dict["address"][0]

    assert "not in the allowed webhook hosts" in refused("https://evil.example.org/hook")
    assert "not in the allowed webhook hosts" in refused("https://127.0.0.1/hook")
    assert "not an http(s) URL" in refused("ftp://hooks.example.com/hook")
    Subscription(team=team("alpha"), channel=Channel.WEBHOOK, address="https://hooks.example.com/x").full_clean()
    with override_settings(NOTIFY_WEBHOOK_ALLOWED_HOSTS=["*"]):
        assert "internal address" in refused("https://169.254.169.254/latest/meta-data")
        assert "internal address" in refused("https://localhost:8000/hook")
        assert "must be https" in refused("http://8.8.8.8/x")
        Subscription(team=team("alpha"), channel=Channel.WEBHOOK, address="https://8.8.8.8/x").full_clean()


@pytest.mark.django_db
def test_a_finished_plan_tells_the_teams_subscribers(catalog, django_capture_on_commit_callbacks):
    from django.core import mail

    from tco.demo import DEMO_PLAN
    from tco.demo import load_demo

    Subscription.objects.create(team=team("demo"), channel=Channel.EMAIL, address="infra@example.com",
                                events=["job_finished"])
    with django_capture_on_commit_callbacks(execute=True):  # the plan's solve and draws run inline
        load_demo()
    plan = ProcurementPlan.objects.get(name=DEMO_PLAN["name"])
    finished = [message for message in mail.outbox if message.to == ["infra@example.com"]]
    assert [message.subject for message in finished] == [
        f"Finished: Plan '{plan.name}' of {DEMO_PLAN['scenario']}"]
