"""The persistent table of solved positions: export and import."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import click

from service.cli.common import (
    database_url,
    emit,
    fail,
    game_filter_options,
    json_option,
    main,
    position_store,
    url_option,
)
from solver.vocabulary import Criterion

if TYPE_CHECKING:
    pass


@main.group("positions")
def positions_group() -> None:
    """The persistent table of solved positions: export it to a file, import one (another machine's,
    or a campaign's progress carried in a repository)."""


def write_positions(url: str | None, game: str | None, criterion: Criterion | None, output: str) -> int:
    """Write the stored positions (of ``game`` / ``criterion`` when given) as NDJSON to ``output``
    (gzip-compressed when it ends in .gz, stdout for -); returns how many."""
    import gzip
    import os

    from service.positions_io import row_line

    count = 0
    with position_store(url) as store:
        if output == "-":
            for row in store.iter_rows(game, criterion):
                sys.stdout.buffer.write(row_line(row))
                count += 1
            sys.stdout.flush()
            return count
        # written whole under a temporary name, then moved into place: an interrupted export never
        # leaves a truncated file where the last good one was
        tmp = f"{output}.tmp-{os.getpid()}"
        opener: Any = gzip.open if output.endswith(".gz") else open
        try:
            with opener(tmp, "wb") as fh:
                for row in store.iter_rows(game, criterion):
                    fh.write(row_line(row))
                    count += 1
            os.replace(tmp, output)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
    return count


IMPORT_VERIFY_MAX_CODES = 12
"""Operator imports search again sets of at most this many codes (HTTP imports: the setting, 64)."""


def read_positions(path: str, url: str | None, source: str, verify_max_codes: int = IMPORT_VERIFY_MAX_CODES,
                    game: str | None = None) -> int:
    """Import an export file, all or nothing (each line checked as POST /v1/positions checks it, small
    sets searched again; with ``game``, a line of another game refuses the file); returns how many
    positions were stored.  Any problem ends the command with its ``error:`` line."""
    from service.config import Settings
    from service.positions_io import InvalidImportError, read_entries, read_file_lines

    try:
        entries = read_entries(read_file_lines(path), max_codes=Settings().max_codes,
                               verify_max_codes=verify_max_codes)
    except InvalidImportError as exc:
        fail(f"{exc}; nothing stored")
    if game is not None and any(e.key.game != game for e in entries):
        fail(f"{path} holds positions of another game than {game}; nothing stored")
    with position_store(url) as store:
        return int(store.save_entries(entries, source=f"import:{source}"[:64]))


@positions_group.command("export")
@game_filter_options
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default="-", show_default=True,
              help="File to write (NDJSON, gzip-compressed when the name ends in .gz); - for stdout.")
@url_option
def positions_export(game: str | None, criterion: Criterion | None, output: str, url: str | None) -> None:
    """Write the stored positions as NDJSON (the format of GET /v1/positions)."""
    from solver.errors import SolverError
    from solver.game import Game

    if game is not None:
        try:
            game = Game.from_spec(game).spec
        except SolverError as exc:
            fail(str(exc))
    count = write_positions(url, game, criterion, output)
    click.echo(f"exported {count} positions", err=True)


@positions_group.command("import")
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--source", default="file", show_default=True, help="Provenance recorded as 'import:SOURCE'.")
@click.option("--verify-max-codes", type=click.IntRange(min=0), default=IMPORT_VERIFY_MAX_CODES, show_default=True,
              help="Search again every entry of at most this many codes (POST /v1/positions uses "
                   "BULLSCOWS_IMPORT_VERIFY_MAX_CODES, 64); raise it for a file of unknown origin.")
@url_option
@json_option
def positions_import(path: str, source: str, verify_max_codes: int, url: str | None, as_json: bool) -> None:
    """Read an export (plain or .gz NDJSON) into the table, all or nothing: every line is checked the
    way POST /v1/positions checks it (games within BULLSCOWS_MAX_CODES), and small sets are searched
    again.  The database's schema is created or migrated first, so a fresh machine can start from an
    import."""
    from service.store.migrate import upgrade

    upgrade(database_url(url))
    stored = read_positions(path, url, source, verify_max_codes)
    emit({"imported": stored, "path": path}, as_json,
          lambda out: click.echo(f"imported {out['imported']} positions from {out['path']}"))
