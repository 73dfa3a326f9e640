"""Settings of the ``assay`` command line, read from the environment once, here.

Environment variables:
- ``ASSAY_DATABASE_URL``: the service database (default: a SQLite file in the data directory).
- ``ASSAY_DATA_DIR``: the data directory (default: ``platformdirs.user_data_dir("assay")``).
- ``ASSAY_RATE_LIMIT_BURST``, ``ASSAY_RATE_LIMIT_PER_SECOND``: per-key token bucket (0 burst disables).
- ``ASSAY_MAX_SCAN_BODY_BYTES``: the largest scan submission, on the wire and decompressed.
- ``ASSAY_METRICS``: ``on`` (default) or ``off``: whether ``GET /metrics`` is served.
- ``ASSAY_RUNTIME_ALLOWED_NETWORKS``: comma-separated CIDRs runtime probes may reach although restricted
  (loopback, private, link-local); default none.
- ``ASSAY_PUBLIC_URL``: the address people open the service at (``https://assay.example.com``), for links
  printed by the command line (``assay admin user invite``); pages build their links from the request.
- ``ASSAY_RUNTIME_ALLOW_COMMANDS``: ``1`` lets a shared service (``assay serve``, ``assay worker``) start
  ``mcp-command`` targets; the embedded and local modes always may.
- ``ASSAY_GIT_MAX_BYTES`` (default 256 MiB), ``ASSAY_GIT_TIMEOUT_SECONDS`` (default 120): bounds of the fetch
  of a remote git source; ``ASSAY_GIT_CA_FILE``: certificate authorities trusted for https remotes (default:
  the system's); ``ASSAY_GIT_KNOWN_HOSTS``: the SSH host keys trusted (default ``<data dir>/git_known_hosts``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from assay.backend.runtime.network import Network, parse_networks
from assay.backend.settings import (
    DEFAULT_MAX_SCAN_BODY_BYTES,
    MAX_SCAN_BODY_SETTING,
    GitFetchSettings,
    RateLimitSettings,
    ServiceSettings,
    sqlite_url_for,
)

ENV_DATABASE_URL = "ASSAY_DATABASE_URL"
ENV_DATA_DIR = "ASSAY_DATA_DIR"
ENV_RATE_LIMIT_BURST = "ASSAY_RATE_LIMIT_BURST"
ENV_RATE_LIMIT_PER_SECOND = "ASSAY_RATE_LIMIT_PER_SECOND"
ENV_MAX_SCAN_BODY_BYTES = MAX_SCAN_BODY_SETTING
ENV_SIGNING_KEY_DIR = "ASSAY_SIGNING_KEY_DIR"
ENV_SIGNING_KEY_FILE = "ASSAY_SIGNING_KEY_FILE"
ENV_METRICS = "ASSAY_METRICS"
ENV_RUNTIME_ALLOWED_NETWORKS = "ASSAY_RUNTIME_ALLOWED_NETWORKS"
ENV_RUNTIME_ALLOW_COMMANDS = "ASSAY_RUNTIME_ALLOW_COMMANDS"
ENV_RUNTIME_TARGET_SESSIONS = "ASSAY_RUNTIME_TARGET_SESSIONS"
ENV_PUBLIC_URL = "ASSAY_PUBLIC_URL"
ENV_GIT_MAX_BYTES = "ASSAY_GIT_MAX_BYTES"
ENV_GIT_TIMEOUT_SECONDS = "ASSAY_GIT_TIMEOUT_SECONDS"
ENV_GIT_CA_FILE = "ASSAY_GIT_CA_FILE"
ENV_GIT_KNOWN_HOSTS = "ASSAY_GIT_KNOWN_HOSTS"
DEFAULT_KNOWN_HOSTS_FILE = "git_known_hosts"
_SWITCH = {"on": True, "true": True, "1": True, "yes": True, "off": False, "false": False, "0": False, "no": False}
DEFAULT_DATABASE_FILE = "assay.db"


class SettingsError(ValueError):
    """An environment variable holds a value the service cannot use."""


@dataclass(frozen=True, slots=True)
class Environment:
    """What the environment says, read once."""

    database_url: str | None
    data_dir: Path
    rate_limit: RateLimitSettings
    max_scan_body_bytes: int = DEFAULT_MAX_SCAN_BODY_BYTES
    # Passport signing keys replicas share (docs/passport.md): a directory, or one private key file.
    signing_key_dir: Path | None = None
    signing_key_file: Path | None = None
    metrics_enabled: bool = True
    # The runtime engine (docs/runtime.md): restricted networks an operator allows probes to reach, and
    # whether a shared service may start mcp-command targets.
    runtime_allowed_networks: tuple[Network, ...] = ()
    runtime_allow_commands: bool = False
    # Probe sessions one runtime target may have at once, across runs and workers.
    runtime_target_sessions: int = 1
    # ASSAY_PUBLIC_URL as given (checked by public_url() where a link is printed).
    public_url: str | None = None
    # Remote git sources: the fetch's bounds and trust (docs/sources.md).
    git: GitFetchSettings = field(default_factory=GitFetchSettings)

    def key_directory(self) -> Path:
        """The service's key directory: ``ASSAY_SIGNING_KEY_DIR``, else ``<data dir>/keys``."""
        return self.signing_key_dir or self.data_dir / "keys"


def default_data_dir() -> Path:
    """The per-user data directory of Assay."""
    import platformdirs

    return Path(platformdirs.user_data_dir("assay"))


def _number(environ: Mapping[str, str], name: str, default: float) -> float:
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError as exc:
        raise SettingsError(f"{name} must be a number, not {raw!r}") from exc
    if value < 0:
        raise SettingsError(f"{name} cannot be negative")
    return value


