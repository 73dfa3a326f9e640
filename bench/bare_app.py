"""The baseline for the HTTP benchmark: a bare Starlette route returning fixed bytes.

Started under uvicorn exactly like ``assay serve`` (same server, same settings), it answers
``GET /api/v1/systems`` with the body and content type the real service returned, read from the file
named by ``BENCH_BODY_FILE``.
"""

from __future__ import annotations

import os
from pathlib import Path

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route


def create_app() -> Starlette:
    body = Path(os.environ["BENCH_BODY_FILE"]).read_bytes()

    async def systems(_request: Request) -> Response:
        return Response(body, media_type="application/json")

    return Starlette(routes=[Route("/api/v1/systems", systems)])
