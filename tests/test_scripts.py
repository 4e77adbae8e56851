"""The README's two commands: ``scripts/run`` sets up what serving needs and nothing more; ``scripts/test`` adds
the development extras.  Run on a copy of the project, in a new virtual environment."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.slow  # a new virtual environment: a minute or two of pip and numba
def test_the_run_script_installs_what_serving_needs_and_no_development_extra(tmp_path: Path) -> None:
    copy = tmp_path / "project"
    copy.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(REPO / name, copy / name)
    for name in ("solver", "service", "scripts"):
        shutil.copytree(REPO / name, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PYTHON"] = getattr(sys, "_base_executable", sys.executable)  # a new environment, not this one's
    setup = subprocess.run(["bash", "scripts/setup"], cwd=copy, env=env, capture_output=True, text=True,
                           timeout=1200, check=False)
    assert setup.returncode == 0, setup.stderr[-3000:]
    probe = ("import importlib.util as u; print(' '.join(m for m in ('flask', 'numba', 'sqlalchemy', 'dask', "
             "'pytest', 'mypy', 'playwright', 'schemathesis', 'hypothesis') if u.find_spec(m)))")
    found = subprocess.run([str(copy / ".venv/bin/python"), "-c", probe], capture_output=True, text=True,
                           check=True).stdout.split()
    assert found == ["flask", "numba", "sqlalchemy", "dask"]
    served = subprocess.run([str(copy / ".venv/bin/bullscows"), "next", "-g", "mastermind", "0012", "1.0"],
                            capture_output=True, text=True, check=True)
    assert served.stdout.strip() == "0334"
