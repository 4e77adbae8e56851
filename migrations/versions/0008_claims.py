"""Claims: work that one process at a time may drive, held in the database rather than by a lock on a file.

A steps campaign judges each step's tree and rewrites its folder's registry file and trees; two runs of it at once
would judge the same step twice.  Its run claims it here (the process's host and pid, a heartbeat renewed while it
runs): another run, on this machine or any other sharing the database, is told so; a holder killed without letting
go is recognised (its pid gone on this host, or its heartbeat stale) and the claim taken over.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "claims",
        sa.Column("name", sa.String(256), primary_key=True),
        sa.Column("holder", sa.String(128), nullable=False),
        sa.Column("host", sa.String(128), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("beat_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("claims")
