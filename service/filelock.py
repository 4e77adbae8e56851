"""An exclusive lock beside a data file, for the commands that rewrite shipped files after long computations.

Why: ``bullscows atlas hybrid`` or ``records rollout`` run for minutes to hours, and two of them (two games,
two cores) may finish at the same moment.  Each reads the file, changes its own entry and writes the whole
file back; without a lock around that read-modify-write the later writer would drop the earlier one's entry.
The lock is advisory (``fcntl.flock``) and held only for the short update, never during the computation.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator


@contextlib.contextmanager
def exclusive(path: str) -> Iterator[None]:
    """Hold the lock of ``path`` (the file ``path + ".lock"``, created if needed) for the ``with`` block."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(f"{path}.lock", "a", encoding="utf-8") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
