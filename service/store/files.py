"""The JSON files the project writes besides its database: shipped data (the atlas, the records, the trees'
manifest) and the progress files that campaigns export for a fresh clone to continue from.

Why here: every claim, lease and proof of long work lives in the database, and these files are written from it or
after it; what is left is writing them well.  Several processes may rewrite one file (two campaigns of two games
keeping their entries in the atlas, a campaign and the command that follows it exporting its progress), each
reading it, changing its own part and writing the whole back.  :func:`update_json` is that read-change-write as
one step, so that the later writer never drops the earlier one's part; :func:`write_json` writes a whole file so
that a process killed meanwhile leaves the previous file, never half of one.  The lock behind it is an advisory
``fcntl`` lock beside the file, held for the rewrite only, never during a computation, and taken nowhere else.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")


@contextlib.contextmanager
def one_writer(path: str) -> Iterator[None]:
    """One process at a time in the ``with`` block for ``path`` (the lock file ``path + ".lock"``, made if need
    be); for the store's own rewrites (:func:`update_json`, an SQLite file's migration)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(f"{path}.lock", "a", encoding="utf-8") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def read_json(path: str) -> Any | None:
    """The file's document, None when there is no file."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        return None


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


def update_json(path: str, change: Callable[[T | None], T | None], *,
                load: Callable[[str], T | None] = read_json,
                save: Callable[[str, T], None] = write_json) -> T | None:
    """Rewrite the file as one step against every other process doing so: ``load`` reads it as it is now (None
    when absent), ``change`` gives the document to write (None: the file stays as it is), ``save`` writes it.
    Returns the document the file holds afterwards (the one written, else the one read).  What ``load`` or
    ``change`` raises leaves the file untouched."""
    with one_writer(path):
        doc = load(path)
        new = change(doc)
        if new is None:
            return doc
        save(path, new)
        return new
