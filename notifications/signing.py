"""Webhook signatures: HMAC-SHA256 over "<timestamp>.<body>" with the subscription's secret.

A receiver recomputes it from the ``X-TCO-Timestamp`` header and the raw body, compares it with
``X-TCO-Signature`` ("sha256=<hex>") in constant time, and refuses old timestamps (replays).
"""
from __future__ import annotations

import hashlib
import hmac
import time

TIMESTAMP_HEADER = "X-TCO-Timestamp"
SIGNATURE_HEADER = "X-TCO-Signature"
# How far a signed timestamp may be from the receiver's clock [s] (clock skew and a retry's delay
# in flight); an older one is a replay.
TOLERANCE_S = 300


def signature(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def verify(secret: str, timestamp: str, body: bytes, signed: str, *, tolerance_s: float = TOLERANCE_S,
           now: float | None = None) -> bool:
    """True when ``signed`` is the body's signature at ``timestamp`` and that is within
    ``tolerance_s`` seconds of ``now`` (the clock); False for a replay or a forgery."""
    try:
        moment = int(timestamp)
    except (TypeError, ValueError):
        return False
    if abs((time.time() if now is None else now) - moment) > tolerance_s:
        return False
    return hmac.compare_digest(signature(secret, moment, body), signed)
