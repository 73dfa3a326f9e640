"""The systemd units under examples/systemd start commands this version accepts."""

from __future__ import annotations

import configparser
import shlex
from pathlib import Path

import pytest

from assay.server.cli import build_parser

UNITS = sorted((Path(__file__).resolve().parents[2] / "examples" / "systemd").glob("*.service"))


@pytest.mark.parametrize("unit", UNITS, ids=[u.name for u in UNITS])
def test_the_unit_runs_a_valid_command(unit: Path) -> None:
    parsed = configparser.ConfigParser(strict=False, interpolation=None)
    parsed.optionxform = str  # type: ignore[assignment,method-assign]
    parsed.read(unit)
    service = parsed["Service"]
    argv = shlex.split(service["ExecStart"])
    assert Path(argv[0]).name == "assay"
    args = build_parser().parse_args(argv[1:])
    assert args.log_format == "json"
    assert service["RestartPreventExitStatus"] == "2" and service["UMask"] == "0077"
    assert len(UNITS) == 2
