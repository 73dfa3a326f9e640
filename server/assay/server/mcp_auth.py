"""Bearer authentication of the MCP streamable HTTP transport with the service's own API keys.

A caller authenticates with an API key of the service; the tools then act with THAT key, so its
organization and scopes apply exactly as on the REST API. Embedded, keys are checked against the
service's key table (``assay.backend.web.auth``); remote, by one call to the service with the key.
"""

from __future__ import annotations

import hashlib
import time

from mcp.server.auth.provider import AccessToken

from assay.backend.errors import ApiError
from assay.backend.storage import models
from assay.backend.storage.db import SessionFactory
from assay.backend.web.auth import authenticate, is_well_formed_key
from assay.tools.client import AssayClient, AssayError


class ServiceKeyVerifier:
    """Checks a bearer key against the embedded service's key table (revoked and expired keys fail)."""

    def __init__(self, sessions: SessionFactory) -> None:
        self._sessions = sessions

    async def verify_token(self, token: str) -> AccessToken | None:
        if not is_well_formed_key(token):
            return None
        async with self._sessions() as session:
            try:
                principal = await authenticate(session, f"Bearer {token}", models.utcnow())
            except ApiError:
                return None
        return AccessToken(
            token=token,
            client_id=principal.key_id,
            scopes=sorted(principal.scopes),
            subject=principal.organization_id,
        )


class RemoteKeyVerifier:
    """Checks a bearer key by asking the remote service (GET /api/v1/systems with it).

    401 means the key is not valid; any other answer, 403 included, means it authenticates (scopes are then
    enforced by the service on each call). Answers are remembered for ``ttl`` seconds, so a revoked key
    may work that much longer through this server.
    """

    def __init__(self, client: AssayClient, *, ttl: float = 30.0, max_entries: int = 1024) -> None:
        self._client = client
        self._ttl = ttl
        self._max_entries = max_entries
        self._cache: dict[str, tuple[float, AccessToken | None]] = {}

    async def verify_token(self, token: str) -> AccessToken | None:
        if not is_well_formed_key(token):
            return None
        digest = hashlib.sha256(token.encode("utf-8")).hexdigest()
        now = time.monotonic()
        cached = self._cache.get(digest)
        if cached is not None and cached[0] > now:
            return cached[1]
        try:
            await self._client.with_key(token).get_json("/api/v1/systems")
            verdict: AccessToken | None = AccessToken(token=token, client_id=f"key-{digest[:16]}", scopes=[])
        except AssayError as exc:
            if exc.code in ("UNAUTHORIZED",):
                verdict = None
            elif exc.code == "INSUFFICIENT_SCOPE":
                verdict = AccessToken(token=token, client_id=f"key-{digest[:16]}", scopes=[])
            else:
                # The service cannot say: refuse now, and do not remember it.
                return None
        if len(self._cache) >= self._max_entries:
            self._cache.clear()
        self._cache[digest] = (now + self._ttl, verdict)
        return verdict
