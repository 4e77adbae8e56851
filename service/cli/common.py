"""What every command group shares: the ``main`` group, the game/history/search options, the
one-line error convention and the database helpers.

Only click is imported at load time; the solver (numpy, numba) and the service's storage are
imported inside the helpers, when a command needs them.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from solver.presets import PRESETS  # standard library only, like solver.vocabulary
from solver.vocabulary import CRITERION_NAMES, Criterion

if TYPE_CHECKING:
    from solver.game import Game, Turn

F = TypeVar("F", bound=Callable[..., Any])


def fail(message: str) -> NoReturn:
    """Bad input ends the command here: one ``error:`` line on stderr naming it, exit status 2 (click's own
    status for a usage error), no traceback and nothing on stdout."""
    click.echo(f"error: {message}", err=True)
    sys.exit(2)


def solver_errors(fn: F) -> F:
    """Turn the solver's input errors into a clean message and exit status 2."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from solver.errors import SolverError

        try:
            return fn(*args, **kwargs)
        except SolverError as exc:
            fail(str(exc))

    return wrapper  # type: ignore[return-value]


def game_options(fn: F) -> F:
    fn = click.option(
        "--alphabet", default=None,
        help="Characters for symbols 0, 1, 2, ... (default 0-9A-Za-z).",
    )(fn)
    fn = click.option(
        "--game", "-g", default="bulls-cows", show_default=True,
        help=f"A named game ({', '.join(PRESETS)}) or 'positions,symbols,repetition', e.g. 4,6,1.",
    )(fn)
    return fn


def history_options(fn: F) -> F:
    """History turns are positional: ``--history "0123 0.1" "1245 0.2"`` or just the turns."""
    fn = click.argument("turns", nargs=-1)(fn)
    fn = click.option(
        "--history", "-H", "history_flag", is_flag=True,
        help="Marks the turns that follow ('0123 0.1' or '0123 0.1, 1245 0.2'); optional.",
    )(fn)
    return fn


def search_options(fn: F) -> F:
    fn = click.option("--upper-bound", type=int, default=None,
                      help="The article's beta: prune at or above it (results reaching it are bounds).")(fn)
    fn = click.option("--mde", type=int, default=None,
                      help="Last turn searched exactly; later turns use the heuristic (crush for "
                           "kmovers, Larmouth for totals), or only candidates with --from-set-only.")(fn)
    fn = click.option("--depth-count", type=int, default=None,
                      help="Kmovers: while the count is 0, count (k-1)-movers, ... down to this k.")(fn)
    fn = click.option("--max-guesses", type=int, default=None,
                      help="Guesses allowed in the whole game (the k of kmovers).")(fn)
    return fn


url_option = click.option("--url", default=None, help="Database URL (default: DATABASE_URL or the SQLite file).")


