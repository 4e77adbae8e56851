"""Operating the service: tokens, shipped trees, database migrations and the server."""

from __future__ import annotations

import contextlib
import sys
from typing import TYPE_CHECKING, Any

import click

from service.cli.common import (
    database_url,
    emit,
    fail,
    json_option,
    main,
    position_store,
    store_of,
    url_option,
)

if TYPE_CHECKING:
    pass


@main.group("tokens")
def tokens_group() -> None:
    """Bearer tokens for writes: 'import' (POST /v1/positions), 'jobs' (beyond the free budget)."""


def _token_store(url: str | None) -> contextlib.AbstractContextManager[Any]:
    return store_of(url, "tokens")


@tokens_group.command("create")
@click.argument("name")
@click.option("--scope", "scopes", multiple=True, type=click.Choice(["import", "jobs"]), required=True,
              help="What the token allows (repeat for both).")
@url_option
def tokens_create(name: str, scopes: tuple[str, ...], url: str | None) -> None:
    """Make a token and print it once: only its SHA-256 is stored."""
    from service.store.tokens import TokenError

    try:
        with _token_store(url) as store:
            info, token = store.create(name, list(scopes))
    except TokenError as exc:
        fail(str(exc))
    click.echo(token)
    click.echo(f"token {info.name!r} ({', '.join(sorted(info.scopes))}) made; it is shown only now", err=True)


@tokens_group.command("list")
@url_option
@json_option
def tokens_list(url: str | None, as_json: bool) -> None:
    """Tokens by name, with scopes and use (never the tokens themselves): a table, or with --json a list of
    {name, scopes, revoked_at, last_used_at} (ISO times, null when never)."""
    with _token_store(url) as store:
        tokens = store.list()
    rows = [{"name": t.name, "scopes": sorted(t.scopes),
             "revoked_at": None if t.revoked_at is None else t.revoked_at.isoformat(),
             "last_used_at": None if t.last_used_at is None else t.last_used_at.isoformat()} for t in tokens]

    def human(out: dict[str, Any]) -> None:
        if not tokens:
            click.echo("no tokens")
            return
        for t in tokens:
            state = f"revoked {t.revoked_at:%Y-%m-%d %H:%M}" if t.revoked_at else "active"
            used = f"{t.last_used_at:%Y-%m-%d %H:%M}" if t.last_used_at else "never"
            click.echo(f"{t.name:<24} {','.join(sorted(t.scopes)):<12} {state:<24} last used {used}")

    emit({"tokens": rows}, as_json, human)


@tokens_group.command("revoke")
@click.argument("name")
@url_option
def tokens_revoke(name: str, url: str | None) -> None:
    """Revoke a token at once (every process checks the table on each request)."""
    from service.store.tokens import TokenError

    try:
        with _token_store(url) as store:
            store.revoke(name)
    except TokenError as exc:
        fail(str(exc))
    click.echo(f"token {name!r} revoked")


@main.group("trees")
def trees_group() -> None:
    """The strategy trees shipped with the service (package data)."""


@trees_group.command("build")
@click.option("--output", default=None, help="Folder (default: the package's data/trees).")
@click.option("--game", "games", multiple=True, help="Only these games (default: all).")
@click.option("--strategy", "strategies", multiple=True, help="Only these strategies (default: all).")
@click.option("--url", default=None,
              help="Start from the positions this database has proven (a campaign's), instead of searching "
                   "from scratch.")
def trees_build(output: str | None, games: tuple[str, ...], strategies: tuple[str, ...], url: str | None) -> None:
    """Rebuild the stored trees and their manifest (reproducible: searches from scratch, or from a
    campaign's table with --url)."""
    import os

    from service.trees import SPECS, TREE_DIR, read_manifest, ship_tree, write_manifest
    from solver.game import Game
    from solver.search import Searcher, SolveOptions, optimal_tree

    for asked, key, what in ((games, "game", "games"), (strategies, "strategy", "strategies")):
        known = sorted({str(spec[key]) for spec in SPECS})
        unknown = [name for name in asked if name not in known]
        if unknown:  # else nothing would be built, silently
            fail(f"no shipped tree of {what} {', '.join(map(repr, unknown))}; the shipped trees' {what} are: "
                  f"{', '.join(known)}")
    folder = output or TREE_DIR
    os.makedirs(folder, exist_ok=True)
    entries = read_manifest(folder)  # the other trees (the atlas's, other presets') are kept
    for spec in SPECS:
        if (games and spec["game"] not in games) or (strategies and spec["strategy"] not in strategies):
            continue
        g = Game.from_spec(spec["game"])
        options = SolveOptions(spec["criterion"], spec["max_guesses"], spec.get("depth_count"), spec["mde"],
                               spec["from_set_only"])
        searcher: Searcher | None = None
        if url is not None:
            from service.engine import warm_searcher

            with position_store(url) as store:
                searcher = warm_searcher(store, g, options, 1 << 22, 1 << 62)
        tree = optimal_tree(g, options, searcher=searcher)
        stats = tree.stats()
        name = f"{spec['game']}-{spec['strategy']}.tree"
        entries[(g.spec, spec["strategy"])] = ship_tree(tree, stats, name, folder, spec)
        click.echo(f"{name}: total {stats.total}, worst case {stats.worst_case}, {stats.nodes} nodes")
    write_manifest(entries, folder)


