"""NetBox's REST API answered from recorded payloads (tests/sites/netbox/*.json), for pynetbox."""
from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import responses

NETBOX_URL = "https://netbox.example.com"
TOKEN = "0123456789abcdef0123456789abcdef01234567"
RECORDED = Path(__file__).parent / "netbox"
KINDS = ("sites", "locations", "racks", "power-panels", "power-feeds")


def recorded() -> dict[str, dict[str, Any]]:
    """Each kind's recorded page, as NetBox serves it (a fresh copy to change)."""
    return {kind: json.loads((RECORDED / f"{kind}.json").read_text()) for kind in KINDS}


def serve(mock: responses.RequestsMock, pages: dict[str, dict[str, Any]]) -> list[Any]:
    """Answer GET /api/dcim/<kind>/ with ``pages[kind]``; requests without the token get 403.
    Returns the list of requests seen."""
    seen: list[Any] = []

    def answer(request):
        seen.append(request)
        if request.headers.get("Authorization") != f"Token {TOKEN}":
            return 403, {}, json.dumps({"detail": "Authentication credentials were not provided."})
        kind = re.search(r"/api/dcim/([a-z-]+)/", request.url).group(1)
        return 200, {"Content-Type": "application/json"}, json.dumps(copy.deepcopy(pages[kind]))

    for kind in KINDS:
        mock.add_callback(responses.GET, re.compile(rf"{re.escape(NETBOX_URL)}/api/dcim/{kind}/.*"),
                          callback=answer)
    return seen
