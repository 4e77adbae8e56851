"""Checkpoints of running units: how many times a unit saved its proven positions, and at what count.

A long unit (hours, on the atlas's hard games) saves what it has proven every few minutes, so that a
worker killed mid-unit loses at most one interval of work.  The two columns make that visible
(``bullscows jobs show --units``) and measurable: ``saved_nodes`` is the attempt's node count when it
last saved.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("job_units") as batch:
        batch.add_column(sa.Column("checkpoints", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("saved_nodes", sa.BigInteger(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("job_units") as batch:
        batch.drop_column("saved_nodes")
        batch.drop_column("checkpoints")