def criterion_parsed(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """The callback of every ``--criterion`` option: the name click has checked against
    :data:`~solver.vocabulary.CRITERION_NAMES`, parsed into its :class:`~solver.vocabulary.Criterion` (a tuple
    of them for a repeated option, None when not given), so that a command starts with members, and its help
    still lists the names."""
    if value is None:
        return None
    if isinstance(value, tuple):
        return tuple(Criterion.parse(v) for v in value)
    return Criterion.parse(value)


def game_filter_options(fn: F) -> F:
    fn = click.option("--criterion", "-c", type=click.Choice(CRITERION_NAMES), default=None,
                      callback=criterion_parsed, help="Only this criterion (default: both).")(fn)
    fn = click.option("--game", "-g", default=None, help="Only this game (default: every game).")(fn)
    return fn


def file_option(kind: str, help: str | None = None) -> Callable[[F], F]:
    """``--file``: the results file of ``kind`` (``atlas`` or ``records``, shipped as
    ``service/data/<kind>.json``) that the command reads and rewrites; ``help`` for a command that only
    reads it.  One definition, so that every command of a group names its file in the same words."""
    return click.option("--file", "path", type=click.Path(dir_okay=False), default=None,
                        help=help or f"The {kind} file to read and rewrite (default: the package's "
                                     f"service/data/{kind}.json).")


def trees_option(role: str) -> Callable[[F], F]:
    """``--trees``: the folder of shipped trees, ``role`` saying what the command does there (ships a tree,
    reads the best-known one, or both)."""
    return click.option("--trees", "folder", type=click.Path(file_okay=False), default=None,
                        help=f"{role} (default: the package's service/data/trees).")


def one_step_checked(strategy: str) -> None:
    """A hybrid's one-step strategy (``solver.heuristics.STRATEGIES``, played above its exact positions), or
    the command's ``error:`` line naming the ones there are."""
    from solver.heuristics import STRATEGIES

    if strategy not in STRATEGIES:
        fail(f"unknown one-step strategy {strategy!r}; known: {', '.join(STRATEGIES)}")


def say(line: str) -> None:
    """A long command's progress line (the ``log`` its service function takes): on stderr after ``# ``, so
    that stdout keeps only the result."""
    click.echo(f"# {line}", err=True)


def game_named(spec: str, alphabet: str | None = None) -> Game:
    """The game ``spec`` names, within the service's limits (``BULLSCOWS_MAX_CODES``,
    ``BULLSCOWS_EXACT_SEARCH_MAX_CODES``): the CLI refuses what ``POST /v1/next-move`` refuses, in the same
    words, so that an answer found from a shell is one the deployment would give.

    :raises SolverError: not a game, or one too large (``solver_errors`` makes it an ``error:`` line).
    """
    from service.config import Settings
    from solver.game import Game

    settings = Settings()
    return Game.from_spec(spec, alphabet=alphabet, max_codes=settings.max_codes,
                          search_max_codes=settings.exact_search_max_codes)


def game_and_turns(game: str, alphabet: str | None, turns: Iterable[str]) -> tuple[Game, list[Turn]]:
    """The game and the history of a command's arguments, held to the service's limits (the game's size,
    the history's length: ``BULLSCOWS_MAX_HISTORY``)."""
    from service.config import Settings

    g = game_named(game, alphabet)
    # All turn arguments form one stream, so quoting is optional: "0123 0.1" "1245 0.2",
    # 0123 0.1 1245 0.2 and "0123 0.1, 1245 0.2" are the same history.
    history = g.parse_history(" ".join(turns))
    settings = Settings()
    if len(history) > settings.max_history:
        # the service's own error and words, imported only when needed: it brings the API's schemas, which a
        # command that stays within the limit never pays for
        from service.rules import check_history_length

        check_history_length(len(history), settings)
    return g, history


def emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=None, separators=(",", ":")))


json_option = click.option("--json", "as_json", is_flag=True,
                            help="Print JSON (one line, for scripts) instead of text for people.")
"""Every command that prints a result takes it: text by default, the JSON of the same result with it."""

NOT_KNOWN = "\u2014"
"""What a table shows for a value that is not known (JSON's null): a dash, never "None"."""


def shown_value(value: Any) -> str:
    """One value as people read it: null as a dash, booleans as yes/no, floats without noise, lists of
    codes joined by spaces."""
    if value is None:
        return NOT_KNOWN
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):  # six decimals at most: averages of records differ in the fifth
        return str(int(value)) if value.is_integer() else str(round(value, 6))
    if isinstance(value, (list, tuple)):
        return " ".join(shown_value(v) for v in value) if value else NOT_KNOWN
    if isinstance(value, dict):
        return ", ".join(f"{k} {shown_value(v)}" for k, v in value.items()) if value else NOT_KNOWN
    return str(value)


def _label(key: Any) -> str:
    return str(key).replace("_", " ")


def _numeric(value: Any) -> bool:
    """Whether a cell is a number (or null): right-aligned."""
    return value is None or (isinstance(value, (int, float)) and not isinstance(value, bool))


