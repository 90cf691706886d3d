"""The OpenAPI schema: served from a copy made once per process, and post-processed to
document the error answers every operation can give.

DRF answers these the same way everywhere (a JSON object: field errors keyed by field name,
or {"detail": "..."}), so they are described once here rather than on every view.
"""
from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SCHEMA_KWARGS
from drf_spectacular.views import SpectacularAPIView

from core.code_version import code_version

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


# Rendered schemas by (code version, API version, media type): generating one walks every view
# and serializer and rendering it writes 1.3 MB (seconds on a busy machine; a client loading it
# gave up after 10 s).
_SCHEMAS: dict[tuple[str, str | None, str], tuple[bytes, str, str]] = {}


class CachedSchemaView(SpectacularAPIView):
    """/api/schema/: the public schema is the same for every caller and changes only with the
    code, so each process generates and renders it once per format and serves those bytes."""

    @extend_schema(**SCHEMA_KWARGS)  # as the parent's: not in the schema (SERVE_INCLUDE_SCHEMA)
    def get(self, request, *args, **kwargs) -> HttpResponse:
        if not self.serve_public:  # a schema per user's permissions: generated for each
            return super().get(request, *args, **kwargs)
        version = self.api_version or request.version or self._get_version_parameter(request)
        key = (code_version(), version, request.accepted_media_type)
        if key not in _SCHEMAS:
            response = super().get(request, *args, **kwargs)
            response.accepted_renderer = request.accepted_renderer
            response.accepted_media_type = request.accepted_media_type
            response.renderer_context = self.get_renderer_context()
            response.render()
            _SCHEMAS[key] = (response.content, response["Content-Type"],
                             response["Content-Disposition"])
        content, content_type, disposition = _SCHEMAS[key]
        return HttpResponse(content, content_type=content_type,
                            headers={"Content-Disposition": disposition})
