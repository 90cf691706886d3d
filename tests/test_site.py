"""The site's own small pieces: the favicon, / and the admin's header and breadcrumbs."""
from __future__ import annotations

import pytest

from tests.teams.members import member

pytestmark = pytest.mark.django_db


def test_the_favicon_is_an_icon_browsers_may_keep(client):
    response = client.get("/favicon.ico")

    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    assert response.content[:4] == b"\x00\x00\x01\x00"  # the ICO header
    assert "max-age=86400" in response["Cache-Control"]


def test_the_root_leads_to_the_admin(client):
    response = client.get("/")

    assert (response.status_code, response["Location"]) == (302, "/admin/")


def test_the_admin_names_the_service_and_its_apps_and_has_no_dead_view_site_link(client):
    client.force_login(member("analyst", of="planning"))
    page = client.get("/admin/").content.decode()

    assert "AI compute TCO" in page and "Scenarios and runs" in page
    assert "View site" not in page
    assert ">Tco<" not in page
