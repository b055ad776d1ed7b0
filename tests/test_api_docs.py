"""`/docs` and `/redoc` work offline (tester's report, item 14): their
pages name only this server's URLs, and those answer."""

from __future__ import annotations

import re


def _urls(html: str) -> list[str]:
    return re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']|url:\s*["']([^"']+)["']|(https?://[^\s"'<>)]+)""", html)


async def test_docs_and_redoc_reference_only_local_urls_that_answer(service):
    for page, assets in (("/docs", {"/docs-assets/swagger-ui-bundle.js", "/docs-assets/swagger-ui.css",
                                    "/docs-assets/favicon.png"}),
                         ("/redoc", {"/docs-assets/redoc.standalone.js", "/docs-assets/favicon.png"})):
        r = await service.get(page)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        html = r.text
        assert "cdn.jsdelivr.net" not in html and "fonts.googleapis.com" not in html
        found = {u for group in _urls(html) for u in group if u}
        assert assets <= found, found
        assert [u for u in found if "://" in u or u.startswith("//")] == [], found
        assert "/openapi.json" in html
        for url in sorted(assets):
            got = await service.get(url)
            assert got.status_code == 200, url
            assert len(got.content) > 1000, url
    js = await service.get("/docs-assets/swagger-ui-bundle.js")
    assert "javascript" in js.headers["content-type"] and b"SwaggerUIBundle" in js.content
    css = await service.get("/docs-assets/swagger-ui.css")
    assert css.headers["content-type"].startswith("text/css")
    assert (await service.get("/docs-assets/nothing.js")).status_code == 404


async def test_the_seat_token_is_a_bearer_security_scheme_swagger_ui_sends(service):
    """Swagger UI never sends a header parameter named Authorization (the
    OpenAPI specification says to ignore it): the token is the `seatToken`
    bearer scheme, required for acting, optional for views and feeds."""
    spec = (await service.get("/openapi.json")).json()
    assert spec["components"]["securitySchemes"]["seatToken"]["type"] == "http"
    assert spec["components"]["securitySchemes"]["seatToken"]["scheme"] == "bearer"
    security = {}
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            assert all(p["name"].lower() != "authorization" for p in op.get("parameters", [])), (method, path)
            if "security" in op:
                security[f"{method.upper()} {path}"] = op["security"]
    required, optional = [{"seatToken": []}], [{"seatToken": []}, {}]
    assert security == {
        "GET /tables/{table}/view": optional,
        "POST /tables/{table}/actions": required,
        "POST /tables/{table}/back": required,
        "POST /tables/{table}/leave": required,
        "GET /tables/{table}/events": optional,
        "GET /tables/{table}/stream": optional,
    }
