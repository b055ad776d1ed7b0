"""The OpenAPI description as the gateway really answers (docs/api.md):

* every error response is ``application/problem+json`` with the
  :class:`Problem` schema (FastAPI's default 422 body is replaced: the
  gateway's 422 is a problem too);
* every route documents 408 ``request_timeout`` (the head's time), 431
  ``headers_too_large`` (request line and headers), 500
  ``internal_error`` and 503 ``store_unavailable``; routes with a body
  also 400 ``malformed_json``, 413 and 408 for the body's time;
* the seat token is the ``seatToken`` bearer security scheme (required, or
  optional for the views and feeds), not a header parameter, so that
  Swagger UI's Authorize button sends it;
* ``POST /tables`` takes one variant per game (a union discriminated by
  ``game``), each with the game's real seat range and its options schema.

FastAPI builds the rest from the routes; :func:`install` completes it once,
when the description is first asked for.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, Field

from services.gateway import actions
from shared.games import available, get_game


class Problem(BaseModel):
    """An error (RFC 9457 problem details): switch on `code`."""

    type: str = Field(description="`urn:tapis:error:<code>`.")
    title: str
    status: int
    detail: str = Field(description="One human sentence; never names a card the caller may not see.")
    code: str = Field(description="Stable snake_case error code (docs/api.md lists them).")


_PROBLEM = {"$ref": "#/components/schemas/Problem"}
_ALWAYS = {
    "408": "`request_timeout`: the request head (request line and headers) did not arrive whole in time"
           " (the connection is closed).",
    "431": "`headers_too_large`: the request line (path and query included) and headers are over the limit.",
    "500": "`internal_error`: a bug (logged); nothing was half-applied.",
    "503": "`store_unavailable`: Redis unreachable or saturated; retry shortly.",
}
_WITH_BODY = {
    "400": "`malformed_json`: the body is not JSON.",
    "408": "`request_timeout`: the request head or the body did not arrive whole in time.",
    "413": "`body_too_large`: the body is over the limit.",
}


def _create_variants(schemas: dict[str, Any]) -> dict[str, Any]:
    """One ``CreateTable_<game>`` schema per hosted game; returns the union."""
    base = schemas["CreateTable"]
    refs: dict[str, str] = {}
    for name in available():
        game = get_game(name)
        variant = {**base, "title": f"CreateTable_{name}", "properties": dict(base["properties"])}
        variant["properties"]["game"] = {"type": "string", "const": name, "description": f"{game.title}."}
        variant["properties"]["players"] = {
            **base["properties"]["players"], "minimum": game.min_players, "maximum": game.max_players,
            "description": f"Number of seats: {game.min_players} to {game.max_players}."}
        opts = game.Options.model_json_schema(ref_template=f"#/components/schemas/{name}_{{model}}")
        for sub, schema in opts.pop("$defs", {}).items():
            schemas[f"{name}_{sub}"] = schema
        variant["properties"]["options"] = {**opts, "description": "Table options; omitted ones take their defaults."}
        schemas[f"CreateTable_{name}"] = variant
        refs[name] = f"#/components/schemas/CreateTable_{name}"
    return {"oneOf": [{"$ref": r} for r in refs.values()],
            "discriminator": {"propertyName": "game", "mapping": refs}}


def _action_variants(schemas: dict[str, Any]) -> None:
    """``SubmitAction.action``: one of the hosted games' action unions
    (each discriminated by ``type``, :mod:`services.gateway.actions`)."""
    variants = []
    for name in available():
        one = actions.schema(get_game(name))
        if one is None:
            continue
        schemas.update(one.pop("$defs", {}))
        schemas[f"Action_{name}"] = {**one, "title": f"An action of {get_game(name).title}"}
        variants.append({"$ref": f"#/components/schemas/Action_{name}"})
    if variants:
        prop = schemas["SubmitAction"]["properties"]["action"]
        schemas["SubmitAction"]["properties"]["action"] = {
            "anyOf": variants, "description": prop.get("description", ""), "examples": prop.get("examples", [])}


#: The seat token as an OpenAPI security scheme: Swagger UI (`/docs`) sends
#: it once given to its Authorize button, where it never sends a header
#: parameter named Authorization (the OpenAPI specification tells it not to).
SEAT_TOKEN = {"type": "http", "scheme": "bearer",
              "description": "The seat token `POST /tables/{T}/join` returned (`Authorization: Bearer <token>`)."}


def _seat_token(op: dict[str, Any]) -> None:
    """Describe ``op``'s ``Authorization`` header parameter as the
    ``seatToken`` security requirement (optional unless marked required)."""
    params = op.get("parameters", [])
    auth = [p for p in params if p.get("in") == "header" and p.get("name", "").lower() == "authorization"]
    if not auth:
        return
    op["parameters"] = [p for p in params if p not in auth]
    if not op["parameters"]:
        del op["parameters"]
    # FastAPI marks the header optional either way (a missing token is the route's own 401):
    # services.gateway.deps marks the routes that need one
    required = auth[0].get("schema", {}).get("x-token-required")
    op["security"] = [{"seatToken": []}] if required else [{"seatToken": []}, {}]


def complete(spec: dict[str, Any]) -> dict[str, Any]:
    """Complete FastAPI's description ``spec`` in place (see module doc)."""
    spec.setdefault("components", {})["securitySchemes"] = {"seatToken": SEAT_TOKEN}
    schemas = spec["components"].setdefault("schemas", {})
    schemas["Problem"] = Problem.model_json_schema()
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            responses = op.setdefault("responses", {})
            extra = dict(_ALWAYS)
            if "requestBody" in op:
                extra.update(_WITH_BODY)
            for status, description in extra.items():
                responses.setdefault(status, {"description": description})
            if "422" in responses and responses["422"].get("description") == "Validation Error":
                responses["422"]["description"] = "`invalid_request`: the body or query does not match the schema."
            for status, response in responses.items():
                if status[0] in "45":
                    response["content"] = {"application/problem+json": {"schema": _PROBLEM}}
            _seat_token(op)
            if path == "/tables" and method == "post":
                op["requestBody"]["content"]["application/json"]["schema"] = _create_variants(schemas)
    _action_variants(schemas)
    return spec


def install(app: FastAPI) -> None:
    """Make ``app.openapi()`` return the completed description."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = complete(get_openapi(
                title=app.title, version=app.version, description=app.description, routes=app.routes,
                tags=app.openapi_tags))
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
