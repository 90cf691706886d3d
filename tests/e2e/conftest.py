"""Browser fixtures: headless Chromium, the user it signs in as, and the admin's sign-in form
filled in. Screenshots go to test-artifacts/e2e/ (not committed)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Page
from playwright.sync_api import sync_playwright

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
USERNAME = "browser"
PASSWORD = "browser-test-password"


@pytest.fixture
def browser_user(transactional_db):
    # Created before Playwright starts: its event loop forbids ORM calls in this thread after.
    return get_user_model().objects.create_superuser(USERNAME, "b@example.com", PASSWORD)


@pytest.fixture
def browser_page():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: make test installs it (apt-get install chromium)")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        context = browser.new_context(accept_downloads=True, viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        page.set_default_timeout(60_000)
        yield page
        browser.close()


@pytest.fixture
def sign_in(live_server, browser_user, browser_page) -> Callable[..., Page]:
    """Signs the browser user in through the admin's form, on a screen of ``screen`` (the
    page's own size when None), and gives the page, now at ``next_url``."""

    def sign_in(next_url: str = "/admin/", *, screen: dict[str, int] | None = None) -> Page:
        if screen:
            browser_page.set_viewport_size(screen)
        browser_page.goto(f"{live_server.url}/admin/login/?next={next_url}")
        browser_page.fill("#id_username", USERNAME)
        browser_page.fill("#id_password", PASSWORD)
        browser_page.click("input[type=submit]")
        return browser_page

    return sign_in
