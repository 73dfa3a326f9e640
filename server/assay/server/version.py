"""The installed version of Assay (``assay --version``, SARIF's tool version)."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version


def assay_version() -> str:
    """The version of the installed distribution; a checkout that was never installed has none."""
    try:
        return version("assay")
    except PackageNotFoundError:
        return "0+unknown"
