"""Campaigns on the job system: the proven lower bounds of a game's root parts, shared by every process of a
lower-bound campaign, and a unit's output (a rollout unit's subtree).

A bound campaign (a job of kind ``bound``) refines the root's first guesses unit by unit; every part's
bound it proves is kept here as soon as it is proven, so that a worker killed mid-unit loses only what it
proved since its last write, and every other worker (on this machine or another) starts from it.  A row is a
part of the root (``second`` and ``response2`` -1), a part under one second guess (``response2`` -1), or a part
below a second guess.  A bound only ever rises.

A rollout unit (a job of kind ``rollout``) builds the subtree below one response to the first guess; its compact
text is the unit's ``output``, kept with the unit until the campaign writes it to its progress file.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bound_parts",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("guess", sa.Integer(), nullable=False),
        sa.Column("response", sa.Integer(), nullable=False),
        sa.Column("second", sa.Integer(), nullable=False),
        sa.Column("response2", sa.Integer(), nullable=False),
        sa.Column("lower", sa.BigInteger(), nullable=False),
        sa.Column("plies", sa.Integer(), nullable=False),
        sa.Column("leaves", sa.String(32), nullable=False),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game", "guess", "response", "second", "response2", name="uq_bound_parts_key"),
    )
    with op.batch_alter_table("job_units") as batch:
        batch.add_column(sa.Column("output", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("job_units") as batch:
        batch.drop_column("output")
    op.drop_table("bound_parts")
