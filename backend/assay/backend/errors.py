"""The error envelope of the contract (part 7) and the one place that maps codes to HTTP statuses.

Every failure leaves the service as ``{"error": {"code", "message", "retryable"}}``. Handlers raise
:class:`ApiError`; the exception handlers of ``assay.backend.web.error_handlers`` turn it, Starlette's own
404/405, and any unexpected exception into that envelope. Clients branch on ``code``, never on text.
Nothing here needs the web stack, so the provisioning that raises these (``assay admin``) loads none of it.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Mapping
from typing import Literal, get_args

from sqlalchemy.exc import DBAPIError, OperationalError

logger = logging.getLogger(__name__)

ErrorCode = Literal[
    "UNAUTHORIZED",
    "INSUFFICIENT_SCOPE",
    "INVALID_REQUEST",
    "AI_SYSTEM_NOT_FOUND",
    "SOURCE_NOT_VERIFIED",
    "SOURCE_CONFLICTED",
    "SOURCE_UNAVAILABLE",
    "SOURCE_AMBIGUOUS",
    "BRANCH_REQUIRED",
    "CONSENT_REQUIRED",
    "RATE_LIMITED",
    "RUN_NOT_FOUND",
    "RUN_FAILED",
    "RUN_CONFLICT",
    "IDEMPOTENCY_CONFLICT",
    "RESOURCE_NOT_FOUND",
    "INTERNAL_ERROR",
]
ERROR_CODES: tuple[ErrorCode, ...] = get_args(ErrorCode)

# Default HTTP status of each code (docs/api.md publishes this table). A raise may override the status
# only where the contract names one: 413 for an oversized scan submission, 405 for a wrong method.
STATUS_BY_CODE: Mapping[ErrorCode, int] = {
    "UNAUTHORIZED": 401,
    "INSUFFICIENT_SCOPE": 403,
    "INVALID_REQUEST": 400,
    "AI_SYSTEM_NOT_FOUND": 404,
    "SOURCE_NOT_VERIFIED": 400,
    "SOURCE_CONFLICTED": 409,
    "SOURCE_UNAVAILABLE": 409,
    "SOURCE_AMBIGUOUS": 400,
    "BRANCH_REQUIRED": 400,
    "CONSENT_REQUIRED": 403,
    "RATE_LIMITED": 429,
    "RUN_NOT_FOUND": 404,
    "RUN_FAILED": 409,
    "RUN_CONFLICT": 409,
    "IDEMPOTENCY_CONFLICT": 409,
    "RESOURCE_NOT_FOUND": 404,
    "INTERNAL_ERROR": 500,
}

# Codes a client may retry unchanged (after Retry-After where given).
RETRYABLE_CODES: frozenset[ErrorCode] = frozenset({"RATE_LIMITED", "INTERNAL_ERROR"})


class ApiError(Exception):
    """A failure with a stable contract code; becomes the error envelope at the edge."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        status: int | None = None,
        retryable: bool | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.status = status if status is not None else STATUS_BY_CODE[code]
        self.retryable = retryable if retryable is not None else code in RETRYABLE_CODES
        self.headers: dict[str, str] = dict(headers or {})


def error_body(code: ErrorCode, message: str, retryable: bool) -> dict[str, dict[str, object]]:
    """The envelope as a JSON object."""
    return {"error": {"code": code, "message": message, "retryable": retryable}}


def not_found(code: ErrorCode = "RESOURCE_NOT_FOUND", what: str = "resource") -> ApiError:
    """The one 404 for "missing" and "another organization's": same status, body and headers."""
    return ApiError(code, f"The {what} was not found.")


def log_unhandled(exc: BaseException, method: str, route: str) -> None:
    """Log an unexpected failure with its type and stack, but not its message: messages of library errors
    quote the values that made them fail (a number, a string of the request), and no log line may hold
    what a request carried."""
    stack = "".join(traceback.format_tb(exc.__traceback__))
    logger.error(
        "unhandled %s on %s %s",
        type(exc).__name__,
        method,
        route,
        extra={"event": "request.failed", "errorType": type(exc).__name__, "stack": stack},
    )


_DEADLOCK_DETECTED = "40P01"  # PostgreSQL's SQLSTATE


def database_busy(exc: BaseException) -> ApiError | None:
    """503 INTERNAL_ERROR, retryable, for a write that waited for SQLite's write lock longer than the busy
    timeout (another writer held it), or that PostgreSQL chose as a deadlock's victim (two big intake
    batches claiming the same event ids in different orders); None for any other failure."""
    if (isinstance(exc, OperationalError) and "database is locked" in str(exc.orig)) or (
        isinstance(exc, DBAPIError) and getattr(exc.orig, "sqlstate", None) == _DEADLOCK_DETECTED
    ):
        return ApiError(
            "INTERNAL_ERROR",
            "The database is busy with other writes; retry the request.",
            status=503,
            retryable=True,
            headers={"Retry-After": "1"},
        )
    return None


def internal_error() -> ApiError:
    """The 500 answer: no stack trace, no internals."""
    return ApiError("INTERNAL_ERROR", "The service failed to handle the request. Try again later.")
