"""Long work: the jobs group, campaigns and the worker that runs them."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from service.cli.campaigns import campaign_jobs
from service.cli.common import (
    PluggedGroup,
    criterion_parsed,
    database_url,
    emit,
    emit_json,
    fail,
    game_named,
    game_options,
    job_store,
    json_option,
    main,
    print_table,
    say,
    solver_errors,
    url_option,
)
from service.cli.positions import read_positions, write_positions
from solver.vocabulary import CRITERIA, CRITERION_NAMES, Criterion


@main.group("jobs")
def jobs_group() -> None:
    """Long solves run by `bullscows worker` (in DATABASE_URL, default the SQLite file)."""


@jobs_group.command("list")
@click.option("--status", type=click.Choice(["queued", "planning", "running", "done", "failed", "cancelled"]),
              default=None)
@click.option("--limit", type=click.IntRange(min=1), default=20, show_default=True)
@url_option
@json_option
def jobs_list(status: str | None, limit: int, url: str | None, as_json: bool) -> None:
    """Jobs, newest first: a table of one line per job (the value is the best so far until the job is
    done), or with --json the list of what `jobs show --json` prints."""
    from service.jobs import manage

    jobs = job_store(url, existing=True)
    views = [manage.view(jobs, j) for j in jobs.list_jobs(status, limit)]
    if as_json:
        emit_json(views)
        return
    if not views:
        click.echo("no jobs" + ("" if status is None else f" {status}"))
        return
    rows = []
    for v in views:
        p, r = v["progress"], v["request"]
        game = r["game"] if isinstance(r["game"], str) else r["game"]["spec"]
        waiting = v["status"] == "running" and v.get("note")  # planned, but no unit runs: no worker has it
        rows.append({"id": v["id"], "status": "waiting" if waiting else v["status"], "game": game,
                     "what": _what(r),
                     "max_guesses": r["max_guesses"], "mde": r["mde"], "fso": r["from_set_only"],
                     "history": "; ".join(r["history"]), "units": f"{p['units_done']}/{p['units_total']}",
                     "value": _value(v["result"]) if v["result"] else p["best_value"]})
    print_table(rows, [("id", "id"), ("status", "status"), ("game", "game"), ("what", "what"),
                        ("max_guesses", "k"), ("mde", "mde"), ("fso", "fso"), ("history", "history"),
                        ("units", "units"), ("value", "value")])


def _value(result: dict[str, Any]) -> Any:
    """What the list shows of a finished job: its value, or a scan's answer (yes, no, unknown)."""
    return result["value"] if "value" in result else result.get("answer")


def _what(request: dict[str, Any]) -> str:
    """A job's kind in a few words, for the list: the strategy of a tree, the depth of a bound (its target and parts
    when it has them), a rollout's strategy and width, a polish's sizes and budget, a check's first guess and shares,
    a search's criterion and shares, or the criterion of a solve."""
    if request.get("strategy"):
        return f"tree {request['strategy']}"
    if request.get("kind") == "bound":
        return (f"bound depth {request['depth']}"
                + ("" if request.get("target") is None else f" target {request['target']}")
                + ("" if not request.get("parts") else f" parts {','.join(request['parts'])}"))
    if request.get("kind") == "rollout":
        plan = request.get("rollout") or {}
        return (f"rollout {plan.get('strategy')} width {plan.get('width')}"
                + ("" if not request.get("skip") else f", {len(request['skip'])} subtrees skipped"))
    if request.get("kind") == "polish":
        params = (request.get("polish") or {}).get("params") or {}
        return (f"polish above {params.get('above')} to {params.get('at_most')} candidates, "
                f"{params.get('budget_s')} s each"
                + ("" if not params.get("parts") else f", parts {','.join(params['parts'])}"))
    if request.get("kind") == "scan":
        scan = request.get("scan") or {}
        return (f"scan within {scan.get('max_guesses')}, {scan.get('shares')} share"
                + ("" if scan.get("shares") == 1 else "s"))
    if request.get("kind") == "atlas":
        games = (request.get("atlas") or {}).get("games") or []
        return f"atlas run of {len(games)} game{'' if len(games) == 1 else 's'}"
    if request.get("kind") == "search":
        shares = (request.get("search") or {}).get("shares")
        return f"search {request['criterion']}, {shares} share" + ("" if shares == 1 else "s")
    if request.get("kind") == "check":
        check = request.get("check") or {}
        return (f"check after {check.get('first_guess')}, {check.get('shares')} share"
                + ("" if check.get("shares") == 1 else "s")
                + ("" if not check.get("parts") else f", parts {','.join(check['parts'])}"))
    return str(request["criterion"])