def read_environment(environ: Mapping[str, str] | None = None) -> Environment:
    """Read the variables above from ``environ`` (default: the process environment)."""
    env = os.environ if environ is None else environ
    data_dir = Path(env[ENV_DATA_DIR]).expanduser() if env.get(ENV_DATA_DIR) else default_data_dir()
    defaults = RateLimitSettings()
    burst = int(_number(env, ENV_RATE_LIMIT_BURST, defaults.burst))
    per_second = _number(env, ENV_RATE_LIMIT_PER_SECOND, defaults.per_second)
    rate_limit = (
        RateLimitSettings(enabled=False)
        if burst == 0 or per_second == 0
        else RateLimitSettings(enabled=True, burst=burst, per_second=per_second)
    )
    max_scan_body = int(_number(env, ENV_MAX_SCAN_BODY_BYTES, DEFAULT_MAX_SCAN_BODY_BYTES))
    if max_scan_body < 1024:
        raise SettingsError(f"{ENV_MAX_SCAN_BODY_BYTES} must be at least 1024 (bytes)")
    metrics = _SWITCH.get(env.get(ENV_METRICS, "on").strip().lower() or "on")
    if metrics is None:
        raise SettingsError(f"{ENV_METRICS} must be on or off")
    try:
        allowed_networks = parse_networks(env.get(ENV_RUNTIME_ALLOWED_NETWORKS))
    except ValueError as exc:
        raise SettingsError(str(exc)) from exc
    allow_commands = _SWITCH.get(env.get(ENV_RUNTIME_ALLOW_COMMANDS, "0").strip().lower() or "0")
    if allow_commands is None:
        raise SettingsError(f"{ENV_RUNTIME_ALLOW_COMMANDS} must be 1 or 0")
    target_sessions = _number(env, ENV_RUNTIME_TARGET_SESSIONS, 1)
    if target_sessions < 1 or target_sessions != int(target_sessions):
        raise SettingsError(f"{ENV_RUNTIME_TARGET_SESSIONS} must be a whole number of at least 1")
    return Environment(
        git=_git_settings(env, data_dir),
        runtime_allowed_networks=allowed_networks,
        runtime_allow_commands=allow_commands,
        runtime_target_sessions=int(target_sessions),
        public_url=env.get(ENV_PUBLIC_URL) or None,
        metrics_enabled=metrics,
        database_url=env.get(ENV_DATABASE_URL) or None,
        data_dir=data_dir,
        rate_limit=rate_limit,
        max_scan_body_bytes=max_scan_body,
        signing_key_dir=Path(env[ENV_SIGNING_KEY_DIR]).expanduser() if env.get(ENV_SIGNING_KEY_DIR) else None,
        signing_key_file=Path(env[ENV_SIGNING_KEY_FILE]).expanduser() if env.get(ENV_SIGNING_KEY_FILE) else None,
    )


def _git_settings(env: Mapping[str, str], data_dir: Path) -> GitFetchSettings:
    defaults = GitFetchSettings()
    max_bytes = _number(env, ENV_GIT_MAX_BYTES, defaults.max_bytes)
    if max_bytes < 1024 or max_bytes != int(max_bytes):
        raise SettingsError(f"{ENV_GIT_MAX_BYTES} must be a whole number of bytes, at least 1024")
    timeout = _number(env, ENV_GIT_TIMEOUT_SECONDS, defaults.timeout_seconds)
    if timeout <= 0:
        raise SettingsError(f"{ENV_GIT_TIMEOUT_SECONDS} must be more than 0 (seconds)")
    ca_file = Path(env[ENV_GIT_CA_FILE]).expanduser() if env.get(ENV_GIT_CA_FILE) else None
    known_hosts = (
        Path(env[ENV_GIT_KNOWN_HOSTS]).expanduser()
        if env.get(ENV_GIT_KNOWN_HOSTS)
        else data_dir / DEFAULT_KNOWN_HOSTS_FILE
    )
    return GitFetchSettings(max_bytes=int(max_bytes), timeout_seconds=timeout, ca_file=ca_file, known_hosts=known_hosts)


def database_url(cli_value: str | None, environment: Environment) -> str:
    """The database to use: ``--database-url``, else ``ASSAY_DATABASE_URL``, else the default SQLite file."""
    chosen = cli_value or environment.database_url
    if chosen:
        return chosen
    return sqlite_url_for(environment.data_dir / DEFAULT_DATABASE_FILE)


def public_url(cli_value: str | None, environment: Environment) -> str | None:
    """The service's public address for printed links: ``--public-url``, else ``ASSAY_PUBLIC_URL``, without a
    trailing slash; None when neither is set. An http(s) URL with a host and nothing after the path."""
    from urllib.parse import urlsplit

    chosen = (cli_value or environment.public_url or "").strip()
    if not chosen:
        return None
    name = "--public-url" if cli_value else ENV_PUBLIC_URL
    parts = urlsplit(chosen)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        raise SettingsError(f"{name} must be an http(s) address such as https://assay.example.com, not {chosen!r}")
    return chosen.rstrip("/")


def service_settings(cli_database_url: str | None, environment: Environment) -> ServiceSettings:
    """The service settings for ``assay serve``."""
    return ServiceSettings(
        database_url=database_url(cli_database_url, environment),
        data_dir=environment.data_dir,
        rate_limit=environment.rate_limit,
        signing_key_dir=environment.signing_key_dir,
        signing_key_file=environment.signing_key_file,
        max_scan_body_bytes=environment.max_scan_body_bytes,
        metrics_enabled=environment.metrics_enabled,
        runtime_allowed_networks=environment.runtime_allowed_networks,
        runtime_allow_commands=environment.runtime_allow_commands,
        runtime_target_sessions=environment.runtime_target_sessions,
        git=environment.git,
    )