def print_table(rows: list[dict[str, Any]], columns: list[tuple[str, str]] | None = None,
                 indent: int = 0, right: Iterable[str] = ()) -> None:
    """Rows as an aligned table under a header: ``columns`` are (key, header) pairs (default: every key of
    the rows, in order); numbers are right-aligned, and the columns of ``right`` too (numbers written as text,
    such as bounds), a missing or null cell is a dash."""
    if columns is None:
        keys: dict[str, None] = {}
        for row in rows:
            keys.update(dict.fromkeys(row))
        columns = [(k, _label(k)) for k in keys]
    cells = [[shown_value(row.get(k)) for k, _ in columns] for row in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, (_, h) in enumerate(columns)]
    named = set(right)
    numeric = [k in named or all(_numeric(row.get(k)) for row in rows) for k, _ in columns]

    def line(values: list[str]) -> str:
        return " " * indent + "  ".join(v.rjust(w) if num else v.ljust(w)
                                        for v, w, num in zip(values, widths, numeric, strict=True)).rstrip()

    click.echo(line([h for _, h in columns]))
    for c in cells:
        click.echo(line(c))


def _print_fields(obj: dict[str, Any], indent: int = 0) -> None:
    """A result (a JSON object) as ``label: value`` lines for people: nested objects indented under their
    label, lists of objects as tables, and lines whose value is null or empty left out (a missing line
    reads better than "None")."""
    pad = "  " * indent
    shown = {k: v for k, v in obj.items() if v is not None and v != {} and v != []}
    width = max((len(_label(k)) for k, v in shown.items() if not isinstance(v, (dict, list))), default=0)
    for key, value in shown.items():
        if isinstance(value, dict):
            click.echo(f"{pad}{_label(key)}:")
            _print_fields(value, indent + 1)
        elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
            click.echo(f"{pad}{_label(key)}:")
            print_table(value, indent=2 * (indent + 1))
        else:
            click.echo(f"{pad}{(_label(key) + ':').ljust(width + 1)} {shown_value(value)}")


def emit(obj: Any, as_json: bool, human: Callable[[Any], None] | None = None) -> None:
    """A command's result: its JSON with ``--json`` (the keys scripts read), else ``human(obj)``, else the
    result's fields as text (:func:`_print_fields`)."""
    if as_json:
        emit_json(obj)
    elif human is not None:
        human(obj)
    else:
        _print_fields(obj)


def read_json_file(path: str, what: str) -> Any:
    """The JSON document of a file the user names, or the command's ``error:`` line (the file cannot be
    read, or is not JSON): what the file should be is ``what``, for the message."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except OSError as exc:
        fail(f"cannot read {path!r}: {exc.strerror or exc}")
    except (ValueError, UnicodeDecodeError) as exc:
        fail(f"{path!r} is not {what}: not JSON ({exc})")


def _input_error(exc: Exception) -> str | None:
    """The ``error:`` line of an exception that the input caused, or None for any other (a bug: its
    traceback is shown).  Input errors are the solver's (a bad game, code, response or history; a game over a
    limit), the database's refusals (``--url`` naming no database of the service, or one that is down) and the lab's
    (a campaign's file or folder that cannot be used).
    Their classes are looked up among the modules already imported, so that catching them costs a command
    that never loads the storage nothing."""
    for module, name in (("solver.errors", "SolverError"), ("service.store.db", "StorageError"),
                         ("service.campaign_files", "CampaignError")):
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type) and isinstance(exc, cls):
            message = str(exc)
            missing = re.search(r"no such table: \w+", message)
            if name == "StorageError" and missing:  # not something to retry: a database never migrated
                message = (f"the database has not the service's tables ({missing.group()}): "
                           "`bullscows db upgrade --url URL` makes them")
            return message
    return None


COMMANDS_GROUP = "bullscows.commands"
"""The entry point group of the commands the package does not import itself (the lab's: ``atlas``, ``records``,
``campaign steps``), each named by its path (``atlas``, ``campaign.steps``) and imported only when it is asked for,
or when help lists it."""


class PluggedGroup(click.Group):
    """A group whose commands are its own plus those entry points name under its path (:data:`COMMANDS_GROUP`):
    the product names none of the lab's commands, and a command that runs none of them imports none of them."""

    def _path(self) -> str:
        return "" if self.name in (None, "main", "bullscows") else f"{self.name}."

    def _plugged(self) -> dict[str, Any]:
        from importlib.metadata import entry_points

        path = self._path()
        return {p.name[len(path):]: p for p in entry_points(group=COMMANDS_GROUP)
                if p.name.startswith(path) and "." not in p.name[len(path):]}

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._plugged()))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is None and cmd_name in (plugged := self._plugged()):
            command = plugged[cmd_name].load()  # a module that adds its command to this group as it loads
            found = super().get_command(ctx, cmd_name) or (command if isinstance(command, click.Command) else None)
        return found