@jobs_group.command("show")
@click.argument("job_id")
@click.option("--units", is_flag=True, help="List the units too.")
@url_option
@json_option
def jobs_show(job_id: str, units: bool, url: str | None, as_json: bool) -> None:
    """One job: its question, status, progress and result (and units); the lines whose value is not known
    yet are left out.  --json prints the keys of GET /v1/jobs/{id}."""
    from service.jobs import manage

    jobs = job_store(url, existing=True)
    job = jobs.get(job_id)
    if job is None:
        fail(f"there is no job {job_id!r}")
    emit(manage.view(jobs, job, units=units), as_json)


@jobs_group.command("cancel")
@click.argument("job_id")
@url_option
def jobs_cancel(job_id: str, url: str | None) -> None:
    """Cancel a queued or running job (running units stop at their next heartbeat)."""
    jobs = job_store(url, existing=True)
    status, changed = jobs.cancel(job_id)
    if status is None:
        fail(f"there is no job {job_id!r}")
    if not changed:
        fail(f"job {job_id} is {status}; only queued or running jobs can be cancelled")
    click.echo(f"job {job_id} cancelled")


CAMPAIGN_STAGES: dict[Criterion, list[tuple[str, int | None, bool]]] = {
    # (label, mde, from_set_only): the hybrid first (minutes), whose values seed the exact search's β
    Criterion.TOTAL: [("fso", 3, True), ("exact", None, False)],
    Criterion.KMOVERS: [("crush45", 3, False), ("exact", None, False)],
}


@main.group("campaign", cls=PluggedGroup, invoke_without_command=True)
@game_options
@click.option("--criterion", "-c", "criteria", multiple=True, type=click.Choice(CRITERION_NAMES),
              callback=criterion_parsed, help="What to solve (repeat for both; default both, totals first).")
@click.option("--max-guesses", type=click.IntRange(min=1), default=7, show_default=True,
              help="Depth limit of the whole game (the k of k-movers).")
@click.option("--unlimited", is_flag=True,
              help="Totals with no depth limit (the game's true optimum; --max-guesses is then ignored). "
                   "K-movers always need a limit.")
@click.option("--progress-file", type=click.Path(dir_okay=False), default=None,
              help="Positions file (.ndjson.gz) imported first when it exists, and rewritten as the "
                   "campaign goes: how a campaign moves between machines and sessions.")
@click.option("--export-every", type=click.FloatRange(min=1), default=600.0, show_default=True,
              help="Seconds between rewrites of the progress file.")
@click.option("--with-worker/--no-worker", default=True, show_default=True,
              help="Start a `bullscows worker` for the campaign (else rely on workers already running).")
@click.option("--processes", type=int, default=None, help="Processes of that worker (default: one per core).")
@click.option("--checkpoint-every", type=click.FloatRange(min=0), default=None,
              help="That worker's seconds between saves of a running unit's proven positions "
                   "(see `bullscows worker`).")
