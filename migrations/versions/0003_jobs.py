"""Durable jobs: jobs, job_units, workers.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
_TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("request", sa.Text(), nullable=False),
        sa.Column("request_hash", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("phase", sa.Integer(), nullable=False),
        sa.Column("plan", sa.Text(), nullable=True),
        sa.Column("units_total", sa.Integer(), nullable=False),
        sa.Column("units_done", sa.Integer(), nullable=False),
        sa.Column("nodes", sa.BigInteger(), nullable=False),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("submitted_by", sa.String(64), nullable=False),
        sa.Column("planner", sa.String(128), nullable=True),
        sa.Column("created_at", _TS, nullable=False),
        sa.Column("started_at", _TS, nullable=True),
        sa.Column("finished_at", _TS, nullable=True),
        sa.Column("updated_at", _TS, nullable=False),
    )
    op.create_index("ix_jobs_status", "jobs", ["status"])
    op.create_index("ix_jobs_request_hash", "jobs", ["request_hash"])
    # at most one active job per question: concurrent identical submissions share it
    active = sa.text("status IN ('queued', 'planning', 'running')")
    op.create_index("uq_jobs_active_request", "jobs", ["request_hash"], unique=True, sqlite_where=active,
                    postgresql_where=active)
    op.create_table(
        "job_units",
        sa.Column("id", _ID, primary_key=True),
        sa.Column("job_id", sa.String(32), sa.ForeignKey("jobs.id", ondelete="CASCADE"), nullable=False),
        sa.Column("phase", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("g1", sa.Integer(), nullable=True),
        sa.Column("response", sa.Integer(), nullable=True),
        sa.Column("g2", sa.Integer(), nullable=True),
        sa.Column("history", sa.Text(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("lower_bound", sa.BigInteger(), nullable=False),
        sa.Column("expected_cost", sa.BigInteger(), nullable=False),
        sa.Column("priority", sa.BigInteger(), nullable=False),
        sa.Column("beta", sa.BigInteger(), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=True),
        sa.Column("exact", sa.Boolean(), nullable=True),
        sa.Column("possible", sa.Boolean(), nullable=True),
        sa.Column("best_guess", sa.Integer(), nullable=True),
        sa.Column("per_response", sa.Text(), nullable=True),
        sa.Column("nodes", sa.BigInteger(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("worker", sa.String(128), nullable=True),
        sa.Column("lease", sa.String(32), nullable=True),
        sa.Column("heartbeat_at", _TS, nullable=True),
        sa.Column("started_at", _TS, nullable=True),
        sa.Column("finished_at", _TS, nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
    )
    op.create_index("ix_job_units_job_status", "job_units", ["job_id", "status"])
    op.create_index("ix_job_units_status_priority", "job_units", ["status", "priority"])
    op.create_table(
        "workers",
        sa.Column("id", sa.String(128), primary_key=True),
        sa.Column("host", sa.String(128), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("processes", sa.Integer(), nullable=False),
        sa.Column("scheduler", sa.String(256), nullable=True),
        sa.Column("started_at", _TS, nullable=False),
        sa.Column("heartbeat_at", _TS, nullable=False),
        sa.Column("stopped_at", _TS, nullable=True),
    )


def downgrade() -> None:
    op.drop_table("workers")
    op.drop_index("ix_job_units_status_priority", table_name="job_units")
    op.drop_index("ix_job_units_job_status", table_name="job_units")
    op.drop_table("job_units")
    op.drop_index("uq_jobs_active_request", table_name="jobs")
    op.drop_index("ix_jobs_request_hash", table_name="jobs")
    op.drop_index("ix_jobs_status", table_name="jobs")
    op.drop_table("jobs")
