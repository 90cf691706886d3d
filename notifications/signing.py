"""Webhook signatures: HMAC-SHA256 over "<timestamp>.<body>" with the subscription's secret.

A receiver recomputes it from the ``X-TCO-Timestamp`` header and the raw body, compares it with
``X-TCO-Signature`` ("sha256=<hex>") in constant time, and refuses old timestamps (replays).
"""
from __future__ import annotations

import hashlib
import hmac

TIMESTAMP_HEADER = "X-TCO-Timestamp"
SIGNATURE_HEADER = "X-TCO-Signature"


def signature(secret: str, timestamp: int, body: bytes) -> str:
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def verify(secret: str, timestamp: str, body: bytes, signed: str) -> bool:
    return hmac.compare_digest(signature(secret, int(timestamp), body), signed)