@url_option
@json_option
@click.pass_context
@solver_errors
def campaign_cmd(ctx: click.Context, game: str, alphabet: str | None, criteria: tuple[Criterion, ...],
                 max_guesses: int, unlimited: bool,
                 progress_file: str | None, export_every: float, with_worker: bool, processes: int | None,
                 checkpoint_every: float | None, url: str | None, as_json: bool) -> None:
    """Solve a whole game exactly, the article's way: for each criterion a hybrid job (fso for totals,
    crush45 for k-movers), then the exact job, its parts bounded from the start by the hybrid's values.
    With a command (`campaign run SPEC`...): a campaign described by a spec file.

    Everything runs as ordinary jobs (see `bullscows jobs`), so it survives being killed: run the same
    command again and finished jobs are reused, proven positions are not searched again.  Prints a table of
    the stages' values, or with --json the game and each stage's job, value, best guess and per-response values.
    """
    if ctx.invoked_subcommand is not None:
        from click.core import ParameterSource

        given = [p.opts[0] for p in ctx.command.params
                 if ctx.get_parameter_source(p.name or "") == ParameterSource.COMMANDLINE]
        if given:
            one = len(given) == 1
            fail(f"{', '.join(given)}: {'an option' if one else 'options'} of `campaign` alone (a whole game solved "
                  f"exactly), not of `campaign {ctx.invoked_subcommand}`: put {'it' if one else 'them'} after the "
                  "command's name")
        return
    import os
    import time

    from service.jobs.plan import JobRequest
    from solver.search import SolveOptions, require_searchable

    g = game_named(game, alphabet)
    require_searchable(g)
    if unlimited and set(criteria) != {Criterion.TOTAL}:
        fail("--unlimited solves totals only (k-movers need a depth limit): add -c total")
    k: int | None = None if unlimited else max_guesses
    db_url = database_url(url)
    plan = [(c, *stage) for c in (criteria or CRITERIA) for stage in CAMPAIGN_STAGES[c]]
    for crit, _label, mde, fso in plan:
        SolveOptions(crit, k, None, mde, fso).validate(g, 1)
    from service.store.migrate import upgrade

    upgrade(db_url)
    if progress_file and os.path.exists(progress_file):
        stored = read_positions(progress_file, db_url, "campaign", game=g.spec)
        click.echo(f"# imported {stored} positions from {progress_file}", err=True)
    only = criteria[0] if len(set(criteria)) == 1 else None  # a file per criterion stays small

    def export() -> None:
        if progress_file:
            write_positions(db_url, g.spec, only, progress_file)

    from service.jobs.local_worker import LocalWorker

    worker = LocalWorker(db_url, processes, checkpoint_every) if with_worker else None
    jobs = job_store(db_url)
    results: dict[str, Any] = {}
    t_start = time.monotonic()
    try:
        for crit, label, mde, fso in plan:
            options = SolveOptions(crit, k, None, mde, fso)
            job, created = jobs.submit(JobRequest.of(g, [], options), "campaign")
            click.echo(f"# {crit} {label}: job {job.id} ({'submitted' if created else 'already known'})",
                       err=True)
            last_export = time.monotonic()
            while job is not None and job.status not in ("done", "failed", "cancelled"):
                time.sleep(2.0)
                job = jobs.get(job.id)
                if time.monotonic() - last_export >= export_every:
                    export()
                    last_export = time.monotonic()
            if job is None or job.status != "done":
                fail(f"job {job.id if job else '?'} {job.status if job else 'vanished'}: "
                      f"{job.error if job else ''}")
            import orjson

            out = orjson.loads(job.result)
            results[f"{crit}/{label}"] = {"job": job.id, "value": out["value"], "best_guess": out["best_guess"],
                                          "per_response": out["per_response"], "nodes": out["nodes"],
                                          "seconds": out["seconds"]}
            click.echo(f"# {crit} {label}: {out['value']} (best first guess {out['best_guess']}), "
                       f"{out['nodes']} nodes, {out['seconds']:.0f} s", err=True)
            export()
    finally:
        if worker is not None:
            worker.stop()
    out = {"game": g.spec, "max_guesses": k, "wall_seconds": round(time.monotonic() - t_start, 1),
           "stages": results}

    def human(out: dict[str, Any]) -> None:
        limit = "no depth limit" if k is None else f"within {k} guesses"
        click.echo(f"{g.spec}, {limit}: {out['wall_seconds']:.0f} s")
        print_table([{"stage": stage, **{key: r[key] for key in ("job", "value", "best_guess", "nodes", "seconds")}}
                      for stage, r in results.items()])

    emit(out, as_json, human)


