"""The token bucket on its own, with a controlled clock."""

from __future__ import annotations

import pytest

from assay.backend.errors import ApiError
from assay.backend.settings import RateLimitSettings
from assay.backend.web.ratelimit import TokenBucketLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_bucket_refills_at_the_configured_rate() -> None:
    clock = Clock()
    limiter = TokenBucketLimiter(RateLimitSettings(burst=2, per_second=0.5), clock=clock)
    assert limiter.take("k") is None
    assert limiter.take("k") is None
    assert limiter.take("k") == pytest.approx(2.0)
    clock.now += 1.0
    assert limiter.take("k") == pytest.approx(1.0)
    clock.now += 1.0
    assert limiter.take("k") is None
    assert limiter.take("other") is None


def test_check_raises_rate_limited_with_whole_seconds() -> None:
    clock = Clock()
    limiter = TokenBucketLimiter(RateLimitSettings(burst=1, per_second=4.0), clock=clock)
    limiter.check("k")
    with pytest.raises(ApiError) as caught:
        limiter.check("k")
    assert caught.value.code == "RATE_LIMITED" and caught.value.status == 429
    assert caught.value.headers["Retry-After"] == "1"


def test_disabled_limiter_never_refuses() -> None:
    limiter = TokenBucketLimiter(RateLimitSettings(enabled=False, burst=1, per_second=0.001))
    for _ in range(10):
        limiter.check("k")


def test_invalid_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="burst"):
        TokenBucketLimiter(RateLimitSettings(burst=0))
