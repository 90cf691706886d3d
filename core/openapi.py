"""OpenAPI schema post-processing: document the error answers every operation can give.

DRF answers these the same way everywhere (a JSON object: field errors keyed by field name,
or {"detail": "..."}), so they are described once here rather than on every view.
"""
from __future__ import annotations

ERROR_SCHEMA = {
    "type": "object",
    "description": "Field errors keyed by field name (nested for nested inputs), or "
                   "{\"detail\": \"...\"} for errors that concern the whole request.",
    "additionalProperties": {},
}

ERRORS = {
    "400": "Invalid input; each field error names the field and the reason.",
    "401": "No valid credentials: send `Authorization: Token <key>` or sign in.",
    "403": "Signed in, but your role does not allow this.",
    "404": "No such object, or it belongs to another team.",
    "405": "Method not allowed on this resource.",
    "406": "The requested format is not available.",
    "409": "Conflict with the object's current state (stale revision, run not finished).",
    "413": "The upload is larger than the configured limit.",
    "415": "Unsupported media type; send JSON.",
    "429": "Rate limit of this token exceeded; retry after the Retry-After seconds.",
}


def document_error_responses(result, generator, request, public):
    """Add the shared error responses to every operation that does not describe its own."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    schemas.setdefault("Error", ERROR_SCHEMA)
    reference = {"$ref": "#/components/schemas/Error"}
    for path_item in result.get("paths", {}).values():
        for operation in path_item.values():
            responses = operation.setdefault("responses", {})
            for code, description in ERRORS.items():
                responses.setdefault(code, {
                    "description": description,
                    "content": {"application/json": {"schema": reference}},
                })
    return result
