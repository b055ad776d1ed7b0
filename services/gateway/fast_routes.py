"""The hot routes' plainly valid requests, answered without FastAPI's
per-request machinery (issue 14).

For every request FastAPI walks its routers, opens two exit stacks,
solves the route's dependencies and validates its path, query, header and
body parameters field by field: for the action route that costs about as
much as the bare app's whole request (``loadtests/fastapi_params_cost.py``,
``loadtests/gateway_cost.py``).  An endpoint may name a *fast path*
(:func:`fast_path`): a coroutine ``(request) -> Response | None`` that
reads the few things a well-formed request carries and calls the endpoint
itself.  :class:`HotRoutes`, an ASGI middleware inside the gateway's body
limit and metrics, offers each request of such a route to its fast path
first.  A fast path answers only requests it recognises as plainly valid
(the exact content type, the usual query string, a body the route's model
accepts); for anything else it returns None and the request goes on to
FastAPI, which answers as it always does: every refusal keeps FastAPI's
order and shape (a malformed body's 400/422 before the dependencies'
401/403/404, then the parameters' 422).  The routes stay declared as
usual, so the OpenAPI description is FastAPI's, unchanged.

A fast path may raise what the endpoint or its dependencies raise (an
:class:`~services.gateway.errors.ApiError`, a Redis error) once it has
checked every parameter FastAPI validates before them: the app's own
exception handlers answer it (any other exception is a bug, answered by
the outermost error middleware, as for any route).  FastAPI's
``dependency_overrides`` do not reach a fast path (it calls the
dependencies' functions itself; the gateway overrides none).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request, Response
from fastapi.routing import APIRoute
from starlette.routing import BaseRoute, Match

#: A fast path: the response, or None to let FastAPI answer.
FastPath = Callable[[Request], Awaitable[Response | None]]

_FAST: dict[Callable[..., Any], FastPath] = {}


def fast_path(endpoint: Callable[..., Any]) -> Callable[[FastPath], FastPath]:
    """Decorator registering the decorated coroutine as ``endpoint``'s fast
    path (served by :class:`HotRoutes`)."""

    def register(fn: FastPath) -> FastPath:
        _FAST[endpoint] = fn
        return fn

    return register


class HotRoutes:
    """ASGI middleware serving the fast paths (:func:`fast_path`) of
    ``routes`` (FastAPI routes of ``app``) before FastAPI's router; a
    request no fast path answers goes on to ``app``'s router unchanged.

    Install it innermost (inside the body limit and the metrics, which
    see these requests as any other: ``scope["route"]`` is set as the
    router sets it)."""

    def __init__(self, asgi: Any, app: FastAPI, routes: list[BaseRoute]) -> None:
        self.asgi = asgi
        self.app = app
        self.hot = [(route, _FAST[route.endpoint]) for route in routes
                    if isinstance(route, APIRoute) and route.endpoint in _FAST]

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] == "http":
            for route, fast in self.hot:
                match, child = route.matches(scope)
                if match is Match.FULL:
                    scope.update(child)
                    request = Request(scope, receive, send)
                    try:
                        response = await fast(request)
                    except Exception as exc:
                        handler = self._handler(exc)
                        if handler is None:
                            raise  # a bug: the outermost error middleware answers 500
                        response = await handler(request, exc)
                    if response is not None:
                        await response(scope, receive, send)
                        return
                    receive = _replaying(request, receive)
                    break
        await self.asgi(scope, receive, send)

    def _handler(self, exc: Exception) -> Callable[..., Any] | None:
        """The app's exception handler for ``exc`` (by its classes, nearest
        first), None for the catch-all ``Exception`` one."""
        for cls in type(exc).__mro__:
            if cls is Exception:
                return None
            handler = self.app.exception_handlers.get(cls)
            if handler is not None:
                return handler
        return None


def _replaying(request: Request, receive: Any) -> Any:
    """``receive`` for FastAPI after a fast path declined ``request``: the
    body the fast path read (Starlette keeps it on the request, as its own
    middlewares do) is handed over again first."""
    body = getattr(request, "_body", None)
    if body is None:
        return receive
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
