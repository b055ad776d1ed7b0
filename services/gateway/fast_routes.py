"""A FastAPI route that answers its plainly valid requests without
FastAPI's per-request parameter machinery (issue 14).

FastAPI solves a route's dependencies and validates its path, query,
header and body parameters on every request, field by field: for the
action route that costs about as much as the bare app's whole request
(``loadtests/fastapi_params_cost.py``).  A route of :class:`FastRoute`
whose endpoint names a *fast path* (:func:`fast_path`) first offers each
request to it: a coroutine ``(request) -> Response | None`` that reads the
few things a well-formed request carries and calls the endpoint itself.
It answers only requests it recognises as plainly valid (the exact
content type, the usual query string, a body the route's model accepts);
for anything else it returns None and FastAPI's own handler answers as it
always does, so every refusal keeps FastAPI's order and shape (a
malformed body's 400/422 before the dependencies' 401/403/404, then the
parameters' 422).  The route's OpenAPI description is FastAPI's, from the
endpoint's signature, unchanged.

A fast path may raise what the endpoint's dependencies raise (an
:class:`~services.gateway.errors.ApiError`) once it has checked every
parameter FastAPI validates before them: then FastAPI would have raised
the same error.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

#: A fast path: the response, or None to let FastAPI's handler answer.
FastPath = Callable[[Request], Awaitable[Response | None]]

_FAST: dict[Callable[..., Any], FastPath] = {}

def fast_path(endpoint: Callable[..., Any]) -> Callable[[FastPath], FastPath]:
    """Decorator registering the decorated coroutine as ``endpoint``'s fast
    path (used by :class:`FastRoute`)."""

    def register(fn: FastPath) -> FastPath:
        _FAST[endpoint] = fn
        return fn

    return register


class FastRoute(APIRoute):
    """An :class:`~fastapi.routing.APIRoute` that offers each request to
    its endpoint's fast path first (:func:`fast_path`), then to FastAPI's
    handler.  Routes without one behave as plain ``APIRoute``s."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        slow = super().get_route_handler()
        endpoint = self.endpoint

        async def handler(request: Request) -> Response:
            # Looked up per request: the fast path is registered after the
            # route (its decorator names the endpoint).
            fast = _FAST.get(endpoint)
            if fast is not None:
                response = await fast(request)
                if response is not None:
                    return response
            return await slow(request)

        return handler