def _spec(path: str, progress: str | None = None) -> Any:
    import dataclasses

    from service.campaign_files import CampaignError
    from service.campaign_specs import load_spec

    try:
        spec = load_spec(path)
    except CampaignError as exc:
        fail(str(exc))
    if progress is None:
        return spec
    folder = os.path.dirname(os.path.abspath(progress))
    if not os.path.isdir(os.path.dirname(folder) if spec.kind == "steps" else folder):  # a steps campaign makes its own
        fail(f"--progress {progress}: its folder is not there")
    return dataclasses.replace(spec, progress=os.path.abspath(progress))


_spec_argument = click.argument("spec", type=click.Path(dir_okay=False))
_progress_option = click.option(
    "--progress", "progress", type=click.Path(dir_okay=False), default=None,
    help="This progress file instead of the one SPEC names: a new file replays the campaign from what the database "
         "holds (with a new --url too, from nothing), leaving the committed one as it is.")


@campaign_cmd.command("run")
@_spec_argument
@_progress_option
@click.option("--with-worker/--no-worker", default=True, show_default=True,
              help="Start a `bullscows worker` while the command runs (it runs the campaign's job alone); else "
                   "rely on workers already running, on this machine or others sharing the database.")
@click.option("--processes", type=click.IntRange(min=1), default=None,
              help="Processes of that worker (default: one per core).")
@click.option("--export-every", type=click.FloatRange(min=1), default=300.0, show_default=True,
              help="Seconds between writes of the progress file while the campaign runs.")
@click.option("--keep", is_flag=True,
              help="A bound campaign: keep its bound in the atlas or the records (the package's file that lists "
                   "the game), when it beats the one recorded; stopped early, what its parts prove so far.  A steps "
                   "campaign, once every step is done: ship its tree there when it beats the one recorded.")
@click.option("--keep-in", "keep_in", type=click.Path(dir_okay=False), default=None,
              help="With --keep: that file (of the same kind) instead of the package's.")
@url_option
@json_option
def campaign_run(spec: str, progress: str | None, with_worker: bool, processes: int | None, export_every: float,
                 keep: bool, keep_in: str | None, url: str | None, as_json: bool) -> None:
    """Run the campaign SPEC describes as a job, to its end: a lower bound (kind "bound": game, depth, target,
    optionally parts), the subtrees of a rollout tree (kind "rollout": game, plan), a records check ("check"), a
    position's search from nothing ("search"), a scan of its guesses against a limit ("scan") or atlas games
    computed ("atlas"), the last four with their "params" as `campaign show` prints them; or a best-known tree
    built again by its steps in order ("steps": a rollout's or polish's work a job, each tree judged in the spec's
    own folder; `campaign steps` writes one from a record).  What its progress file holds is taken in first (a file
    that finished the campaign is said so, and nothing is run), the job is submitted (or the one already asking the
    same found) and run by workers, every proof kept in the database as it is made, and the progress file written
    from the database as the job goes and at the end (also when stopped with Ctrl-C).

    Run again, it continues: from the job in the database, else from the progress file.  Prints the job's
    result and what the progress file holds (--json: the keys of `jobs show --json`'s result, and "progress")."""
    from service import campaign_specs
    from service.campaign_files import CampaignError

    parsed = _spec(spec, progress)
    if parsed.kind == "steps":
        if keep_in is not None and not keep:
            fail("--keep-in names where --keep keeps the tree: give --keep too")
        _run_steps(parsed, with_worker, processes, export_every, url, as_json, keep, keep_in)
        return
    if keep_in is not None and not keep:
        fail("--keep-in names where --keep keeps the bound: give --keep too")
    if keep and progress is not None:
        fail("--keep records the bound with the spec's own progress file, which proves it: run without --progress "
              "to keep it")
    try:
        campaign_specs.check(parsed, keep=keep, keep_in=keep_in)  # refused before any database is touched
    except CampaignError as exc:
        fail(str(exc))
    jobs = campaign_jobs(url)
    try:
        got = campaign_specs.run(jobs, parsed, worker=with_worker, processes=processes,
                                 export_every=export_every, keep=keep, keep_in=keep_in, log=say)
    except CampaignError as exc:
        fail(str(exc))
    job = got.job
    if got.problem is not None:
        fail(got.problem)
    if job is None:  # its progress file had finished it: nothing to run
        emit({"game": parsed.game.spec, "kind": parsed.kind, **(got.finished or {}), "computed": False,
               "progress": campaign_specs.progress_of(parsed)}, as_json)
        return
    if job.status != "done" or job.result is None:
        fail(f"job {job.id} {job.status}: {job.error or ''}")
    import orjson

    emit({"game": parsed.game.spec, "kind": parsed.kind, "job": job.id, **orjson.loads(job.result),
           "progress": campaign_specs.progress_of(parsed)}, as_json)


