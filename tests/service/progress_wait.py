"""Waiting on a campaign process through its progress file, for the tests that stop or join one mid-run."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def wait_for_progress(proc: subprocess.Popen[Any], path: Path, read: Callable[[str], dict[str, Any] | None],
                      ready: Callable[[dict[str, Any]], bool], *, timeout: float = 300.0, may_end: bool = False,
                      interval: float = 0.02) -> None:
    """Poll ``path`` (read with the campaign module's ``read``) until ``ready`` holds of it, at most ``timeout``
    seconds.  The process must still run meanwhile, or the test would stop a campaign that already ended
    (asserted), unless ``may_end``: then its end stops the wait as well."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        doc = read(str(path)) if path.exists() else None
        if doc is not None and ready(doc):
            return
        if proc.poll() is not None:
            assert may_end, "the campaign ended before the test could act on it"
            return
        time.sleep(interval)
