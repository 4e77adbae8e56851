"""Where a stored result was computed: the ``machine`` field of the atlas's entries, the records' bounds and trees,
and the lower-bound campaigns' records.

Why a module of its own: the atlas and the records keep what the lower-bound campaigns (:mod:`service.bound_campaigns`)
prove, so the campaigns sit below them, yet every one of the three writes a record that says where it was computed.
The phrase lives here, below all three, so that each names the machine the same way without importing the others.
"""

from __future__ import annotations

import os
import platform


def machine() -> str:
    """What a record's numbers were computed on, as its ``machine`` says it."""
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
