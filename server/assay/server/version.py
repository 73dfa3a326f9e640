"""The version of Assay (``assay --version``, the MCP server's, SARIF's tool version).

The one place it is written: pyproject.toml reads it from here (``[tool.hatch.version]``), so the installed
distribution carries the same number, and ``assay --version`` needs no package metadata lookup, whose
import alone costs more than the rest of the command.
"""

from __future__ import annotations

__version__ = "0.1.0"


def assay_version() -> str:
    """The version of Assay."""
    return __version__
