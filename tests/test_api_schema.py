"""The OpenAPI schema generates cleanly and documents every endpoint budgeting tools call."""
from __future__ import annotations

import io

import pytest
import yaml
from django.core.management import call_command


@pytest.fixture(scope="module")
def schema(tmp_path_factory):
    path = tmp_path_factory.mktemp("schema") / "schema.yaml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(path),
                 stdout=io.StringIO(), stderr=io.StringIO())
    return yaml.safe_load(path.read_text())


def test_the_schema_is_valid_without_warnings(schema):
    assert schema["openapi"].startswith("3.")


@pytest.mark.parametrize("path", [
    "/api/v1/accelerators/", "/api/v1/offerings/", "/api/v1/price-points/",
    "/api/v1/scenarios/", "/api/v1/scenarios/{id}/evaluate/", "/api/v1/evaluate/",
    "/api/v1/sizing/",
])
def test_the_schema_documents(schema, path):
    assert path in schema["paths"]


def test_token_authentication_is_documented(schema):
    scheme = schema["components"]["securitySchemes"]["knoxApiToken"]

    assert (scheme["in"], scheme["name"]) == ("header", "Authorization")
    assert 'prefix "Token"' in scheme["description"]


@pytest.mark.django_db
def test_the_docs_page_loads_swagger_ui_from_our_own_static_files(client):
    page = client.get("/api/docs/").content.decode()

    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    assert "cdn.jsdelivr.net" not in page


def test_the_schema_is_generated_once_per_process_and_served_as_generated(client, monkeypatch, db):
    from drf_spectacular.generators import SchemaGenerator

    from core import openapi

    monkeypatch.setattr(openapi, "_SCHEMAS", {})
    generated = []
    generate = SchemaGenerator.get_schema
    monkeypatch.setattr(SchemaGenerator, "get_schema",
                        lambda self, **kw: generated.append(1) or generate(self, **kw))

    first = client.get("/api/schema/", {"format": "json"})
    again = client.get("/api/schema/", {"format": "json"})
    as_yaml = client.get("/api/schema/")
    yaml_again = client.get("/api/schema/")

    assert first.status_code == again.status_code == as_yaml.status_code == 200
    assert len(generated) == 2  # once as JSON, once as YAML
    assert first.content == again.content and as_yaml.content == yaml_again.content
    assert first["Content-Type"] == "application/vnd.oai.openapi+json"
    assert "/api/v1/scenarios/" in first.json()["paths"]
    assert as_yaml.content.decode().startswith("openapi: 3.")
