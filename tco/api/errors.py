"""The services' refusals as HTTP, in one place (REST_FRAMEWORK's EXCEPTION_HANDLER).

Views call services and let their refusals rise: input that cannot be used (``FieldError``) is
a 400 naming the field, in DRF's shape and where the view says it goes in the body (its
``refusal``); approving what one may not is a 403; changing what approval froze is a 409.
"""
from __future__ import annotations

import re
from typing import Any

from rest_framework.exceptions import PermissionDenied
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from tco.api.concurrency import Frozen
from tco.errors import FieldError
from tco.services.scenarios import ApprovalRefused
from tco.services.scenarios import ScenarioFrozen
from tco.services.sizing_spec import nested_error

NESTED_FIELD = re.compile(r"^(rent_options|api_options)\[(\d+)\]\.(\w+)$")


def field_error_detail(exc: FieldError) -> dict[str, Any]:
    """A refusal in DRF's nested shape: an option's field keyed by the option's index, a sizing
    field by the spec's path, any other by its name."""
    nested = NESTED_FIELD.match(exc.field)
    if exc.field.startswith("sizing."):
        return nested_error(exc.field, exc.message)
    if not nested:
        return {exc.field: [exc.message]}
    kind, index, field = nested.group(1), int(nested.group(2)), nested.group(3)
    return {kind: {index: {field: [exc.message]}}}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    view = context.get("view")
    if isinstance(exc, FieldError):
        exc = ValidationError(view.refusal(exc) if hasattr(view, "refusal") else field_error_detail(exc))
    elif isinstance(exc, ApprovalRefused):
        exc = PermissionDenied(str(exc))
    elif isinstance(exc, ScenarioFrozen):
        exc = Frozen(str(exc))
    return drf_exception_handler(exc, context)
