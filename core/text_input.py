"""Text a person or a tool sends must not hold NUL or other control characters.

PostgreSQL cannot store NUL in text (a 500 before this), and no one types the other C0
controls. Every way in refuses them naming the field: the API's parsers walk the whole parsed
body (every serializer, nested ones and slug lookups too), the query string is checked before
any view runs, and every text field of the models carries a validator (admin forms, model
serializers, ``full_clean`` in the commands).
"""
from __future__ import annotations

import re
from typing import Any

from django.apps import apps
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import MaxLengthValidator
from django.db import models
from django.http import JsonResponse
from django.utils.deconstruct import deconstructible
from rest_framework.exceptions import ValidationError

from core.limits import ALLOWED_CONTROL_CHARACTERS
from core.limits import MAX_BODY_TEXT_CHARS
from core.limits import MAX_TEXT_CHARS

# The C0 controls' standard abbreviations (ASCII), by code point; DEL is 0x7F.
C0_NAMES = ("NUL", "SOH", "STX", "ETX", "EOT", "ENQ", "ACK", "BEL", "BS", "HT", "LF", "VT", "FF",
            "CR", "SO", "SI", "DLE", "DC1", "DC2", "DC3", "DC4", "NAK", "SYN", "ETB", "CAN", "EM",
            "SUB", "ESC", "FS", "GS", "RS", "US")

# The project's apps whose models' text fields are checked (third-party ones keep theirs).
OWN_APPS = ("teams", "catalog", "tco", "reports")


def control_character(text: str) -> str | None:
    """Why ``text`` is refused ("holds the control character NUL (U+0000) at character 4"), or None."""
    for position, char in enumerate(text, start=1):
        code = ord(char)
        if (code < 0x20 or code == 0x7F) and char not in ALLOWED_CONTROL_CHARACTERS:
            name = "DEL" if code == 0x7F else C0_NAMES[code]
            return (f"holds the control character {name} (U+{code:04X}) at character {position}; "
                    f"text may hold letters, digits, punctuation, tabs and line breaks")
    return None


@deconstructible
class NoControlCharacters:
    """A model field validator refusing NUL and the other control characters."""

    def __call__(self, value: Any) -> None:
        if isinstance(value, str):
            reason = control_character(value)
            if reason:
                raise DjangoValidationError(f"This text {reason}.", code="control_character")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NoControlCharacters)

    def __hash__(self) -> int:
        return hash(type(self))


def bound_text_fields() -> None:
    """Give every char and text field of the project's models the control-character validator,
    and every unbounded text field ``MAX_TEXT_CHARS`` (admin forms, model serializers and
    ``full_clean`` copy model validators)."""
    for label in OWN_APPS:
        for model in apps.get_app_config(label).get_models():
            for field in model._meta.get_fields():
                if not isinstance(field, models.CharField | models.TextField):
                    continue
                added = [NoControlCharacters()]
                if isinstance(field, models.TextField) and field.max_length is None:
                    added.append(MaxLengthValidator(
                        MAX_TEXT_CHARS, f"At most {MAX_TEXT_CHARS:,} characters (the text limit)."))
                # Set as the field's (cached) validators, not its declared ``_validators``: they
                # hold for every text field alike, so migrations need not repeat them per field.
                field.__dict__["validators"] = [*field.validators, *added]


def data_refusals(data: Any) -> dict | list | None:
    """Errors in DRF's nested shape for every string (or key) in parsed ``data`` holding a
    control character or longer than any text field takes, or None when there is none."""
    if isinstance(data, str):
        if len(data) > MAX_BODY_TEXT_CHARS:
            return [f"This text has {len(data):,} characters; the limit is {MAX_BODY_TEXT_CHARS:,}."]
        reason = control_character(data)
        return [f"This text {reason}."] if reason else None
    if isinstance(data, dict | list):
        items = data.items() if isinstance(data, dict) else enumerate(data)
        errors: dict = {}
        for key, value in items:
            if isinstance(key, str) and control_character(key):
                errors.setdefault("non_field_errors", []).append(
                    f"A field name {control_character(key)}.")
                continue
            found = data_refusals(value)
            if found:
                errors[key] = found
        return errors or None
    return None


def refuse_control_characters(data: Any) -> Any:
    """``data`` unchanged, or a 400 naming each field whose text holds a control character."""
    plain = _plain(data)
    if not _any_refused(plain):  # one flat pass; the nested errors only when there are some
        return data
    raise ValidationError(data_refusals(plain))


REFUSED = re.compile("[" + "".join(re.escape(chr(code)) for code in [*range(0x20), 0x7F]
                                   if chr(code) not in ALLOWED_CONTROL_CHARACTERS) + "]")


def _any_refused(data: Any) -> bool:
    """Whether any string or key in ``data`` holds a control character or is over the length
    limit, walked without recursion (a body can hold a million numbers)."""
    pending = [data]
    while pending:
        node = pending.pop()
        if isinstance(node, str):
            if len(node) > MAX_BODY_TEXT_CHARS or REFUSED.search(node):
                return True
        elif isinstance(node, dict):
            pending.extend(node.values())
            pending.extend(key for key in node if isinstance(key, str))
        elif isinstance(node, list):
            pending.extend(node)
    return False


def _plain(data: Any) -> Any:
    """A QueryDict (form or multipart body) as a dict of its values; files are not text."""
    if hasattr(data, "lists"):
        return {key: values[0] if len(values) == 1 else values for key, values in data.lists()
                if all(isinstance(value, str) for value in values)}
    return data


class QueryStringControlCharacters:
    """Middleware: a query parameter holding a control character is a 400 naming it, before a
    view or filter passes it to the database; a path holding one names nothing that exists (a
    404, where ``/ab%00c/`` reached a lookup and PostgreSQL's refusal of NUL)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if REFUSED.search(request.path):
            return JsonResponse({"detail": "Not found."}, status=404)
        refusals = data_refusals(_plain(request.GET))
        if refusals:
            return JsonResponse(refusals, status=400)
        return self.get_response(request)
