"""The example systemd units of ``deploy/systemd`` (docs/deployment.md): every command they start exists and takes
the options they give it, with the addresses of the environment file they read."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from service.cli import main

UNITS = Path(__file__).resolve().parent.parent / "deploy" / "systemd"


def _env() -> dict[str, str]:
    lines = (UNITS / "bullscows.env").read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def _exec_start(unit: Path) -> list[str]:
    (line,) = [ln for ln in unit.read_text(encoding="utf-8").splitlines() if ln.startswith("ExecStart=")]
    env = _env()
    return shlex.split(re.sub(r"\$\{(\w+)\}", lambda m: env[m.group(1)], line.removeprefix("ExecStart=")))


@pytest.mark.parametrize("unit", sorted(UNITS.glob("*.service")), ids=lambda p: p.stem)
def test_each_unit_starts_a_command_that_takes_its_options(unit: Path) -> None:
    argv = _exec_start(unit)
    assert argv[0].startswith("/opt/bullscows/.venv/bin/")
    program = os.path.basename(argv[0])
    assert "EnvironmentFile=/etc/bullscows/env" in unit.read_text(encoding="utf-8")
    if program == "bullscows":  # --help after the options: click parses them all first, and refuses unknown ones
        result = CliRunner().invoke(main, [*argv[1:], "--help"])
        assert result.exit_code == 0, result.output
    else:
        assert program == "dask" and argv[1] in ("scheduler", "worker")
        dask = os.path.join(os.path.dirname(sys.executable), "dask")
        # dask's commands let unknown options through: each one given must be in the command's help
        shown = subprocess.run([dask, argv[1], "--help"], capture_output=True, text=True, timeout=120,
                               check=True).stdout
        for option in (a for a in argv[2:] if a.startswith("--")):
            assert re.search(rf"\s{re.escape(option)}\b", shown), option
