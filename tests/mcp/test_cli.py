"""`assay mcp` options: flags over the environment, and combinations that cannot work are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from assay.server.cli import build_parser
from assay.server.commands.mcp import resolve_options
from assay.server.settings import SettingsError


def _options(argv: list[str], environ: dict[str, str]) -> object:
    return resolve_options(build_parser().parse_args(["mcp", *argv]), environ)


def test_embedded_by_default_and_remote_from_the_environment(tmp_path: Path) -> None:
    embedded = _options(["--workspace", str(tmp_path)], {})
    assert embedded.base_url is None and embedded.workspace == tmp_path.resolve()
    remote = _options([], {"ASSAY_BASE_URL": "http://svc", "ASSAY_API_KEY": "k", "ASSAY_SYSTEM_ID": "sys_1"})
    assert (remote.base_url, remote.api_key, remote.system_id) == (
        "http://svc",
        "k",
        "sys_1",
    )
    flags = _options(["--base-url", "http://flag", "--api-key", "f"], {"ASSAY_BASE_URL": "http://env"})
    assert flags.base_url == "http://flag"
    # Over HTTP the callers bring their own keys: a base URL alone is enough.
    assert _options(["--transport", "http", "--base-url", "http://svc"], {}).api_key is None


@pytest.mark.parametrize(
    "argv, environ",
    [
        ([], {"ASSAY_BASE_URL": "http://svc"}),
        ([], {"ASSAY_API_KEY": "k"}),
        (["--database-url", "sqlite+aiosqlite:///x.db"], {"ASSAY_BASE_URL": "http://svc", "ASSAY_API_KEY": "k"}),
    ],
)
def test_combinations_that_cannot_work_are_refused(argv: list[str], environ: dict[str, str]) -> None:
    with pytest.raises(SettingsError):
        _options(argv, environ)
