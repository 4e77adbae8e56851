"""An exclusive lock beside a data file, for the commands that rewrite shipped files after long computations.

Why: ``bullscows atlas hybrid`` or ``records rollout`` run for minutes to hours, and two of them (two games,
two cores) may finish at the same moment.  Each reads the file, changes its own entry and writes the whole
file back; without a lock around that read-modify-write the later writer would drop the earlier one's entry.
The lock is advisory (``fcntl.flock``) and held only for the short update, never during the computation.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Iterator
from typing import Any


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


@contextlib.contextmanager
def alone(path: str) -> Iterator[bool]:
    """Hold the lock of ``path`` for the ``with`` block if nobody holds it: yields False at once, holding nothing,
    when another process does (for work that must not run twice at once, told so rather than kept waiting)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(f"{path}.lock", "a", encoding="utf-8") as fh:
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def write_json(path: str, doc: Any) -> None:
    """Write ``doc`` as indented JSON atomically: a process killed while writing leaves the previous file,
    never half of one.  Readable by all (``mkstemp`` makes 0600 files; these are shipped data)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(doc, fh, indent=1)
            fh.write("\n")
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
