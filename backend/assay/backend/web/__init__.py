"""The HTTP edge: the Starlette app, routing, request bodies, auth, rate limits, idempotency, OpenAPI."""
