"""Steps campaigns: a best-known tree built by its steps in order (a spec of kind ``steps``,
:class:`service.campaign_spec.Step`), a rollout's or a polish's work run as a job of its own kind (a hybrid is built
here, in minutes), then judged and kept as the command that takes it would (``records rollout``, ``records
polish``, ``atlas hybrid``, ``atlas polish``), before the next step starts from the tree it left; :func:`keep`
ships the finished tree in the package's registry when it beats the one there.

Why: a record tree is a chain of commands, each starting from the tree the one before shipped (five-digit
Bulls-and-Cows: a rollout, polishes, then rollouts of single parts grafted into the tree as it stands); pasted as
one line joined by ``&&``, it rewrites the package's own files as it goes and starts again from nothing when it
stops.  A steps campaign keeps everything in a folder of its own (``campaigns/tree-5-10-0/``): its registry file
(``records.json`` or ``atlas.json``, where each step's tree is judged and kept), its trees (``trees/``), each step's
progress file (``01-rollout.json``, ``02-polish.json``...) and ``steps.json``, the spec's progress file, which says
what each step finished with.  A rollout's or polish's work is kept in the job database as it is made and in its
progress file, so ``bullscows campaign run SPEC`` run again goes on from the step it had reached, from the database
or, in a fresh clone, from the committed files.

Judging a step rewrites the registry file and the tree; a run killed in between would leave the step half kept.
So before a step is judged the two are copied to ``.before/`` (with the step's number), and a run that finds that
copy for a step not finished puts them back and judges the step again; a step whose progress file is closed was
judged (a rollout's or polish's file is closed after its tree is kept).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from service import atlas, atlas_keeping, campaign_specs, polishes, records, records_keeping, rollouts
from service.atlas_keeping import ATLAS_KEEPER
from service.campaign_files import CampaignError, read_json
from service.campaign_kind import DrivenCampaignKind
from service.campaign_spec import CampaignSpec, Step
from service.config import Settings
from service.jobs.runner import signals_deferred
from service.keeping import KeptRegistry, best_known_file, polish_command
from service.records_keeping import RECORDS_KEEPER
from service.store.claims import Claims
from service.store.files import write_json
from service.store.jobs import JobStore
from service.trees import TREE_DIR, TreeLibrary, read_manifest, write_manifest
from solver.polish import PolishParams
from solver.rollout import first_guess
from solver.vocabulary import BEST_KNOWN

FORMAT = "bullscows-steps-campaign"
BEFORE = ".before"
"""The folder where the registry file and the trees are copied while a step is judged."""
ABSENT = "absent"
"""In ``.before/``: the registry file was not there yet (a records game's first step), so it is removed to undo."""
STATE = "steps.json"
STOPPED = "stopped; every step done is kept, and the work of the one under way as its job kept it: run the same " \
          "command again to continue"
RECORDS_ONLY = ("over_width", "keep_width", "judge_width", "judge_turns", "judge_pool", "polish", "play")
"""A rollout plan's keys that only ``records rollout`` takes (``atlas hybrid --rollout-width`` has none of them)."""

Log = Callable[[str], None]


@dataclass(frozen=True)
class Folder:
    """Where a steps campaign keeps its files: the folder of its progress file (``steps.json``)."""

    spec: CampaignSpec

    @property
    def path(self) -> str:
        return os.path.dirname(self.spec.progress)

    @property
    def registry(self) -> KeptRegistry:
        return registry_of(self.spec.game.spec)

    @property
    def group(self) -> str:
        """The registry's command group, ``records`` or ``atlas``."""
        return self.registry.group

    @property
    def file(self) -> str:
        """The registry file the steps' trees are judged and kept in."""
        return os.path.join(self.path, f"{self.group}.json")

    @property
    def trees(self) -> str:
        return os.path.join(self.path, "trees")

    def step_file(self, index: int) -> str:
        return os.path.join(self.path, self.spec.steps[index].file(index))


def registry_of(game: str) -> KeptRegistry:
    """The registry that keeps a best-known tree of ``game``: the records for a records game, else the atlas
    (:func:`check` refuses a game that is not one of its unsolved games)."""
    return RECORDS_KEEPER if game in records.PUBLISHED else ATLAS_KEEPER


def command(spec: CampaignSpec, step: Step) -> str:
    """The command that takes ``step`` on the package's files (as a record's ``command`` chains them)."""
    game, params = spec.game.spec, step.params
    group = Folder(spec).group
    if step.kind == "polish":
        asked = PolishParams(params["above"], params["at_most"], params["budget_s"], params["max_guesses"],
                             sweep=params["sweep"], parts=None if params["parts"] is None else tuple(params["parts"]))
        return polish_command(group, game, asked)
    if step.kind == "hybrid":
        return Folder(spec).registry.hybrid_command(game, params["strategy"], params["exact_at_most"],
                                                    params["max_guesses"])
    plan = step.rollout_plan
    if group == "records":
        return records_keeping.rollout_command(game, plan, params["units"], params["graft"])
    return ATLAS_KEEPER.hybrid_command(game, plan.strategy, plan.exact_at_most, plan.max_guesses, _atlas_rollout(step))


def chain(spec: CampaignSpec) -> str:
    """Every step's command, joined by ``&&``: what the record of a tree built by these steps names."""
    return " && ".join(command(spec, s) for s in spec.steps)


def _atlas_rollout(step: Step) -> dict[str, int]:
    plan = step.params["plan"]
    return {k: plan[k] for k in ("width", "from_turn", "levels", "min_size")}


def _state(spec: CampaignSpec) -> dict[str, Any] | None:
    """The progress file (``steps.json``), None before the first run.

    :raises CampaignError: it is not a steps campaign's, or another game's."""
    if not os.path.exists(spec.progress):
        return None
    doc = read_json(spec.progress)
    if (not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(doc.get("done"), list)
            or not isinstance(doc.get("steps_asked"), list)):
        raise CampaignError(f"{spec.progress}: not a steps campaign's progress file (format {FORMAT!r})")
    if doc.get("game") != spec.game.spec:
        raise CampaignError(f"{spec.progress} is a steps campaign of {doc.get('game')}, not {spec.game.spec}")
    return doc


def _save_state(spec: CampaignSpec, done: list[dict[str, Any]]) -> None:
    best = Folder(spec).registry.load(Folder(spec).file)[spec.game.spec].get(Folder(spec).registry.tree_key)
    write_json(spec.progress, {
        "format": FORMAT, "game": spec.game.spec, "steps_asked": [s.to_json() for s in spec.steps[:len(done)]],
        "done": done, **({} if len(done) < len(spec.steps) or best is None else {"finished": {
            k: best.get(k) for k in ("total", "worst_case", "seconds")}})})


def _prepare(spec: CampaignSpec) -> list[dict[str, Any]]:
    """The folder made ready (an atlas game's entry copied in, as the package has it but its best-known tree) and
    a judgment a killed run left half done undone; the steps done."""
    where = Folder(spec)
    os.makedirs(where.trees, exist_ok=True)
    if where.group == "atlas" and not os.path.exists(where.file):
        entry = {k: v for k, v in ATLAS_KEEPER.shipped()[spec.game.spec].items() if k != ATLAS_KEEPER.tree_key}
        ATLAS_KEEPER.save({spec.game.spec: entry}, where.file)
    state = _state(spec)
    done = [] if state is None else list(state["done"])
    before = os.path.join(where.path, BEFORE)
    for left in (before + ".part", before + ".gone"):  # a copy never finished, or one being removed
        shutil.rmtree(left, ignore_errors=True)
    if os.path.isdir(before):  # complete: it is renamed into place whole, and renamed away before it is removed
        with open(os.path.join(before, "step"), encoding="utf-8") as fh:
            index = int(fh.read())
        closed = _closed(spec, index)
        if index >= len(done) and closed is not None:  # judged and closed: only the state was not written
            _relative_paths(spec)
            done.append(_outcome(spec, index, closed))
            _save_state(spec, done)
        elif index >= len(done):  # killed while judging: the files as they were before it
            kept = os.path.join(before, os.path.basename(where.file))
            if os.path.exists(kept):
                shutil.copyfile(kept, where.file)
            elif os.path.exists(os.path.join(before, ABSENT)) and os.path.exists(where.file):
                os.remove(where.file)
            shutil.rmtree(where.trees)
            shutil.copytree(os.path.join(before, "trees"), where.trees)
        _drop(before)
    return done


def _drop(before: str) -> None:
    """Remove the copy made before a judgment: renamed first, so that a run killed while removing it leaves no half
    of it to be taken for a whole one."""
    if os.path.isdir(before):
        os.replace(before, before + ".gone")
        shutil.rmtree(before + ".gone")


def _closed(spec: CampaignSpec, index: int) -> dict[str, Any] | None:
    """What a rollout's or a polish's progress file says it finished with, once its tree was judged."""
    step, file = spec.steps[index], Folder(spec).step_file(index)
    if step.kind == "rollout":
        return rollouts.finished(file, spec.game.spec, step.rollout_plan)
    doc = polishes.FILE.read(file) if step.kind == "polish" else None
    if doc is None or not isinstance(doc.get("finished"), dict) or not isinstance(doc.get("params"), dict):
        return None
    asked = {k: v for k, v in step.params.items() if k != "parts"}
    if any(doc["params"].get(k) != v for k, v in asked.items()) or sorted(doc["params"].get("parts") or []) != sorted(
            step.params["parts"] or []):
        return None  # another polish's file: this step's is not done
    return dict(doc["finished"])


def _outcome(spec: CampaignSpec, index: int, closed: dict[str, Any] | None) -> dict[str, Any]:
    """A step's line in ``steps.json``: its command, the tree it left and whether it kept its own."""
    where = Folder(spec)
    best = where.registry.load(where.file)[spec.game.spec].get(where.registry.tree_key) or {}
    return {"step": index + 1, "command": command(spec, spec.steps[index]),
            "kept": bool((closed or {}).get("kept")), "built": (closed or {}).get("total"),
            "total": best.get("total"), "worst_case": best.get("worst_case"),
            "date": datetime.date.today().isoformat()}


@dataclass
class StepsOutcome:
    """How :func:`run` ended: the steps done, and why it stopped short (None when every step is done)."""

    done: list[dict[str, Any]]
    problem: str | None = None


def claim_name(spec: CampaignSpec) -> str:
    """The name a run of the steps campaign claims in the database (:class:`service.store.claims.Claims`): its
    folder, so that two runs of it (on this machine or another sharing the database) never judge a step twice."""
    return f"steps campaign {os.path.abspath(Folder(spec).path)}"[:256]


def _steps(jobs: JobStore, spec: CampaignSpec, *, worker: bool, processes: int | None, export_every: float,
           scheduler: str | None, log: Log) -> StepsOutcome:
    done = _prepare(spec)
    where = Folder(spec)
    if len(done) == len(spec.steps):
        log(f"{spec.game.spec}: every step of {os.path.basename(spec.path)} is done already in {where.path}: nothing "
            "to run")
    for index in range(len(done), len(spec.steps)):
        step = spec.steps[index]
        log(f"{spec.game.spec}: step {index + 1} of {len(spec.steps)}: {command(spec, step)}")
        closed = _closed(spec, index)
        if closed is None:
            sub, tree, params = _sub_spec(spec, index)
            if step.kind == "rollout" and step.params["graft"]:
                _refuse_graft(spec, index)
            if sub is not None:
                out = campaign_specs.run(jobs, sub, worker=worker, processes=processes, export_every=export_every,
                                         units=step.params.get("units"), scheduler=scheduler, log=log)
                if out.problem is not None:
                    return StepsOutcome(done, out.problem)
            # a Ctrl-C waits for the judgment (a kill is undone by .before/), but for a hybrid's, which builds the
            # tree, minutes long: stopped, it is taken again from the start
            deferred: contextlib.AbstractContextManager[list[int]] = (
                signals_deferred() if step.kind != "hybrid" else contextlib.nullcontext([]))
            with deferred as stopped:
                try:
                    closed = _judge(spec, index, tree, params, log) or _closed(spec, index)
                except KeyboardInterrupt:
                    return StepsOutcome(done, STOPPED)
                if closed is None:
                    return StepsOutcome(done, f"step {index + 1}: its {step.kind} is not finished: run the same "
                                              "command again to finish it")
                done.append(_outcome(spec, index, closed))
                _save_state(spec, done)
                _drop(os.path.join(where.path, BEFORE))
            if stopped:
                return StepsOutcome(done, STOPPED)
        else:
            done.append(_outcome(spec, index, closed))
            _save_state(spec, done)
        last = done[-1]
        log(f"{spec.game.spec}: step {index + 1} done: " + (f"its tree {last['built']}, " if last["built"] else "")
            + ("kept" if last["kept"] else "not kept") + f"; the tree now {last['total']}")
    return StepsOutcome(done)


def _refuse_graft(spec: CampaignSpec, index: int) -> None:
    """What the judgment of a graft step would refuse, refused before its units are built: no tree to graft into
    (as `records rollout --graft` refuses it), or one that opens with another first guess than the step's rollout.

    :raises CampaignError: either."""
    where, plan = Folder(spec), spec.steps[index].rollout_plan
    try:
        records_keeping.refuse_graft(spec.game.spec, spec.steps[index].params["units"], True, where.file)
    except CampaignError as exc:
        raise CampaignError(f"step {index + 1}: {exc}") from None
    tree = where.registry.load(where.file)[spec.game.spec][where.registry.tree_key]
    first = spec.game.format_code(first_guess(spec.game, plan))
    if tree["first_guess"] != first:
        raise CampaignError(f"step {index + 1}: its rollout opens with {first}, and the tree it grafts into with "
                            f"{tree['first_guess']}: its units would be parts of another tree")


def _sub_spec(spec: CampaignSpec, index: int) -> tuple[CampaignSpec | None, Any, dict[str, Any] | None]:
    """(the step's campaign, a polish's tree and parameters): None for a hybrid, built in the command."""
    step, where = spec.steps[index], Folder(spec)
    file, p = where.step_file(index), step.params
    if step.kind == "rollout":
        return CampaignSpec.rollout(spec.game, step.rollout_plan, file), None, None
    if step.kind == "hybrid":
        return None, None, None
    try:
        tree, params = where.registry.polish_target(spec.game.spec, above=p["above"], at_most=p["at_most"],
                                                    budget_s=p["budget_s"], max_guesses=p["max_guesses"],
                                                    path=where.file, folder=where.trees, sweep=p["sweep"],
                                                    parts=p["parts"], as_given=True)
    except ValueError as exc:
        raise CampaignError(f"step {index + 1}: {exc}") from None
    return CampaignSpec.polish(spec.game, tree, params, file), tree, params


def _judge(spec: CampaignSpec, index: int, tree: Any, params: dict[str, Any] | None,
           log: Log) -> dict[str, Any] | None:
    """The step's tree assembled, played through every secret and kept in the folder's registry file when it is
    better, as the step's command does, the files it rewrites copied to ``.before/`` first; a hybrid's total and
    whether it was kept (a rollout's and a polish's are in their closed progress files)."""
    where = Folder(spec)
    before = os.path.join(where.path, BEFORE)
    if not os.path.isdir(before):
        partial = before + ".part"
        shutil.rmtree(partial, ignore_errors=True)
        os.makedirs(partial)
        if os.path.exists(where.file):
            shutil.copyfile(where.file, os.path.join(partial, os.path.basename(where.file)))
        else:
            open(os.path.join(partial, ABSENT), "w", encoding="utf-8").close()
        shutil.copytree(where.trees, os.path.join(partial, "trees"))
        with open(os.path.join(partial, "step"), "w", encoding="utf-8") as fh:
            fh.write(str(index))
        os.replace(partial, before)
    try:
        return _judged(spec, index, tree, params, log)
    finally:
        _relative_paths(spec)


def _judged(spec: CampaignSpec, index: int, tree: Any, params: dict[str, Any] | None,
            log: Log) -> dict[str, Any] | None:
    step, where, name = spec.steps[index], Folder(spec), spec.game.spec
    file, p = where.step_file(index), step.params
    try:
        if step.kind == "polish":
            where.registry.add_polish(name, tree, params or {}, file, path=where.file, folder=where.trees, log=log)
        elif where.group == "records" and step.kind == "rollout":
            records_keeping.add_rollout(name, step.rollout_plan, file, path=where.file, folder=where.trees,
                                        units=p["units"], graft=p["graft"], log=log)
        elif where.group == "records":
            record = records_keeping.add_hybrid(name, p["strategy"], p["exact_at_most"], path=where.file,
                                                folder=where.trees, log=log)
            return {"total": record["total"], "kept": record["kept"]}
        elif step.kind == "rollout":
            plan = step.rollout_plan
            atlas_keeping.add_hybrid(name, plan.exact_at_most, plan.strategy, path=where.file, folder=where.trees,
                                     rollout=_atlas_rollout(step), max_guesses=plan.max_guesses, progress=file, log=log)
        else:
            kept = atlas_keeping.add_hybrid(name, p["exact_at_most"], p["strategy"], path=where.file,
                                            folder=where.trees, max_guesses=p["max_guesses"], log=log)
            return {"kept": False} if kept is None else {"total": kept["total"], "kept": True}
    except ValueError as exc:  # CampaignError among them: a step its command refuses at this point
        raise CampaignError(f"step {index + 1}: {exc}") from None
    return None


def _relative_paths(spec: CampaignSpec) -> None:
    """The folder's tree record names its step's progress file relative to the folder (the judging functions are
    given it as a path from here), so that the folder reads the same wherever it is copied or cloned."""
    where = Folder(spec)

    def relative(record: dict[str, Any]) -> bool:
        campaign = record.get("campaign") or {}
        progress = campaign.get("progress")
        if isinstance(progress, str) and os.path.isabs(progress):
            campaign["progress"] = os.path.relpath(progress, where.path)
            return True
        return False

    if os.path.exists(where.file):
        entries = where.registry.load(where.file)
        if relative(entries[spec.game.spec].get(where.registry.tree_key) or {}):
            where.registry.save(entries, where.file)
    manifest = read_manifest(where.trees)
    if relative(manifest.get((spec.game.spec, BEST_KNOWN)) or {}):
        write_manifest(manifest, where.trees)


def tree_file(spec: CampaignSpec) -> str:
    """The folder's best-known tree (its registry file names its manifest entry)."""
    return os.path.join(Folder(spec).trees, best_known_file(spec.game.spec))


class StepsKind(DrivenCampaignKind):
    """The steps campaign as a kind of campaign: refused, shown and run as every kind is named by its spec
    (``campaign run``, ``campaign show``), but driven here, step by step, rather than as one job: each step is a
    campaign of its own kind (:func:`service.campaign_specs.run`) followed by the judgment of its tree."""

    name = "steps"

    def check(self, spec: CampaignSpec) -> None:
        """Refuse, before any work, a game no registry keeps a best-known tree of, steps its command would refuse, and a
        folder holding another campaign's steps.

        :raises CampaignError: what is wrong, in the spec's words."""
        where = Folder(spec)
        name = spec.game.spec
        package = {os.path.realpath(p)
                   for p in (os.path.dirname(RECORDS_KEEPER.file), os.path.dirname(ATLAS_KEEPER.file), TREE_DIR)}
        if (os.path.basename(spec.progress) != STATE or where.path == os.path.dirname(spec.path)
                or os.path.realpath(where.path) in package):
            raise CampaignError(f"{spec.path}: progress {spec.progress}; a steps campaign keeps its files in a "
                                f"folder of its own, beside or below its spec: give FOLDER/{STATE}")
        if where.group == "atlas":
            if not atlas.unsolved(ATLAS_KEEPER.shipped().get(name)):
                raise CampaignError(f"{spec.path}: {name} is neither a records game nor an unsolved atlas game: "
                                    "no file keeps a best-known tree of it")
            for i, step in enumerate(spec.steps):
                extra = [k for k in RECORDS_ONLY if step.kind == "rollout" and step.params["plan"].get(k)]
                if extra or (step.kind == "rollout" and step.params["units"] is not None) or (
                        step.kind == "polish" and step.params["parts"] is not None):
                    raise CampaignError(f"{spec.path}: step {i + 1}: {', '.join(extra) or 'units or parts'}: only a "
                                        "records game's steps take them (atlas hybrid and atlas polish do not)")
        first = spec.steps[0]
        if first.kind == "polish" or (first.kind == "rollout" and first.params["graft"]):
            graft = " with graft" if first.kind == "rollout" else ""
            raise CampaignError(f"{spec.path}: step 1: a {first.kind}{graft} works on the tree as it stands, and the "
                                "folder has none yet: the first step builds one (a hybrid, or a rollout of the whole "
                                "tree)")
        for i, step in enumerate(spec.steps):
            if where.group == "records" and step.kind == "hybrid" and step.params["max_guesses"] is not None:
                raise CampaignError(f"{spec.path}: step {i + 1}: max_guesses {step.params['max_guesses']}; records "
                                    "hybrid keeps to no limit: give null")
        state = _state(spec)
        asked = [s.to_json() for s in spec.steps]
        if state is not None and state.get("steps_asked") != asked[:len(state["steps_asked"])]:
            raise CampaignError(f"{spec.progress} is another steps campaign's (its steps differ from the spec's): give "
                                "another --progress, or remove its folder to start again")

    def progress(self, spec: CampaignSpec) -> dict[str, Any] | None:
        """What the folder holds: the steps done (each with its total and whether its tree was kept), the next, and the
        tree as it stands; None before the first run."""
        state = _state(spec)
        if state is None:
            return None
        where = Folder(spec)
        best = where.registry.load(where.file)[spec.game.spec].get(where.registry.tree_key) if os.path.exists(
            where.file) else None
        done = len(state["done"])
        return {"folder": where.path, "steps": len(spec.steps), "steps_done": done, "finished": done >= len(spec.steps),
                "next": None if done >= len(spec.steps) else f"{done + 1}: {command(spec, spec.steps[done])}",
                "done": state["done"],
                "tree": None if best is None else {k: best.get(k) for k in ("total", "worst_case", "seconds")}}

    def status(self, jobs: JobStore, spec: CampaignSpec) -> dict[str, Any]:
        """Where the steps campaign stands: its spec, its folder's progress, and the step under way's job on this
        database (None before it was run here)."""
        shown = self.progress(spec)
        job = None
        done = 0 if shown is None else int(shown["steps_done"])
        under_way = None if done >= len(spec.steps) else spec.steps[done]
        if under_way is not None and under_way.kind != "hybrid" and os.path.isdir(Folder(spec).trees):
            sub = _sub_spec(spec, done)[0]
            job = None if sub is None else campaign_specs.status(jobs, sub)["job"]
        return {"spec": spec.to_json(), "progress": shown, "job": job,
                "step": None if under_way is None else {"step": done + 1, "kind": under_way.kind,
                                                        "job": under_way.kind != "hybrid"}}

    def drive(self, jobs: JobStore, spec: CampaignSpec, *, worker: bool = True, processes: int | None = None,
            export_every: float = 300.0, scheduler: str | None = None, log: Log = lambda _: None) -> StepsOutcome:
        """Take every step not done yet, in order: its campaign run as a job (:func:`service.campaign_specs.run`, a
        ``bullscows worker`` started for it unless ``worker`` is False), then judged and kept in the folder's registry
        file (:func:`_judge`).  Stopped (Ctrl-C, the worker gone, a job failed), it returns with why; run again, it goes
        on from there.

        :raises CampaignError: before any work, what :func:`check` refuses."""
        self.check(spec)
        settings = Settings()
        claims = Claims(jobs.db, stale_after=settings.job_stale_after_s, beat_every=settings.job_heartbeat_s)
        with claims.held(claim_name(spec)) as mine:
            if not mine:
                raise CampaignError(f"another run of this steps campaign holds {Folder(spec).path}: wait for it, or "
                                    "stop it")
            return _steps(jobs, spec, worker=worker, processes=processes, export_every=export_every,
                          scheduler=scheduler, log=log)

    def keep(self, spec: CampaignSpec, file: str | None = None, log: Log = lambda _: None) -> dict[str, Any]:
        """Keep the finished campaign's tree in the package's registry (``file``: another file of its kind, the trees
        beside it in ``trees/``) when it beats the one recorded, by the registry's one rule
        (:meth:`~service.registry.KeptRegistry.keep_tree`): played through every secret again first, its record the
        folder's with the figures of that play, its ``campaign`` the spec and its folder.  Returns the record, whether
        it was kept, and the file.

        :raises CampaignError: steps are left, the folder's tree is not the one its record says, or ``file`` is not a
            file of the registry's kind."""
        where = Folder(spec)
        state = _state(spec)
        if state is None or len(state["done"]) < len(spec.steps):
            raise CampaignError(f"{spec.path}: {len(spec.steps) - len((state or {}).get('done', []))} of its steps are "
                                "not done: its tree is kept once every step is")
        record = dict(where.registry.load(where.file)[spec.game.spec].get(where.registry.tree_key) or {})
        stored = TreeLibrary(where.trees).get(spec.game, BEST_KNOWN, None)
        if not record or stored is None:
            raise CampaignError(f"{where.path} holds no best-known tree: nothing to keep")
        tree = stored.tree
        stats = tree.stats()
        if stats.total != record["total"] or stats.worst_case != record["worst_case"]:
            raise CampaignError(f"{where.path}: its tree needs {stats.total} guesses (worst case {stats.worst_case}), "
                                f"not the {record['total']} its record says")
        target = file or where.registry.file
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(where.registry.file))))

        def named(path: str) -> str:  # from the checkout's root, as the package's records name their files
            relative = os.path.relpath(path, repo)
            return path if relative.startswith("..") else relative

        record["campaign"] = {"spec": named(spec.path), "progress": named(spec.progress)}
        for key in ("tree", "bytes"):
            record.pop(key, None)
        played = {"histogram": {str(k): v for k, v in stats.histogram.items()}, "nodes": stats.nodes,
                  "average": round(stats.total / spec.game.size, 5), "movers": stats.histogram.get(stats.worst_case, 0)}
        record.update({k: v for k, v in played.items() if k in record})
        if record.get("command") != chain(spec):
            log(f"{spec.game.spec}: some steps kept no tree, so its record's chain is shorter than the spec's; "
                "`campaign steps` of the game writes that chain")
        try:
            kept = where.registry.keep_tree(spec.game.spec, tree, stats, record, where.registry.tree_fields(record),
                                            path=target, log=log,
                                            folder=os.path.join(os.path.dirname(os.path.abspath(target)), "trees"))
        except (KeyError, TypeError, ValueError) as exc:
            raise CampaignError(f"{target} is not a file of the {where.group} that keeps {spec.game.spec}: "
                                f"{exc!r}") from None
        return {"record": record, "kept": kept, "file": target}


KIND = StepsKind()
