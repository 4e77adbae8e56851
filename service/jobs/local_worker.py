"""A ``bullscows worker`` started for one command (a campaign run) and stopped with it.

Why a process of its own, not a Dask cluster in the command: the worker is the one that runs every job, with its
leases, heartbeats and units given back when it stops; a command that needs work done starts one on its database
rather than running units its own way.  It runs in a session of its own, so that Ctrl-C reaches the command only:
the command then stops it with SIGTERM (its units given back at once) instead of the signal reaching its Dask
processes mid-unit.  Its routine log lines (a unit done, the job planned) are left out of the command's stderr,
where the command says the same in its own words; everything else the worker writes (a unit that failed, a
traceback) comes through.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
from typing import IO

import orjson

ROUTINE = {"worker started", "job planned", "unit ended", "worker stopped"}
"""The worker's events a campaign command does not repeat (a unit that ended other than done still comes through)."""


def routine(line: bytes) -> bool:
    """Whether the worker's log line is one of its routine events."""
    try:
        event = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    return (isinstance(event, dict) and event.get("event") in ROUTINE
            and event.get("status", "done") == "done" and event.get("ok", True) is True)


def _pass_on(stream: IO[bytes]) -> None:
    for line in stream:
        if not routine(line):
            sys.stderr.write(line.decode(errors="replace"))
            sys.stderr.flush()


class LocalWorker:
    """The worker process: started by the constructor, asked :meth:`gone` while the command waits, stopped by
    :meth:`stop` (which also runs when the command itself dies: ``--exit-with-parent``)."""

    def __init__(self, db_url: str, processes: int | None = None, checkpoint_every: float | None = None,
                 max_units: int | None = None, job: str | None = None, scheduler: str | None = None) -> None:
        cmd = [sys.executable, "-m", "service.cli", "worker", "--url", db_url, "--no-migrate", "--exit-with-parent"]
        if processes:
            cmd += ["--processes", str(processes)]
        if checkpoint_every is not None:
            cmd += ["--checkpoint-every", str(checkpoint_every)]
        if max_units is not None:
            cmd += ["--max-units", str(max_units)]
        if scheduler is not None:  # its units run on that Dask cluster's workers, not on processes of its own
            cmd += ["--scheduler", scheduler]
        if job is not None:  # the command's job alone: not whatever else the database holds
            cmd += ["--job", job]
        self.max_units = max_units
        env = {**os.environ, "DASK_LOGGING__DISTRIBUTED": "error"}  # not Dask's warnings when the command stops it
        self.process = subprocess.Popen(cmd, start_new_session=True, stderr=subprocess.PIPE, env=env)
        assert self.process.stderr is not None
        self._relay = threading.Thread(target=_pass_on, args=(self.process.stderr,), daemon=True)
        self._relay.start()

    def share_done(self) -> bool:
        """Whether a worker of ``max_units`` has done its share and exited."""
        return self.max_units is not None and self.process.poll() == 0

    def gone(self) -> str | None:
        """Why the command cannot go on, once the worker has exited other than by doing its share; None while it
        runs."""
        if self.process.poll() is None or self.share_done():
            return None
        return (f"the campaign's worker stopped (exit status {self.process.returncode}); what it proved is kept: "
                "run the same command again to continue")

    GRACE_S = 15.0
    """How long :meth:`stop` waits for the worker to give back its units and exit before it kills it and its
    processes (a unit inside a kernel that cannot be told to stop, a scan's guess, would hold the command for as
    long as the guess lasts): its units are then taken again once stale, from what they kept."""

    def stop(self) -> None:
        """SIGTERM, and wait for it to give back its units and exit, at most :attr:`GRACE_S` seconds before it and
        its processes are killed (called once, whatever ended the command)."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            self.process.wait(timeout=self.GRACE_S)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)  # its own session: it and its Dask processes
            self.process.wait(timeout=60)
        self._relay.join(timeout=10)  # its last lines passed on (the pipe ends with the process)
        if self.process.stderr is not None:
            self.process.stderr.close()
