"""The HTTP gateway: the FastAPI app (:mod:`services.gateway.app`), its
route modules, request and response bodies, errors and middlewares."""