class _Main(PluggedGroup):
    """The ``bullscows`` group: every command's input errors end as one ``error:`` line with status 2, however
    deep they are raised (see :func:`_input_error`)."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except Exception as exc:
            message = _input_error(exc)
            if message is None:
                raise
            fail(message)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="bullscows")
@click.option("--campaigns", "campaigns", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="The lab's campaigns folder, where the campaign commands (atlas, records, campaign, knowledge) "
                   "keep their progress files by default (default: BULLSCOWS_CAMPAIGNS, else the checkout's "
                   "campaigns/, from whichever folder the command runs).")
@click.pass_context
def main(ctx: click.Context, campaigns: str | None) -> None:
    """Solver for Bulls-and-Cows, Mastermind and every (positions, symbols, repetition) variant."""
    if campaigns is not None:
        # the environment, not a global: the workers a command starts inherit it, and it is restored when the
        # command ends (a command run inside another program, as tests run them, leaves nothing behind)
        from service.campaign_files import CAMPAIGNS_ENV

        before = os.environ.get(CAMPAIGNS_ENV)
        os.environ[CAMPAIGNS_ENV] = os.path.abspath(campaigns)

        def restore() -> None:
            if before is None:
                os.environ.pop(CAMPAIGNS_ENV, None)
            else:
                os.environ[CAMPAIGNS_ENV] = before

        ctx.call_on_close(restore)


def database_url(url: str | None) -> str:
    """``--url``, else DATABASE_URL, else the service's SQLite file (a ``--url`` that is no database URL refused)."""
    if url is not None:
        from service.store.db import is_database_url

        if not is_database_url(url):
            fail(f"--url {url!r} is not a database URL: give sqlite:///FILE or postgresql+psycopg://USER@HOST/DB")
        return url
    from service.app import default_database_url

    return default_database_url()


def job_store(url: str | None, *, existing: bool = False) -> Any:
    """The job store of ``url``, its connections closed when the command ends (a command run in another program's
    process, as tests and scripts run them, must not leave them to the garbage collector).  ``existing``: a command
    that only reads or changes jobs there refuses an SQLite file that is not there, rather than make an empty one
    and then find no tables in it."""
    from service.store.db import Database, sqlite_file
    from service.store.jobs import JobStore

    resolved = database_url(url)
    path = sqlite_file(resolved)
    if existing and path is not None and not os.path.exists(path):
        fail(f"there is no database at {path}: no job has run there (give the --url of the service or of a "
             "campaign, or set DATABASE_URL)")
    db = Database(resolved)
    click.get_current_context().call_on_close(db.dispose)
    return JobStore(db)

@contextlib.contextmanager
def store_of(url: str | None, kind: str) -> Iterator[Any]:
    """The ``kind`` store ("positions" or "tokens") of ``url``, its connections closed afterwards."""
    from service.store.db import Database
    from service.store.positions import PositionStore
    from service.store.tokens import TokenStore

    db = Database(database_url(url))
    try:
        yield (PositionStore if kind == "positions" else TokenStore)(db)
    finally:
        db.dispose()


def position_store(url: str | None) -> contextlib.AbstractContextManager[Any]:
    return store_of(url, "positions")
