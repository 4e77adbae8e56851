"""Bearer tokens for writes (the ``api_tokens`` table): made, checked, listed and revoked.

A token is ``bc_`` and 43 random URL-safe characters; the table holds its SHA-256 only.  Checking
hashes the presented token, looks the hash up, and compares it again in constant time, so neither
a leaked table nor response timing gives a usable token away.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from service.store.db import Database, StorageError
from service.store.models import ApiToken

SCOPES = ("import", "jobs")
PREFIX = "bc_"


class TokenError(ValueError):
    """A token cannot be made or revoked as asked (bad name or scope, duplicate, unknown)."""


@dataclass(frozen=True)
class TokenInfo:
    """What a checked token allows (never the token itself)."""

    name: str
    scopes: frozenset[str]
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def _info(row: ApiToken) -> TokenInfo:
    return TokenInfo(row.name, frozenset(s for s in row.scopes.split(",") if s), row.created_at,
                     row.last_used_at, row.revoked_at)


class TokenStore:
    def __init__(self, db: Database) -> None:
        self.db = db

    def create(self, name: str, scopes: list[str]) -> tuple[TokenInfo, str]:
        """A new token: (its record, the token in clear — shown once, stored nowhere)."""
        name = name.strip()
        if not name or len(name) > 64 or not all(c.isalnum() or c in "-_.@" for c in name):
            raise TokenError("a token name is 1-64 letters, digits or '-_.@'")
        unknown = sorted(set(scopes) - set(SCOPES))
        if unknown or not scopes:
            raise TokenError(f"scopes must be among {', '.join(SCOPES)} (got {', '.join(scopes) or 'none'})")
        token = PREFIX + secrets.token_urlsafe(32)
        row = ApiToken(name=name, token_hash=digest(token), scopes=",".join(sorted(set(scopes))),
                       created_at=datetime.now(UTC))
        try:
            with self.db.session() as s:
                s.add(row)
                s.flush()
                info = _info(row)
        except IntegrityError:
            raise TokenError(f"a token named {name!r} already exists") from None
        return info, token

    def check(self, token: str) -> TokenInfo | None:
        """The token's record if it is known and not revoked (its scopes say what it allows); marks
        it used."""
        if not token.startswith(PREFIX) or len(token) > 256:
            return None
        presented = digest(token)
        with self.db.session() as s:
            row = s.scalars(select(ApiToken).where(ApiToken.token_hash == presented)).first()
            if row is None or not hmac.compare_digest(row.token_hash, presented) or row.revoked_at is not None:
                return None
            info = _info(row)
            row_id = row.id
        with suppress(StorageError), self.db.session() as s:  # bookkeeping: a read-only database may refuse it
            s.execute(update(ApiToken).where(ApiToken.id == row_id).values(last_used_at=datetime.now(UTC)))
        return info

    def list(self) -> list[TokenInfo]:
        with self.db.session() as s:
            return [_info(r) for r in s.scalars(select(ApiToken).order_by(ApiToken.created_at))]

    def revoke(self, name: str) -> TokenInfo:
        with self.db.session() as s:
            row = s.scalars(select(ApiToken).where(ApiToken.name == name)).first()
            if row is None:
                raise TokenError(f"no token named {name!r}")
            if row.revoked_at is None:
                row.revoked_at = datetime.now(UTC)
            s.flush()
            return _info(row)
