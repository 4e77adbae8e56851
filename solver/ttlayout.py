"""The transposition table's row layout and value conventions, without its kernels.

The kernels that read and write the table (:mod:`solver.ttkernels`) need numba; the Python readers of a row
(:mod:`solver.table`, :mod:`solver.question`, :mod:`service.knowledge`) need only these numbers.  Keeping them here
lets a question answered from a shipped tree import the table's vocabulary without loading numba (the ``bullscows``
command answers such questions in a fraction of a second); :mod:`solver.ttkernels` re-exports every name, so a
kernel and a reader can never disagree on a column.
"""

from __future__ import annotations

import numpy as np

INF = np.int64(1) << np.int64(40)
"""A value meaning "no strategy finishes within the limit"; also the upper bound of an unknown value."""

# Transposition-table entry fields (tt_info columns); see solver.table for the full layout.
F_M = 0
F_FLAG = 1
F_VALUE = 2
F_BEST = 3
F_COST = 4
F_TURN = 5
FLAG_EMPTY = 0
FLAG_EXACT = 1
FLAG_LOWER = 2
BUCKET = 4
