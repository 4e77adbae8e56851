"""A ``bullscows worker`` started for one command (a campaign run) and stopped with it.

Why a process of its own, not a Dask cluster in the command: the worker is the one that runs every job, with its
leases, heartbeats and units given back when it stops; a command that needs work done starts one on its database
rather than running units its own way.  It runs in a session of its own, so that Ctrl-C reaches the command only:
the command then stops it with SIGTERM (its units given back at once) instead of the signal reaching its Dask
processes mid-unit.
"""

from __future__ import annotations

import subprocess
import sys


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
        self.process = subprocess.Popen(cmd, start_new_session=True)

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

    def stop(self) -> None:
        """SIGTERM, and wait for it to give back its units and exit."""
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)
