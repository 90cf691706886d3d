"""Sites, rooms, racks, power panels and power feeds imported from NetBox's REST API (pynetbox).

    job = netbox_import_request(sites=["dc1"])        # queued; a worker runs netbox_import_run()

The import reads every object kind first (``steps_done`` counts them, committed as it goes,
so the admin and the API show progress), checks every object into plain records (a missing
field or a bad value fails the import naming the object, the field and the reason), then
writes them in one transaction: all or nothing. Rows are matched by their NetBox id, so a
second import updates what changed, field by field, and says so in ``changes``.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import field
from decimal import Decimal
from decimal import InvalidOperation
from functools import partial
from typing import Any

import pynetbox
import requests
from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS
from django.core.exceptions import ValidationError
from django.db import models
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify

from core import jobs
from core import outbound
from core.queues import Queue
from core.text_input import control_character
from costmodel.inputs import InputError
from costmodel.sites import FeedType
from costmodel.sites import Phase
from costmodel.sites import feed_available_kw
from sites.models import NetBoxImport
from sites.models import NetBoxImportStatus
from sites.models import PowerFeed
from sites.models import PowerPanel
from sites.models import RackPosition
from sites.models import Room
from sites.models import Site

NETBOX_IMPORT_SOFT_TIME_LIMIT_S = 300
NETBOX_IMPORT_TIME_LIMIT_S = 330
KINDS = ("sites", "locations", "racks", "power-panels", "power-feeds")
# NetBox keeps a feed's voltage and amperage in small integer columns (dcim.PowerFeed): a figure
# beyond them is no NetBox answer (999,999.9 V x 99,999.9 A made a rack fit 138 GW).
NETBOX_MAX_VOLTAGE_V = 32767
NETBOX_MAX_AMPERAGE_A = 32767


class NetBoxPayloadError(ValueError):
    """A NetBox object the import cannot use: ``where`` names it and its field."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where


@dataclass
class Changes:
    """What an import did, per object kind: created, updated (with each field's old and new), unchanged."""

    created: dict[str, list[str]] = field(default_factory=dict)
    updated: dict[str, dict[str, dict[str, list[Any]]]] = field(default_factory=dict)
    unchanged: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"created": self.created, "updated": self.updated, "unchanged": self.unchanged}


def netbox_api(url: str | None = None, token: str | None = None) -> pynetbox.api:
    """A pynetbox client for the configured NetBox (token auth). Its session follows NetBox's
    page links (``next``) only on ``url``'s own host, so the token goes nowhere else, and stops
    after NETBOX_MAX_REQUESTS requests or NETBOX_DEADLINE_S seconds (a page linking to itself)."""
    url = url if url is not None else settings.NETBOX_URL
    if not url:
        raise NetBoxPayloadError("NETBOX_URL", "no NetBox is configured: set NETBOX_URL and NETBOX_TOKEN")
    api = pynetbox.api(url, token=token if token is not None else settings.NETBOX_TOKEN)
    api.http_session = outbound.OutboundSession(pinned_to=url, max_requests=settings.NETBOX_MAX_REQUESTS,
                                                deadline_s=settings.NETBOX_DEADLINE_S)
    return api


def read_netbox(api: pynetbox.api, site_slugs: Iterable[str] = (),
                progress: Callable[[int], None] = lambda done: None) -> dict[str, list[dict[str, Any]]]:
    """Every object of the import's kinds as NetBox serialises it (only the named sites' when given)."""
    slugs = list(site_slugs)
    dcim = api.dcim
    endpoints = {"sites": dcim.sites, "locations": dcim.locations, "racks": dcim.racks,
                 "power-panels": dcim.power_panels, "power-feeds": dcim.power_feeds}
    payloads: dict[str, list[dict[str, Any]]] = {}
    for done, kind in enumerate(KINDS, start=1):
        endpoint = endpoints[kind]
        if not slugs:
            records = endpoint.all()
        elif kind == "sites":
            records = endpoint.filter(slug=slugs)
        elif kind == "power-feeds":
            records = endpoint.filter(site=slugs)
        else:
            records = endpoint.filter(site=slugs)
        payloads[kind] = [dict(record) for record in records]
        progress(done)
    return payloads


