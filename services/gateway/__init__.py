"""The HTTP gateway: the FastAPI app (:mod:`services.gateway.app`), its
route modules, the dependencies they share (:mod:`services.gateway.deps`:
the context, the table a path names, the caller's seat), request and
response bodies, errors and middlewares."""
