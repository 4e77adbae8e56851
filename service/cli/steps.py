"""``bullscows campaign steps``: a recorded command chain read back as a steps campaign's steps, written as a spec.

Why here: a best-known tree's record names the commands that built it (``records rollout ... && records polish
...``); each is read by that command's own parser (its click options, defaults included) and turned into a step as
the command would run it, so a steps spec made from the record asks exactly what the record says was run.  The
service layer renders the steps back into commands (:func:`service.step_runs.chain`), and the two are compared.
"""

from __future__ import annotations

import json
import os
import shlex
from typing import Any

import click

from service.cli.common import emit, fail, json_option
from service.cli.jobs import campaign_cmd

STEP_COMMANDS = {("records", "hybrid"), ("records", "rollout"), ("records", "polish"), ("atlas", "hybrid"),
                 ("atlas", "polish")}
"""The commands a best-known tree's record chains, each a step of a steps campaign."""


def steps_of_chain(spec: str, chain: str) -> list[dict[str, Any]]:
    """The steps (as a steps spec gives them) of ``chain``, the commands joined by ``&&`` that a record of ``spec``
    names, or the command's ``error:`` line for a command that is no step."""
    from service.cli.atlas import atlas_hybrid, atlas_polish
    from service.cli.records import records_hybrid, records_plan, records_polish, records_rollout

    commands = {("records", "hybrid"): records_hybrid, ("records", "rollout"): records_rollout,
                ("records", "polish"): records_polish, ("atlas", "hybrid"): atlas_hybrid,
                ("atlas", "polish"): atlas_polish}
    words = shlex.split(chain)
    segments: list[list[str]] = [[]]
    for word in words:
        if word == "&&":
            segments.append([])
        else:
            segments[-1].append(word)
    steps = []
    for segment in segments:
        key = tuple(segment[1:3])
        if segment[:1] != ["bullscows"] or key not in commands:
            fail(f"{' '.join(segment[:3])!r} is not a step of a best-known tree's build (the steps are "
                  f"{', '.join(' '.join(k) for k in sorted(STEP_COMMANDS))})")
        group, name = key
        try:
            with commands[key].make_context(name, segment[3:]) as ctx:
                p = dict(ctx.params)
        except click.UsageError as exc:
            fail(f"{' '.join(segment[:3])}: {exc.format_message()}")
        given = p.get("game") or (p.get("games") or [None])[0]
        if given is None or _spec_of(given) != spec:
            fail(f"{' '.join(segment[:3])} -g {given}: the record's game is {spec}")
        if name == "polish":
            steps.append({"step": "polish", "above": p["above"], "at_most": p["at_most"], "budget_s": p["budget"],
                          "max_guesses": p["max_guesses"], "sweep": p["sweep"],
                          "parts": None if p.get("parts") is None else p["parts"].split(",")})
        elif group == "records" and name == "rollout":
            plan = records_plan(spec, p["strategy"], p["exact_at_most"], p["width"], p["from_turn"], p["levels"],
                                 p["min_size"], p["max_guesses"], p["over_width"], p["keep_width"], p["judge_width"],
                                 p["judge_turns"], p["judge_pool"], p["polish_units"], tuple(p["play"]))
            steps.append({"step": "rollout", "plan": plan.as_dict(),
                          "units": None if p["units"] is None else p["units"].split(","), "graft": p["graft"]})
        elif group == "atlas" and p["rollout_width"] is not None:
            from solver.rollout import RolloutPlan

            if p["strategy"] is None:
                fail("atlas hybrid: a recorded command names its --strategy")
            plan = RolloutPlan(p["strategy"], p["exact_at_most"], p["rollout_width"], p["rollout_levels"],
                               p["rollout_min_size"] or p["exact_at_most"], p["rollout_from_turn"], p["max_guesses"])
            steps.append({"step": "rollout", "plan": plan.as_dict(), "units": None, "graft": False})
        else:
            steps.append({"step": "hybrid", "strategy": p["strategy"], "exact_at_most": p["exact_at_most"],
                          "max_guesses": p.get("max_guesses")})
    return steps


def _spec_of(game: str) -> str:
    from solver.game import Game

    return Game.from_spec(game).spec


@campaign_cmd.command("steps")
@click.option("-g", "--game", required=True,
              help="A records game, or an unsolved atlas game, whose best-known tree's record names its commands.")
@click.option("--progress", default=None,
              help="The campaign's progress file, relative to SPEC's folder (default: tree-<game>/steps.json).")
@click.argument("spec", type=click.Path(dir_okay=False))
@json_option
def campaign_steps(game: str, progress: str | None, spec: str, as_json: bool) -> None:
    """Write SPEC: a steps campaign that builds GAME's best-known tree again by the commands the package's record of it
    names, in order (each read by its own command's options), in a folder of its own. `campaign run SPEC` then
    replays them, a rollout's or polish's work a job, each tree judged before the next step; nothing of the
    package's files is touched. Prints what was written: the spec's file, its game and steps, the record's total and
    the campaign's progress file."""
    from service import step_runs
    from service.campaign_files import CampaignError
    from service.campaign_spec import SPEC_FORMAT, SPEC_VERSION, load_spec
    from solver.errors import SolverError
    from solver.game import Game

    try:
        name = Game.from_spec(game).spec
    except SolverError as exc:
        fail(str(exc))
    registry = step_runs.registry_of(name)
    record = (registry.shipped().get(name) or {}).get(registry.tree_key)
    if record is None:
        fail(f"{name} has no best-known tree in the package's records or atlas (a solved game's trees are optimal "
              "ones): no command chain to replay")
    if os.path.exists(spec):
        fail(f"{spec} is there already: give a new file")
    doc: dict[str, Any] = {"format": SPEC_FORMAT, "version": SPEC_VERSION, "kind": "steps", "game": name,
                           "steps": steps_of_chain(name, record["command"]),
                           "progress": progress or f"tree-{name.replace(',', '-')}/steps.json"}
    folder = os.path.dirname(os.path.abspath(spec))
    if not os.path.isdir(folder):
        fail(f"{spec}: its folder is not there")
    tmp = os.path.join(folder, f".{os.path.basename(spec)}.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(doc, fh, indent=1)
        fh.write("\n")
    try:
        parsed = load_spec(tmp)
        step_runs.KIND.check(parsed)
        if step_runs.chain(parsed) != record["command"]:  # each step must say again what the record says was run
            fail("the steps read from the record do not give its command chain back: "
                  f"{step_runs.chain(parsed)!r}")
        os.replace(tmp, spec)
    except CampaignError as exc:
        fail(str(exc).replace(tmp, spec))
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    emit({"spec": spec, "game": name, "steps": len(doc["steps"]), "total": record["total"],
           "progress": doc["progress"]}, as_json)
