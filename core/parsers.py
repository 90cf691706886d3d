"""The API's request parsers: JSON nesting is bounded, so a deep document is a 400, not a
RecursionError; and no parsed text may hold a control character (core/text_input.py)."""
from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import FormParser
from rest_framework.parsers import JSONParser
from rest_framework.parsers import MultiPartParser

from core.text_input import refuse_control_characters

# The deepest document the API takes (a scenario with a custom sizing model) is 5 levels.
MAX_JSON_DEPTH = 20


class BoundedJSONParser(JSONParser):
    """DRF's JSON parser, refusing documents nested deeper than ``MAX_JSON_DEPTH``."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:  # json's C scanner gives up near Python's recursion limit
            raise ParseError(f"JSON nested too deeply; the limit is {MAX_JSON_DEPTH} levels") from None
        if json_depth(data) > MAX_JSON_DEPTH:
            raise ParseError(f"JSON nested too deeply; the limit is {MAX_JSON_DEPTH} levels")
        return refuse_control_characters(data)


class TextFormParser(FormParser):
    """DRF's form parser, refusing fields whose text holds a control character."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        return refuse_control_characters(super().parse(stream, media_type, parser_context))


class TextMultiPartParser(MultiPartParser):
    """DRF's multipart parser, refusing fields (not files) whose text holds a control character."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        parsed = super().parse(stream, media_type, parser_context)
        refuse_control_characters(parsed.data)
        return parsed


def json_depth(data: Any) -> int:
    """Nesting depth of parsed JSON (a scalar is 0, ``[]`` is 1), walked without recursion."""
    deepest = 0
    pending = [(data, 0)]
    while pending:
        node, depth = pending.pop()
        if isinstance(node, dict):
            node = node.values()
        elif not isinstance(node, list):
            deepest = max(deepest, depth)
            continue
        deepest = max(deepest, depth + 1)
        if deepest > MAX_JSON_DEPTH:
            return deepest
        pending.extend((child, depth + 1) for child in node)
    return deepest
