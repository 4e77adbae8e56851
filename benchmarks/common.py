"""Helpers shared by the benchmark scripts: timing with medians, and a description of the machine."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import time
from collections.abc import Callable
from typing import Any


def machine() -> dict[str, Any]:
    """What the figures were measured on."""
    import numba
    import numpy

    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=False).stdout.strip()
    except OSError:
        commit = ""
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "numba": numba.__version__,
        "platform": platform.platform(),
        "commit": commit,
        "load_average": os.getloadavg(),
    }


def timed(fn: Callable[[], Any], runs: int = 3, warmup: int = 1) -> dict[str, Any]:
    """Median, min and max seconds of ``runs`` calls of ``fn`` after ``warmup`` calls (JIT, caches)."""
    result: Any = None
    for _ in range(warmup):
        result = fn()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return {
        "median_s": round(statistics.median(times), 6),
        "min_s": round(min(times), 6),
        "max_s": round(max(times), 6),
        "runs": runs,
        "result": result,
    }