@campaign_cmd.command("export")
@_spec_argument
@_progress_option
@url_option
@json_option
def campaign_export(spec: str, progress: str | None, url: str | None, as_json: bool) -> None:
    """Write what the database holds of SPEC's campaign to its progress file: a bound's part bounds (raised, never
    lowered), its newest job's finished units and its result once done; the finished subtrees of every rollout
    job of the campaign.  Prints what the file then holds."""
    from service import campaign_specs
    from service.campaign_files import CampaignError

    parsed = _spec(spec, progress)
    if parsed.kind == "steps":
        fail("a steps campaign writes its files as each step goes, with nothing to export: `campaign show SPEC` "
              "says where it stands, and `campaign run SPEC` goes on")
    try:
        campaign_specs.check(parsed)
    except CampaignError as exc:
        fail(str(exc))
    jobs = campaign_jobs(url)
    try:
        campaign_specs.export(jobs, parsed, campaign_specs.newest_job(jobs, parsed))
    except CampaignError as exc:
        fail(str(exc))
    emit(campaign_specs.progress_of(parsed) or {}, as_json)


@campaign_cmd.command("show")
@_spec_argument
@_progress_option
@url_option
@json_option
def campaign_show(spec: str, progress: str | None, url: str | None, as_json: bool) -> None:
    """Where SPEC's campaign stands: the spec, what its progress file holds, and its newest job (status, progress,
    result) if it was ever run on this database."""
    from service import campaign_specs
    from service.campaign_files import CampaignError

    parsed = _spec(spec, progress)
    steps = parsed.kind == "steps"
    try:  # a file that is not the campaign's, said before any database is touched
        campaign_specs.check(parsed)
    except CampaignError as exc:
        fail(str(exc))
    jobs = campaign_jobs(url)
    try:
        shown = campaign_specs.status(jobs, parsed)
    except CampaignError as exc:
        fail(str(exc))

    def human(out: dict[str, Any]) -> None:
        spec_shown = dict(out["spec"])
        if parsed.kind == "bound" and spec_shown["target"] is None:
            spec_shown["target"] = "none (the full bound)"
        emit({"spec": spec_shown}, False)
        if out["progress"] is None:
            click.echo("progress: no file yet")
        else:
            emit({"progress": out["progress"]}, False)
        step: dict[str, Any] = out.get("step") or {}
        if steps and not step:
            click.echo("job: none (every step is done)")
        elif steps and not step["job"]:
            click.echo(f"job: none (step {step['step']}, a hybrid, is built by `bullscows campaign run SPEC` "
                       "itself)")
        elif out["job"] is None:
            click.echo("job: none on this database yet (`bullscows campaign run SPEC` starts one"
                       + (f" for step {step['step']})" if steps else ")"))
        else:  # a failed job's error is its first line here (`jobs show JOB --json` has its traceback)
            job = dict(out["job"])
            if str(job.get("error") or "").strip():
                job["error"] = str(job["error"]).strip().splitlines()[0]
            emit({"job": job}, False)

    emit(shown, as_json, human)


