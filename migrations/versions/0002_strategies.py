"""Stored strategy trees: strategies.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "strategies",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("strategy", sa.String(32), nullable=False),
        sa.Column("params", sa.String(128), nullable=False),
        sa.Column("tree", sa.Text(), nullable=False),
        sa.Column("total", sa.BigInteger(), nullable=False),
        sa.Column("nodes", sa.Integer(), nullable=False),
        sa.Column("exact", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game", "strategy", "params", name="uq_strategies_key"),
    )


def downgrade() -> None:
    op.drop_table("strategies")