def checked_records(payloads: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """NetBox's JSON as the fields of this app's rows; NetBoxPayloadError names what is wrong."""
    out: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    for index, raw in enumerate(payloads.get("sites", [])):
        where = f"sites[{index}]"
        out["sites"].append({"netbox_id": _id(raw, where), "name": _text(raw, "name", where),
                             "slug": _text(raw, "slug", where)})
    for index, raw in enumerate(payloads.get("locations", [])):
        where = f"locations[{index}]"
        out["locations"].append({"netbox_id": _id(raw, where), "name": _text(raw, "name", where),
                                 "site": _ref(raw, "site", where)})
    for index, raw in enumerate(payloads.get("racks", [])):
        where = f"racks[{index}]"
        out["racks"].append({"netbox_id": _id(raw, where), "name": _text(raw, "name", where),
                             "site": _ref(raw, "site", where), "room": _ref(raw, "location", where, True),
                             "units": int(_number(raw, "u_height", where))})
    for index, raw in enumerate(payloads.get("power-panels", [])):
        where = f"power-panels[{index}]"
        out["power-panels"].append({"netbox_id": _id(raw, where), "name": _text(raw, "name", where),
                                    "site": _ref(raw, "site", where),
                                    "room": _ref(raw, "location", where, True)})
    for index, raw in enumerate(payloads.get("power-feeds", [])):
        where = f"power-feeds[{index}]"
        record = {
            "netbox_id": _id(raw, where), "name": _text(raw, "name", where),
            "panel": _ref(raw, "power_panel", where), "rack": _ref(raw, "rack", where, True),
            "type": _choice(raw, "type", where, FeedType), "supply": _choice(raw, "supply", where, None),
            "phase": _choice(raw, "phase", where, Phase),
            "voltage": _number(raw, "voltage", where), "amperage": _number(raw, "amperage", where),
            # NetBox keeps the utilisation in percent; this app as a share.
            "max_utilisation": _number(raw, "max_utilization", where) / 100,
        }
        for name, unit, most in (("voltage", "V", NETBOX_MAX_VOLTAGE_V),
                                 ("amperage", "A", NETBOX_MAX_AMPERAGE_A)):
            if abs(record[name]) > most:
                raise NetBoxPayloadError(f"{where}.{name}", f"{record[name]:,} {unit} is more than NetBox "
                                                            f"stores ({most:,} {unit})")
        try:
            feed_available_kw(float(record["voltage"]), float(record["amperage"]), record["phase"],
                              float(record["max_utilisation"]))
        except InputError as exc:
            name = "max_utilization" if exc.path == "max_utilisation" else exc.path
            raise NetBoxPayloadError(f"{where}.{name}", exc.message) from None
        out["power-feeds"].append(record)
    return out


def write_records(records: dict[str, list[dict[str, Any]]]) -> Changes:
    """Create or update the rows by NetBox id, in one transaction; returns what changed."""
    changes = Changes()
    with transaction.atomic():
        sites = {r["netbox_id"]: _upsert(Site, r, changes, "sites") for r in records["sites"]}
        rooms = {}
        for r in records["locations"]:
            rooms[r["netbox_id"]] = _upsert(Room, {**r, "site": _known(sites, r, "site", "locations")},
                                            changes, "locations")
        racks = {}
        for r in records["racks"]:
            site = _known(sites, r, "site", "racks")
            racks[r["netbox_id"]] = _upsert(RackPosition, {**r, "site": site, "room": rooms.get(r["room"])},
                                            changes, "racks")
        panels = {}
        for r in records["power-panels"]:
            site = _known(sites, r, "site", "power-panels")
            panels[r["netbox_id"]] = _upsert(PowerPanel, {**r, "site": site, "room": rooms.get(r["room"])},
                                             changes, "power-panels")
        for r in records["power-feeds"]:
            panel = _known(panels, r, "panel", "power-feeds")
            rack = racks.get(r["rack"]) if r["rack"] is not None else None
            if r["rack"] is not None and rack is None:
                raise NetBoxPayloadError(f"power-feeds {r['name']}.rack",
                                         f"rack {r['rack']} was not imported")
            if rack is not None and rack.site_id != panel.site_id:
                raise NetBoxPayloadError(f"power-feeds {r['name']}.rack",
                                         f"rack {rack.name} is at site {rack.site}; the feed's panel "
                                         f"{panel.name} is at {panel.site}")
            _upsert(PowerFeed, {**r, "panel": panel, "rack": rack}, changes, "power-feeds")
    return changes


def netbox_import(api: pynetbox.api, site_slugs: Iterable[str] = (),
                  progress: Callable[[int], None] = lambda done: None) -> Changes:
    """Read, check and write in one go (all or nothing)."""
    return write_records(checked_records(read_netbox(api, site_slugs, progress)))


def netbox_import_request(*, sites: Iterable[str] = ()) -> NetBoxImport:
    """Save an import job and queue it on commit."""
    job = NetBoxImport.objects.create(sites=list(sites), attempts=1, queued_at=timezone.now())
    transaction.on_commit(partial(_send, job.pk))
    return job


def netbox_import_run(*, import_id: int, api: pynetbox.api | None = None) -> None:
    """Run one import job (a finished one returns at once); a failure writes nothing and says why."""
    waiting = NetBoxImport.objects.filter(pk=import_id, status__in=(NetBoxImportStatus.PENDING,
                                                                    NetBoxImportStatus.RUNNING))
    if not waiting.update(status=NetBoxImportStatus.RUNNING, started_at=timezone.now(), steps_done=0,
                          **jobs.claim_fields()):
        return
    job = NetBoxImport.objects.get(pk=import_id)
    rows = NetBoxImport.objects.filter(pk=import_id)
    try:
        changes = netbox_import(api or netbox_api(), job.sites,
                                lambda done: rows.update(steps_done=done))
    except (NetBoxPayloadError, pynetbox.RequestError, requests.RequestException,
            outbound.OutboundRefused) as exc:
        rows.update(status=NetBoxImportStatus.FAILED, finished_at=timezone.now(),
                    error=f"Nothing was imported: {exc}")
        return
    rows.update(status=NetBoxImportStatus.DONE, finished_at=timezone.now(), steps_done=len(KINDS),
                changes=changes.as_dict(), error="")


def netbox_imports_reap() -> jobs.Reaped:
    """Send again, or fail, the imports whose worker died or whose message was lost."""
    return jobs.reap(NETBOX_IMPORT_JOBS)


def _send(import_id: int) -> None:
    from sites.tasks import netbox_import_task  # the tasks module imports this one

    jobs.send(netbox_import_task, (import_id,), queue=Queue.DEFAULT)


NETBOX_IMPORT_JOBS = jobs.JobKind(
    model=NetBoxImport, running=NetBoxImportStatus.RUNNING, done=NetBoxImportStatus.DONE,
    requeue_as={NetBoxImportStatus.PENDING: NetBoxImportStatus.PENDING,
                NetBoxImportStatus.RUNNING: NetBoxImportStatus.PENDING},
    hard_limit_s=NETBOX_IMPORT_TIME_LIMIT_S, queue=Queue.DEFAULT, send=_send,
    failed={"status": NetBoxImportStatus.FAILED},
)


def _upsert(model: type[models.Model], values: dict[str, Any], changes: Changes, kind: str) -> Any:
    values = {k: v for k, v in values.items() if k in {f.name for f in model._meta.fields}}
    if model is Site:
        values["slug"] = values.get("slug") or slugify(values["name"])
    row = model.objects.filter(netbox_id=values["netbox_id"]).first()
    label = str(values["name"])
    if row is None:
        row = model(**values)
        _checked(row, kind, label)
        row.save()
        changes.created.setdefault(kind, []).append(label)
        return row
    diff = {}
    for name, value in values.items():
        old = getattr(row, name)
        if _differs(old, value):
            diff[name] = [_plain(old), _plain(value)]
            setattr(row, name, value)
    if diff:
        _checked(row, kind, label)
        row.save()
        changes.updated.setdefault(kind, {})[label] = diff
    else:
        changes.unchanged[kind] = changes.unchanged.get(kind, 0) + 1
    return row


# This app's field -> NetBox's name for it, so a refusal names what to fix in NetBox.
NETBOX_FIELD_NAMES = {"units": "u_height", "max_utilisation": "max_utilization",
                      "panel": "power_panel", "room": "location"}


def _checked(row: models.Model, kind: str, label: str) -> None:
    """The row's own rules (lengths, ranges, constraints); NetBoxPayloadError naming the object
    and NetBox's field when one refuses it, never a bare ValidationError (issue 44)."""
    try:
        row.full_clean()
    except ValidationError as exc:
        name, messages = next(iter(exc.message_dict.items()))
        where = f"{kind} {label[:100]}"
        if name != NON_FIELD_ERRORS:
            where += f".{NETBOX_FIELD_NAMES.get(name, name)}"
        raise NetBoxPayloadError(where, "; ".join(messages)) from None


def _differs(old: Any, new: Any) -> bool:
    if isinstance(old, Decimal) or isinstance(new, Decimal):
        return old is None or new is None or Decimal(old) != Decimal(new)
    return old != new


def _plain(value: Any) -> Any:
    if isinstance(value, models.Model):
        return str(value)
    if isinstance(value, Decimal):
        return float(value)
    return value


def _known(rows: dict[int, Any], record: dict[str, Any], key: str, kind: str) -> Any:
    try:
        return rows[record[key]]
    except KeyError:
        raise NetBoxPayloadError(f"{kind} {record['name']}.{key}",
                                 f"{key.replace('_', ' ')} {record[key]} is not in the import") from None


def _field(raw: dict[str, Any], name: str, where: str) -> Any:
    if name not in raw:
        raise NetBoxPayloadError(f"{where}.{name}", "is missing from NetBox's answer")
    return raw[name]


def _id(raw: dict[str, Any], where: str) -> int:
    value = _field(raw, "id", where)
    if not isinstance(value, int) or value <= 0:
        raise NetBoxPayloadError(f"{where}.id", f"must be a positive whole number, got {value!r}")
    return value


def _text(raw: dict[str, Any], name: str, where: str) -> str:
    value = _field(raw, name, where)
    if not isinstance(value, str) or not value.strip():
        raise NetBoxPayloadError(f"{where}.{name}", "must be non-empty text")
    refusal = control_character(value)
    if refusal is not None:  # PostgreSQL stores no NUL: a DataError when saved
        raise NetBoxPayloadError(f"{where}.{name}", refusal)
    return value.strip()


def _ref(raw: dict[str, Any], name: str, where: str, optional: bool = False) -> int | None:
    """The id of a nested object (``{"id": 3, "name": ...}``); None when optional and null."""
    value = _field(raw, name, where)
    if value is None and optional:
        return None
    if isinstance(value, dict):
        value = value.get("id")
    if not isinstance(value, int):
        raise NetBoxPayloadError(f"{where}.{name}", "must name a NetBox object by its id")
    return value


def _choice(raw: dict[str, Any], name: str, where: str, choices: Any) -> str:
    """A NetBox choice field (``{"value": "three-phase", "label": ...}``) checked against ``choices``."""
    value = _field(raw, name, where)
    if isinstance(value, dict):
        value = value.get("value")
    allowed = [c.value for c in choices] if choices is not None else ["ac", "dc"]
    if value not in allowed:
        raise NetBoxPayloadError(f"{where}.{name}", f"must be one of {', '.join(allowed)}, got {value!r}")
    return value


def _number(raw: dict[str, Any], name: str, where: str) -> Decimal:
    value = _field(raw, name, where)
    try:
        number = Decimal(str(value))
    except (InvalidOperation, ValueError):
        raise NetBoxPayloadError(f"{where}.{name}", f"must be a number, got {value!r}") from None
    if value is None or isinstance(value, bool) or not math.isfinite(number):
        raise NetBoxPayloadError(f"{where}.{name}", f"must be a number, got {value!r}")
    return number