def _run_steps(parsed: Any, with_worker: bool, processes: int | None, export_every: float, url: str | None,
               as_json: bool, keep: bool, keep_in: str | None) -> None:
    """``campaign run`` of a steps spec: every step not done, in order (its kind's
    :meth:`~service.campaign_kind.DrivenCampaignKind.drive`), and with ``keep`` its tree kept in the package's
    registry when it beats the one there (:meth:`~service.campaign_kind.DrivenCampaignKind.keep`)."""
    from service import campaign_specs
    from service.campaign_files import CampaignError
    from service.campaign_kind import DrivenCampaignKind

    try:
        steps = campaign_specs.kind_of(parsed)
        assert isinstance(steps, DrivenCampaignKind)
        steps.check(parsed)
    except CampaignError as exc:
        fail(str(exc))
    jobs = campaign_jobs(url)
    try:
        got = steps.drive(jobs, parsed, worker=with_worker, processes=processes, export_every=export_every,
                            log=say)
    except CampaignError as exc:
        fail(str(exc))
    if got.problem is not None:
        fail(got.problem)
    kept = None
    if keep:
        try:
            kept = steps.keep(parsed, keep_in, log=say)
        except CampaignError as exc:
            fail(str(exc))
        record = kept["record"]
        say(f"{parsed.game.spec}: the tree of {record['total']} guesses "
             + ("kept" if kept["kept"] else "not kept (the one recorded is as good)") + f" in {kept['file']}")
    emit({"game": parsed.game.spec, "kind": "steps", "progress": steps.progress(parsed),
           **({} if kept is None else {"kept": kept["kept"], "file": kept["file"]})}, as_json)


@main.command("worker")
@click.option("--scheduler", default=None,
              help="Dask scheduler address (tcp://host:8786); default: a LocalCluster on this machine.")
@click.option("--processes", type=int, default=None, help="LocalCluster processes (default: one per core).")
@click.option("--name", default=None, help="Worker name in the database (default: host-pid-random).")
@click.option("--checkpoint-every", type=click.FloatRange(min=0), default=None,
              help="Seconds between the saves of a running unit's proven positions (default "
                   "BULLSCOWS_JOB_CHECKPOINT_S, 300; 0 = only when a unit ends).  A worker killed "
                   "mid-unit loses at most that much of the unit's work.")
@url_option
@click.option("--max-units", type=click.IntRange(min=1), default=None,
              help="Take at most this many units, and stop once they are done (default: run until stopped).")
@click.option("--job", "only_job", default=None, metavar="JOB_ID",
              help="Run this job's units alone (default: any job's), as a campaign command's own worker does.")
@click.option("--no-migrate", is_flag=True, help="Do not apply migrations first.")
@click.option("--exit-with-parent", is_flag=True, hidden=True,
              help="Stop when the parent process goes away (set by `serve --with-worker`).")
def worker_cmd(scheduler: str | None, processes: int | None, name: str | None, checkpoint_every: float | None,
               url: str | None, max_units: int | None, only_job: str | None, no_migrate: bool,
               exit_with_parent: bool) -> None:
    """Run jobs: claim them from the database and compute their units on Dask."""
    import datetime
    import os
    import threading

    import orjson

    from service.config import Settings
    from service.jobs.coordinator import WorkerConfig, serve

    url = database_url(url)
    if not no_migrate:
        from service.store.migrate import upgrade

        upgrade(url)
    st = Settings()
    every = st.job_checkpoint_s if checkpoint_every is None else checkpoint_every
    cfg = WorkerConfig(heartbeat_s=st.job_heartbeat_s, stale_after_s=st.job_stale_after_s,
                       max_attempts=st.job_max_attempts, checkpoint_s=every or None, max_units=max_units,
                       only_job=only_job)

    def log(event: str, **fields: Any) -> None:
        line = {"ts": datetime.datetime.now(datetime.UTC).isoformat(), "event": event, **fields}
        try:
            sys.stderr.write(orjson.dumps(line, default=str).decode() + "\n")
            sys.stderr.flush()
        except OSError:  # no one reads it any more (the command that started it was killed): work on, and stop
            pass         # by --exit-with-parent, the units given back, rather than die on a log line

    if exit_with_parent:
        parent = os.getppid()

        def watch_parent() -> None:
            import signal
            import time

            while os.getppid() == parent:
                time.sleep(1.0)
            os.kill(os.getpid(), signal.SIGTERM)

        threading.Thread(target=watch_parent, daemon=True).start()
    try:
        serve(url, processes=processes, scheduler=scheduler, config=cfg, name=name, log=log)
    except ConnectionError as exc:  # its scheduler unreachable: one line, not Dask's traceback
        fail(str(exc))
