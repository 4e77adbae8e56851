"""The persistent transposition table: positions.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "positions",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("criterion", sa.String(16), nullable=False),
        sa.Column("max_guesses", sa.Integer(), nullable=False),
        sa.Column("mde", sa.Integer(), nullable=False),
        sa.Column("heuristic", sa.Boolean(), nullable=False),
        sa.Column("from_set_only", sa.Boolean(), nullable=False),
        sa.Column("set_hash", sa.BigInteger(), nullable=False),
        sa.Column("bitset", sa.LargeBinary(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("m", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("turn_key", sa.Integer(), nullable=False),
        sa.Column("exact", sa.Boolean(), nullable=False),
        sa.Column("value", sa.BigInteger(), nullable=True),
        sa.Column("best_guess", sa.Integer(), nullable=True),
        sa.Column("cost", sa.BigInteger(), nullable=False),
        sa.Column("source", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("game", "criterion", "max_guesses", "mde", "heuristic", "from_set_only",
                            "set_hash", "m", "turn_key", name="uq_positions_key"),
    )
    op.create_index("ix_positions_question", "positions",
                    ["game", "criterion", "max_guesses", "mde", "heuristic", "from_set_only"])


def downgrade() -> None:
    op.drop_index("ix_positions_question", table_name="positions")
    op.drop_table("positions")
