"""Per-API-key token buckets for the routes marked ``rate_limited`` in the route table.

Buckets live in the process: with several service processes each enforces its own share. That is the
documented behaviour (docs/api.md), enough to stop a runaway agent loop, and needs no shared store.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from assay.backend.errors import ApiError
from assay.backend.settings import RateLimitSettings

# Above this many tracked keys, buckets that have refilled completely are dropped (they hold no state).
_PRUNE_THRESHOLD = 10_000


@dataclass(slots=True)
class _Bucket:
    tokens: float
    updated: float


class TokenBucketLimiter:
    """``burst`` requests at once per key, refilled at ``per_second``.

    Not thread-safe by design: it is used from the event loop only, and ``take`` never awaits.
    """

    def __init__(self, settings: RateLimitSettings, clock: Callable[[], float] = time.monotonic) -> None:
        if settings.burst < 1 or settings.per_second <= 0:
            raise ValueError("rate limit needs burst >= 1 and per_second > 0")
        self._settings = settings
        self._clock = clock
        self._buckets: dict[str, _Bucket] = {}

    def take(self, key: str) -> float | None:
        """Spend one token of ``key``'s bucket; ``None`` when allowed, else the seconds until one is free."""
        capacity = float(self._settings.burst)
        now = self._clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= _PRUNE_THRESHOLD:
                self._prune(now)
            bucket = self._buckets[key] = _Bucket(tokens=capacity, updated=now)
        else:
            bucket.tokens = min(capacity, bucket.tokens + (now - bucket.updated) * self._settings.per_second)
            bucket.updated = now
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return None
        return (1.0 - bucket.tokens) / self._settings.per_second

    def check(self, key: str) -> None:
        """Spend a token or raise 429 RATE_LIMITED with ``Retry-After`` (whole seconds, at least 1)."""
        if not self._settings.enabled:
            return
        wait = self.take(key)
        if wait is not None:
            retry_after = max(1, math.ceil(wait))
            raise ApiError(
                "RATE_LIMITED",
                f"Too many requests for this API key; retry after {retry_after} s.",
                headers={"Retry-After": str(retry_after)},
            )

    def _prune(self, now: float) -> None:
        capacity = float(self._settings.burst)
        rate = self._settings.per_second
        full = [k for k, b in self._buckets.items() if b.tokens + (now - b.updated) * rate >= capacity]
        for k in full:
            del self._buckets[k]
