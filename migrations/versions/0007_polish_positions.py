"""Polishes on the job system: how each position of a polished tree was settled.

A polish (a job of kind ``polish``) searches the middle-sized positions of a best-known tree, one unit per part
of its first guess; every position a unit settles (proven optimal, improved with a new subtree, out of time, or
nothing kept) is kept here as soon as it is, keyed by the polish (game, tree, parameters) and the position, so
that a worker killed mid-unit loses only the position it was searching and every worker continues from the
others'.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "polish_positions",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True),
        sa.Column("polish", sa.String(64), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("position", sa.String(512), nullable=False),
        sa.Column("outcome", sa.String(16), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("subtree", sa.Text(), nullable=True),
        sa.Column("sweep", sa.Text(), nullable=True),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("polish", "position", name="uq_polish_positions_key"),
    )


def downgrade() -> None:
    op.drop_table("polish_positions")