@main.group("knowledge")
def knowledge_group() -> None:
    """The shipped knowledge: the campaigns' proven positions, read-only in the package."""


@knowledge_group.command("build")
@click.argument("sources", nargs=-1, type=click.Path(exists=True, dir_okay=False))
@click.option("--folder", default=None, help="Where to write it (default: the package's service/data/knowledge).")
def knowledge_build(sources: tuple[str, ...], folder: str | None) -> None:
    """Build the knowledge from campaign progress files (default: the *.ndjson.gz of the campaigns folder)."""
    import glob
    import os

    from service.campaign_files import campaign_dir
    from service.knowledge import KNOWLEDGE_DIR, build
    from service.positions_io import InvalidImportError

    if not sources:
        folder = campaign_dir()
        sources = tuple(sorted(glob.glob(os.path.join(folder, "*.ndjson.gz"))))
        if not sources:
            fail(f"no campaign files given, and none in {folder}")
    try:
        manifest = build(list(sources), folder or KNOWLEDGE_DIR)
    except InvalidImportError as exc:
        fail(str(exc))
    for q in manifest["questions"]:
        click.echo(f"{q['file']}: {q['entries']} entries ({q['exact']} exact)")


@knowledge_group.command("show")
def knowledge_show() -> None:
    """What the package's knowledge holds, question by question."""
    from service.knowledge import Knowledge

    for index in Knowledge().all():
        k = index.key
        exact = int((index.info[:, 1] == 1).sum())
        click.echo(f"{k.game} {k.criterion} max_guesses={k.max_guesses}: {len(index)} entries ({exact} exact)")


@main.group("db")
def db_group() -> None:
    """The service's database (DATABASE_URL, default an SQLite file in ./instance)."""


@db_group.command("upgrade")
@url_option
@click.option("--revision", default="head", show_default=True)
def db_upgrade(url: str | None, revision: str) -> None:
    """Create or migrate the schema."""
    from service.store.migrate import upgrade

    upgrade(url, revision)
    click.echo(f"database at {revision}")


@db_group.command("downgrade")
@url_option
@click.option("--revision", default="base", show_default=True)
def db_downgrade(url: str | None, revision: str) -> None:
    """Undo migrations (down to an empty database by default)."""
    from service.store.migrate import downgrade

    downgrade(url, revision)
    click.echo(f"database at {revision}")


def _bind_address(bind: str, port: int | None) -> str:
    """``--bind`` with its port replaced by ``--port`` (when given): ``0.0.0.0:8000`` and ``--port 9000`` give
    ``0.0.0.0:9000``, a host alone gets the port, an IPv6 host keeps its brackets.  A Unix socket has no port
    to replace: refused."""
    if port is None:
        return bind
    if bind.startswith(("unix:", "fd://")):
        fail(f"--bind {bind!r} is not a network address: --port does not apply")
    if bind.startswith("["):  # [::1]:8000 or [::1]
        host = bind[: bind.index("]") + 1] if "]" in bind else bind
    elif bind.count(":") > 1:  # a bare IPv6 address
        host = f"[{bind}]"
    else:
        host = bind.partition(":")[0]
    if host in ("", "[]"):
        fail(f"--bind {bind!r} has no host: give one (127.0.0.1, 0.0.0.0, ...)")
    return f"{host}:{port}"


@main.command("serve")
@click.option("--bind", default="127.0.0.1:8000", show_default=True,
              help="Address to listen on (HOST:PORT, or gunicorn's unix:PATH).")
@click.option("--port", "-p", type=click.IntRange(1, 65535), default=None,
              help="Port to listen on, replacing the port of --bind (its host is kept).")
@click.option("--workers", type=click.IntRange(min=1), default=2, show_default=True, help="gunicorn worker processes.")
@click.option("--no-migrate", is_flag=True, help="Do not apply migrations first.")
@click.option("--with-worker", is_flag=True,
              help="Also run a `bullscows worker` for jobs (stops with the server).")
def serve(bind: str, port: int | None, workers: int, no_migrate: bool, with_worker: bool) -> None:
    """Run the HTTP service under gunicorn (migrating the database first)."""
    import os
    import subprocess

    bind = _bind_address(bind, port)
    if not no_migrate:
        from service.store.migrate import upgrade

        upgrade(database_url(None))  # resolved here, so that the migration takes its lock
    if with_worker:
        # the worker outlives this exec (gunicorn takes over this pid) and stops when it ends
        subprocess.Popen([sys.executable, "-m", "service.cli", "worker", "--no-migrate", "--exit-with-parent"])
    import tempfile

    # one folder of metric files shared by the workers, fresh at every start
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", tempfile.mkdtemp(prefix="bullscows-metrics-"))
    gunicorn = os.path.join(os.path.dirname(sys.executable), "gunicorn")
    conf = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "gunicorn_conf.py")
    args = [gunicorn, "--config", conf, "--bind", bind, "--workers", str(workers), "service.wsgi:app"]
    os.execv(gunicorn, args)
