"""A JSON request parser that bounds nesting, so a deep document is a 400, not a RecursionError."""
from __future__ import annotations

from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

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
        return data


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
