"""Which webhook URLs may be called: https (or http to a host the settings allow by name), to a
host in ``NOTIFY_WEBHOOK_ALLOWED_HOSTS``, never an internal address or name.

``NOTIFY_WEBHOOK_ALLOWED_HOSTS`` holds host names ("hooks.example.com"), domains (".example.com":
it and its subdomains) or "*" (any public host). A loopback, private, link-local or reserved
address in any spelling, or an internal name ("localhost.", "metadata.google.internal", "redis"),
is refused whatever that list says (core/outbound.py; only OUTBOUND_ALLOWED_NETWORKS opens an
address). This is the check when a subscription is saved; the delivery checks again the
addresses the host resolves to then.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings

from core import outbound


class WebhookUrlError(ValueError):
    """A webhook URL that may not be called; the message says why."""


def check_webhook_url(url: str) -> str:
    """``url`` when it may be called; raises WebhookUrlError saying why not."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if parts.scheme not in ("https", "http") or not host:
        raise WebhookUrlError(f"'{url}' is not an http(s) URL")
    allowed = [entry.lower() for entry in settings.NOTIFY_WEBHOOK_ALLOWED_HOSTS]
    named = host in allowed or any(entry.startswith(".") and (host == entry[1:] or host.endswith(entry))
                                   for entry in allowed)
    if not named and "*" not in allowed:
        raise WebhookUrlError(f"the host {host} is not in the allowed webhook hosts "
                              "(NOTIFY_WEBHOOK_ALLOWED_HOSTS)")
    refusal = outbound.host_refusal(host)
    if refusal is not None:
        raise WebhookUrlError(refusal)
    if parts.scheme == "http" and host not in allowed:
        raise WebhookUrlError("a webhook URL must be https unless its host is listed in "
                              "NOTIFY_WEBHOOK_ALLOWED_HOSTS")
    return url
