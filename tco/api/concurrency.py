"""Optimistic concurrency over the API: a scenario's revision is its ETag, and an edit must say
which revision it was made on (If-Match, or ``revision`` in the body)."""
from __future__ import annotations

import re

from rest_framework import status
from rest_framework.exceptions import APIException
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

ETAG = re.compile(r'^\s*(?:W/)?"?(\d+)"?\s*$')


class PreconditionRequired(APIException):
    """An edit that does not say which revision it was made on."""

    status_code = status.HTTP_428_PRECONDITION_REQUIRED
    default_detail = ("Say which revision you edited: send If-Match with the ETag you read, or "
                      "`revision` in the body.")
    default_code = "revision_required"


class RevisionConflict(APIException):
    """An edit made on a revision someone else has since replaced; nothing was saved."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "stale_revision"

    def __init__(self, *, sent: int, current: int | None) -> None:
        super().__init__(f"The scenario was saved by someone else since revision {sent}; it is at "
                         f"revision {current}. Reload it and apply your change again.")
        # Set after __init__, which would turn the number into text.
        self.detail = {"detail": self.detail, "current_revision": current}


class Frozen(APIException):
    """A change that an approved scenario does not allow."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "approved_scenario_frozen"


def sent_revision(request: Request, *, required: bool) -> int | None:
    """The revision an edit was made on: If-Match first, then ``revision`` in the body.

    Raises PreconditionRequired (428) when ``required`` and neither is sent, ValidationError
    (400) when it is not a revision number.
    """
    header = request.headers.get("If-Match")
    if header is not None:
        match = ETAG.match(header)
        if match is None:
            raise ValidationError({"If-Match": ["must be the scenario's ETag, e.g. \"3\""]})
        return int(match.group(1))
    body = request.data.get("revision") if hasattr(request.data, "get") else None
    if body is None:
        if required:
            raise PreconditionRequired()
        return None
    try:
        return int(body)
    except (TypeError, ValueError) as exc:
        raise ValidationError({"revision": ["must be a whole number"]}) from exc


def with_etag(response: Response) -> Response:
    """Give a response carrying one scenario its revision as ETag (a file download has none)."""
    data = getattr(response, "data", None)
    if isinstance(data, dict) and isinstance(data.get("revision"), int):
        response["ETag"] = f'"{data["revision"]}"'
    return response
