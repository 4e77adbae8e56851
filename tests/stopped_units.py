"""Stopping a job's unit in the middle of its search, as a worker's death would, at a moment the test chooses.

Why a helper: the check and search campaigns (``records check``, ``solve --checkpoint``) keep their units'
progress in the database as they go; their tests stop a unit after a given number of progress writes and check
that the next run goes on from the last one, for each kind alike.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest


def stop_a_unit_at_its_write(monkeypatch: pytest.MonkeyPatch, url: str, submit: Callable[[Any], None],
                             writes: int) -> dict[str, Any]:
    """Submit a job (``submit(jobs)``, on the migrated database ``url``), plan it as a worker would, run its first
    unit here with its progress kept at every checkpoint, and take the unit's lease away at its ``writes``-th keep
    (as requeue_stale does to a dead worker's unit).  The unit is then queued again, holding that last progress,
    which is returned."""
    from service.jobs import manage, runner, unit_kit
    from service.store import db as store_db
    from service.store.jobs import JobStore
    from service.store.migrate import upgrade
    from service.store.positions import PositionStore

    unit_kit.dispose_all()  # a searcher warm from an earlier test would finish before its writes-th keep
    upgrade(url)
    db = store_db.Database(url)
    jobs = JobStore(db)
    try:
        submit(jobs)
        job = jobs.claim_for_planning("test-worker", 60)
        assert job is not None and manage.plan_job(jobs, PositionStore(db), job, "test-worker", None)
        claim = jobs.claim_units("test-worker", 1)[0]
        kept: list[str] = []
        original = JobStore.keep_output

        def losing(self: JobStore, unit_id: int, lease: str, output: str) -> bool:
            ok = original(self, unit_id, lease, output)
            kept.append(output)
            if len(kept) == writes:
                self.release_unit(unit_id, lease, None, 3)  # its lease lost here
                return False
            return ok

        with monkeypatch.context() as m:
            m.setattr(JobStore, "keep_output", losing)
            report = runner.run_unit(url, claim.unit_id, claim.lease, heartbeat_s=5.0, checkpoint_s=1e-3)
        assert report["status"] == "lost" and len(kept) == writes  # it stopped there, and kept nothing more
        unit = jobs.unit(claim.unit_id)
        assert unit is not None and unit[0].status == "queued" and unit[0].output == kept[-1]
        return dict(json.loads(kept[-1]))
    finally:
        db.dispose()
        unit_kit.dispose_all()
