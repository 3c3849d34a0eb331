"""The interactive API docs: Swagger UI from the app itself, showing every operation."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from api.web import CONTENT_SECURITY_POLICY

from .conftest import DESKTOP, Pages, Site, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_the_api_docs_show_every_operation_with_every_file_from_the_app(
    browser: Any, site: Site
) -> None:
    # No request routing here: with it, Chromium does not ask for the page's icon at all.
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    asked: list[str] = []
    failed: list[str] = []
    page.on("request", lambda request: asked.append(request.url))
    page.on(
        "console",
        lambda message: (
            failed.append(f"{message.location.get('url')}: {message.text}")
            if message.type == "error"
            else None
        ),
    )
    try:
        page.goto(f"{site.base}/docs")
        page.wait_for_selector(".swagger-ui .opblock")
        page.wait_for_load_state("networkidle")
        operations = sum(
            method != "parameters"
            for item in site.get("/openapi.json")["paths"].values()
            for method in item
        )

        assert page.locator(".swagger-ui .opblock").count() == operations
        assert "Bohnanza records" in page.inner_text(".swagger-ui .info")
        assert all(url.startswith(f"{site.base}/") for url in asked), asked
        assert not failed, failed  # a script or style the page's CSP refused would show here
        screenshot(page, "api-docs-1366x850", full_page=False)
    finally:
        context.close()


def test_the_docs_page_carries_the_pages_content_security_policy(site: Site) -> None:
    headers = httpx.get(f"{site.base}/docs").headers

    assert headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize("page", ["index.html", "oauth2-redirect.html", "swagger-initializer.js"])
def test_the_swagger_bundles_own_pages_are_not_served(site: Site, page: str) -> None:
    response = httpx.get(f"{site.base}/docs/static/{page}")

    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_the_docs_page_has_the_sites_header_heading_and_a_way_back(
    pages: Pages, site: Site
) -> None:
    page = pages.open("/docs", ready=".swagger-ui .opblock")

    assert page.locator("header.topbar nav a[aria-current='page']").inner_text() == "API docs"
    assert page.locator("main h1").inner_text() == "API documentation"
    assert page.locator("main #swagger-ui-container .opblock").count() > 0
    page.get_by_role("link", name="Back to the games").click()
    page.wait_for_selector("main[data-ready=true]")

    assert page.url == f"{site.base}/"
