"""Settings of the assurance service: plain values handed to ``create_app`` by whoever reads the environment.

Nothing here reads environment variables; the ``assay`` command line does that once
(``assay.server.settings``) and builds a :class:`ServiceSettings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from assay.backend.runtime.network import Network

MIB = 1024 * 1024
DEFAULT_MAX_SCAN_BODY_BYTES = 160 * MIB
# How an operator changes it (ASSAY_MAX_SCAN_BODY_BYTES, read by the command line): errors name it.
MAX_SCAN_BODY_SETTING = "ASSAY_MAX_SCAN_BODY_BYTES"


def sqlite_url_for(path: Path) -> str:
    """The aiosqlite URL of a database file."""
    return f"sqlite+aiosqlite:///{path.resolve()}"


@dataclass(frozen=True, slots=True)
class RateLimitSettings:
    """A per-API-key token bucket: ``burst`` requests at once, refilled at ``per_second``.

    The defaults allow a polling agent (one request a second) and short bursts with a wide margin,
    while stopping a runaway loop. ``enabled=False`` turns limiting off (benchmarks, trusted setups).
    """

    enabled: bool = True
    burst: int = 60
    per_second: float = 10.0


@dataclass(frozen=True, slots=True)
class GitFetchSettings:
    """Bounds and trust of the fetch of a remote git source (docs/sources.md).

    ``max_bytes`` bounds both the fetched pack and the checked-out tree; ``timeout_seconds`` the whole
    fetch (listing, transfer and checkout). ``ca_file`` replaces the system's certificate authorities for
    HTTPS remotes (an internal CA); ``known_hosts`` is the only file of SSH host keys trusted (strict
    checking: an unknown host is refused, never added).
    """

    max_bytes: int = 256 * MIB
    timeout_seconds: float = 120.0
    ca_file: Path | None = None
    known_hosts: Path | None = None


@dataclass(frozen=True, slots=True)
class ServiceSettings:
    """Everything the service needs to start.

    ``database_url`` is an SQLAlchemy async URL: ``sqlite+aiosqlite:///PATH`` (the embedded default) or
    ``postgresql+asyncpg://USER@HOST/DB``. ``data_dir`` holds service files other than the database.
    """

    database_url: str
    data_dir: Path | None = None
    rate_limit: RateLimitSettings = field(default_factory=RateLimitSettings)
    # POST /api/v1/scans carries a whole Evidence Bundle; bigger bodies get 413, on the wire and again
    # after gzip decompression. The generated bench tree (a tool every 25 lines, denser than real code)
    # makes 111 bytes of bundle per line: a 1,000,000-line repository is about 111 MB, with headroom.
    max_scan_body_bytes: int = DEFAULT_MAX_SCAN_BODY_BYTES
    # Every other JSON body is small; bigger ones get 400 INVALID_REQUEST.
    max_json_body_bytes: int = 64 * 1024
    # The request line and headers together; larger requests get 431 in the envelope.
    max_header_bytes: int = 16 * 1024
    # Intake bodies (structured, log, OTLP), after gunzip; streamed to a spool file, so this bounds disk, not
    # memory. Bigger bodies get 413.
    max_intake_body_bytes: int = 128 * MIB
    # A SARIF log is validated against its schema whole, in memory: a tighter bound.
    max_sarif_body_bytes: int = 32 * MIB
    # The largest normalized intake record when the binder sets no maxRecordBytes.
    max_intake_record_bytes: int = MIB
    # Create or upgrade the schema (Alembic) when the app starts.
    migrate_on_start: bool = True
    # How long an Idempotency-Key is remembered (contract part 8: 24 hours).
    idempotency_ttl_seconds: int = 24 * 60 * 60
    # Legacy-trigger scans run the static engine in worker threads; at most this many at once.
    max_concurrent_scans: int = 2
    # SQLite only: how long a writer waits for a lock before failing.
    sqlite_busy_timeout_ms: int = 5000
    # Runs: the app starts this many in-process workers; 0 makes an API-only replica (`assay serve
    # --workers 0`), whose runs are executed by other replicas or `assay worker` processes.
    run_workers: int = 1
    # A claimed run's lease; the worker renews it while it works. An expired lease means the worker died.
    run_lease_seconds: float = 60.0
    # Fallback poll when no in-process wake-up arrives (other processes creating runs).
    worker_poll_seconds: float = 1.0
    # GET /metrics (Prometheus), public on the listen address; False does not mount it.
    metrics_enabled: bool = True
    # A run interrupted this many times is failed (retryable) instead of being picked up again.
    max_run_attempts: int = 2

    # The runtime engine (docs/runtime.md): restricted networks probes may reach anyway (CIDRs), and whether
    # mcp-command targets may be started (embedded and local modes; a shared service only when enabled).
    runtime_allowed_networks: tuple[Network, ...] = ()
    runtime_allow_commands: bool = False
    # Probe-session ceilings, whatever a run asks: requests, seconds, recorded bytes, one message's bytes.
    runtime_max_requests: int = 200
    runtime_max_seconds: float = 120.0
    runtime_max_bytes: int = 16 * MIB
    runtime_max_message_bytes: int = 4 * MIB
    # Probe sessions one target may have at once, across runs, workers and replicas (runtime/slots.py),
    # and how long a run waits for one of them before it fails (retryable).
    runtime_target_sessions: int = 1
    runtime_target_wait_seconds: float = 300.0

    # Remote git sources: how big and how slow a fetch may be, and which hosts are trusted.
    git: GitFetchSettings = field(default_factory=GitFetchSettings)

    # Passport signing keys (docs/passport.md): replicas share one key directory (default
    # ``<data_dir>/keys``), or are each given the same private key file, which is then the active key.
    signing_key_dir: Path | None = None
    signing_key_file: Path | None = None

    def key_directory(self) -> Path | None:
        """Where the passport signing keys live, outside the database: the configured directory, else
        ``<data_dir>/keys``."""
        if self.signing_key_dir is not None:
            return self.signing_key_dir
        return self.data_dir / "keys" if self.data_dir is not None else None
