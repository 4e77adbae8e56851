"""Service configuration from the environment (pydantic-settings), overridable per app instance.

``DATABASE_URL`` drives both the app and Alembic; without it the service uses an SQLite file in the
instance folder.  Everything else is prefixed ``BULLSCOWS_`` (e.g. ``BULLSCOWS_MAX_CODES``).
"""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Limits and connections of one service instance."""

    model_config = SettingsConfigDict(env_prefix="BULLSCOWS_", extra="ignore")

    database_url: str | None = Field(
        default=None, validation_alias=AliasChoices("DATABASE_URL", "BULLSCOWS_DATABASE_URL")
    )
    """SQLAlchemy URL (``sqlite:///…`` or ``postgresql+psycopg://…``); None = SQLite in the instance folder."""
    max_codes: int = 100_000
    """Largest game (number of codes) a request may name."""
    exact_search_max_codes: int = 8_192
    """Largest game this deployment searches exactly (next moves, solves, jobs, optimal trees).  The search
    builds an n² response table once per process: 64 MiB at this default, 1 GiB for Super Mastermind.  The
    solver takes up to ``solver.game.SEARCH_MAX_CODES``; bigger games get the heuristic, and requests that
    need a search get a clear error."""
    position_search_max_codes: int = 32_768
    """Largest game whose positions (after one turn or more) ``POST /v1/solve`` hands to the exact search when the
    game is past ``exact_search_max_codes``: always as a job, run by the job workers, since the search builds the
    game's response table (1 GiB at 32768 codes) in the process that runs it, never in a web worker."""
    max_history: int = 32
    """Longest history a request may carry."""
    max_request_bytes: int = 4 * 1024 * 1024
    """Largest request body."""
    default_time_budget_ms: int = 2_000
    """Search budget of a request that names none."""
    max_time_budget_ms: int = 20_000
    """Largest search budget a request may ask for."""
    max_searches: int = 1
    """Searches a service process runs at once (``serve`` starts two processes, one per core here;
    the search kernel frees the GIL, so the process's other threads keep answering).  A question
    arriving when all are busy is answered at once from its strategy's heuristic, and optimal ones
    are handed to the job system."""
    secret_key: str | None = None
    """Encrypts the secrets of ``/v1/matches`` tokens; set the same value on every instance that
    shares clients.  None = a random key kept in ``secret.key`` in the instance folder."""
    match_ttl_s: int = 7 * 24 * 3600
    """How long a match token stays valid."""
    tree_max_codes: int = 6_000
    """Largest game whose one-step strategy tree a request may build (Bulls-and-Cows: about 1 s)."""
    import_verify_max_codes: int = 64
    """Imported entries of at most this many codes are searched again before they are stored."""
    free_jobs: int = 2
    """Jobs a client without a 'jobs' token may have queued or running at once."""
    handoff_jobs: int = 16
    """Jobs that next moves cut short may have queued or running at once, all clients together."""
    rate_limit_storage: str = "memory://"
    """Where rate-limit counters live: ``memory://`` (per process) or e.g. ``redis://host:6379`` (shared)."""
    rate_limit_prefix: str = "bullscows"
    """Prefix of the counters' keys (several deployments on one Redis keep apart)."""
    rate_limit_expensive: str = "60/minute"
    """Per client: solves, job submissions, strategy trees, imports, match starts."""
    rate_limit_moves: str = "1200/minute"
    """Per client: next moves and match guesses."""
    trusted_proxies: int = 0
    """Reverse proxies in front of the service whose X-Forwarded-For is believed (0 = none)."""
    table_capacity: int = 1 << 20
    """Slots of each in-memory transposition table."""
    export_threshold: int = 64
    """Search cost (nodes) from which a solved position is written to the database."""
    searchers: int = 8
    """How many questions keep a warm searcher (and its table) in memory."""
    solve_wait_ms: int = 1_000
    """How long ``POST /v1/solve`` waits for a job it started before answering 202 (per request: wait_ms)."""
    max_wait_ms: int = 30_000
    """Longest ``wait_ms`` a request may ask for."""
    job_heartbeat_s: float = 2.0
    """How often a running unit reports to the database."""
    job_stale_after_s: float = 60.0
    """A running unit silent this long is re-queued (its worker is presumed dead)."""
    job_max_attempts: int = 3
    """A unit lost or failing this many times fails its job."""
    job_checkpoint_s: float = 300.0
    """How often a running search unit saves the positions it proved, so that a worker killed mid-unit
    loses at most this much of its work (0 = only when the unit ends)."""
    bound_flush_s: float = 5.0
    """How often a running bound unit (a lower-bound campaign's) writes the part bounds it proved to the
    database: what a worker killed mid-unit loses at most."""
    worker_live_s: float = 30.0
    """A worker whose heartbeat is older than this is not counted as alive."""
