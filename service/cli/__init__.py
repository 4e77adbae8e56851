"""The ``bullscows`` command line: ask the solver from a shell, and run the service's parts.

One module per command group: ``solving`` (next, partition, solve, feasible), ``tree``, ``jobs`` (jobs, campaign,
worker), ``positions`` (export, import) and ``admin`` (tokens, trees, db, serve); ``common`` holds the ``main`` group
and the options and helpers they share.  The lab's groups, ``atlas`` (run, show, hybrid, bounds...), ``records``
(bound, hybrid, rollout, show...) and ``campaign steps``, are found through the ``bullscows.commands`` entry points
(:class:`service.cli.common.PluggedGroup`) and imported only when they are asked for.

Scripts and bots call it many times, so start-up stays short: loading the package imports only
click, and each command imports the solver (numpy, numba) or the storage when it runs.  Errors caused
by the input are printed as one ``error:`` line on stderr with exit status 2; nothing else is printed
then.  Results are text for people by default (tables, ``label: value`` lines, never "None") and one line
of JSON with ``--json``, for scripts; progress and logs go to stderr.
"""

from __future__ import annotations

from service.cli import admin, jobs, positions, solving, tree  # noqa: F401 (each registers its commands)
from service.cli.common import main

__all__ = ["main"]
