"""The search behind ``bullscows records check`` and ``solve --checkpoint``: one share of one position's search,
guess by guess, resumable from the progress an earlier attempt kept, and a check's part record made from its
shares'.

Why apart from :mod:`service.checks` and :mod:`service.searches`: this is a search over a game, which knows nothing
of the records file, of a progress file nor of the job that runs it; the job's unit
(:func:`service.jobs.campaign_units.run_root_search_unit`) hands it the callbacks through which it reads and keeps
progress, and the campaigns put the shares and parts together.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from service.campaign_files import share_key
from solver import kernels
from solver.game import Code, Game, Turn
from solver.position import Position
from solver.search import InvalidSearchError, RootProgress, Searcher
from solver.vocabulary import game_value

CHECK_PROGRESS_EVERY_S = 10.0
"""How often a position being searched keeps how far it has come: a stopped unit loses at most this much (or, when
one part of the guess it tries takes longer, that part: progress is told between parts).  A row of the job store
each time, a few hundred bytes."""


def part_candidates(game: Game, first: Code, response: int) -> np.ndarray:
    """The candidates of the part ``response`` to ``first``, in the order a check searches them (the order its
    kept progress is of: :meth:`solver.search.Searcher.root_digest`)."""
    a = game.arrays(table=True)
    order, starts = kernels.split(*a.kernel_args(), first, game.candidates(()), game.n_responses)
    return np.asarray(order[starts[response]:starts[response + 1]])


def search_share(searcher: Searcher, history: list[Turn], cands: np.ndarray, share: tuple[int, int], name: str,
                 progress: Callable[[], dict[str, dict[str, Any]]],
                 keep_progress: Callable[[str, dict[str, Any]], None], period: float = CHECK_PROGRESS_EVERY_S,
                 log: Callable[[str], None] = lambda _: None) -> dict[str, Any] | None:
    """Search this share of the position ``history`` (candidates ``cands``) with ``searcher`` and its question (a
    check's: a from-set-only searcher of the total): the share's record ``{"candidates", "value", "seconds",
    "guess", "search", "per_response"}`` (each response's value after the guess), or None when the search was stopped
    (:meth:`Searcher.request_stop`).  ``value`` is game-level (every guess of the position's secrets, the
    history's included), None when every guess of the share was cut by the others'; ``search`` is the share's
    last progress (:class:`RootProgress` as JSON).

    ``progress()``: the progress kept of this position, by :func:`share_key` of ``name`` (``{"search",
    "seconds"}``), this share's included; the share goes on from its own, or from the whole search's when it has
    none.  ``keep_progress`` is told at most every ``period`` seconds, and at the end, how far the share has come.
    ``share`` (k, n): only the guesses k, k + n, ... of the position (:meth:`Searcher.search_root`), each cut by
    the best value the other shares have kept; (0, 1) searches the whole position at once."""
    game = searcher.game
    key = share_key(name, share)
    mine, shares = share
    size = int(cands.shape[0])
    where = f"{game.spec}: after {', '.join(game.format_turn(t) for t in history) or 'nothing'} ({key})"
    digest = searcher.root_digest(history, cands=cands)

    def state_of(saved: dict[str, Any] | None) -> RootProgress | None:
        """A kept progress of this search (None if unreadable or of another search)."""
        try:
            state = RootProgress.from_json(saved["search"]) if saved is not None else None
        except (ValueError, TypeError, KeyError):
            return None
        return state if state is not None and state.order == digest else None

    kept = progress()
    before, resume = 0.0, state_of(kept.get(key))
    if kept.get(key) is not None and resume is None:
        log(f"{where}: the progress kept is unreadable or of another search; it starts over")
    if resume is not None:
        before = float(kept[key].get("seconds", 0.0))
    elif key != name and state_of(kept.get(name)) is not None:
        resume = state_of(kept.get(name))  # every guess before the whole search's `done` is done: any share goes on
        if resume is not None and resume.done % shares != mine:
            resume = dataclasses.replace(resume, parts=0, acc=0, per={})  # that guess is another share's
    resumed = {} if resume is None else {"resumed": resume.done}
    if resume is not None:
        log(f"{where}: continuing from guess {resume.done} of {resume.guesses} ({before:.0f} s searched before)")
    started = last = time.perf_counter()
    final: list[RootProgress] = []

    def checkpoint(state: RootProgress) -> None:
        nonlocal last
        final[:] = [state]
        now = time.perf_counter()
        if now - last < period and state.done < state.guesses:
            return
        last = now
        keep_progress(key, {"search": state.to_json(), "seconds": round(before + now - started, 1)})

    def elsewhere() -> int | None:
        values = [s.best_value for k, v in progress().items() if k != key and k.startswith(f"{name} share ")
                  for s in [state_of(v)] if s is not None and s.best_value is not None]
        return min(values, default=None)

    value: int | None
    per: dict[str, Any] = {}
    if shares == 1:
        res = searcher.solve(history, cands=cands, resume=resume, checkpoint=checkpoint)
        if searcher.stop_requested:
            return None
        if not res.exact:
            raise RuntimeError(f"the search of {key} gave no exact value")  # no node limit: it always ends
        value, guess = None if res.value is None else int(res.value), res.best_guess
        per = {"per_response": {game.format_response(r): v for r, v in sorted(res.per_response.items())}}
    else:
        try:
            state = searcher.search_root(history, cands=cands, slot=share, elsewhere=elsewhere, resume=resume,
                                         checkpoint=checkpoint)
        except InvalidSearchError:
            raise RuntimeError(f"the progress kept for {key} does not fit its search") from None  # checked above
        if state is None:
            return None
        final[:] = [state]
        criterion = searcher.options.criterion
        turn = Position(searcher.game, tuple(history), cands).turn
        value = None if state.best_value is None else game_value(state.best_value, size, turn, criterion)
        guess = state.best_guess
        if value is not None and state.best_per:  # the share's best guess, searched whole: each response's value
            per = {"per_response": {game.format_response(r): v for r, v in sorted(state.best_per.items())}}
    seconds = round(before + time.perf_counter() - started, 1)
    search = {"search": final[0].to_json()} if final else {}
    if final:
        keep_progress(key, {**search, "seconds": seconds})
    log(f"{where}, {size} candidates: {value} guesses ({seconds} s)")
    return {"candidates": size, "value": value, "seconds": seconds,
            **({} if guess is None else {"guess": game.format_code(guess)}), **per, **resumed, **search}


def part_record(shares: Sequence[dict[str, Any]], whole: dict[str, Any] | None = None) -> dict[str, Any]:
    """A part's record in the check (``{"candidates", "value", "seconds", "guess"}``, with ``shares`` when it was
    shared) from its shares' records (:func:`search_share`), all finished: the least value of theirs, with its
    guess, and every share's time (and the time of the whole search ``whole`` they went on from, if any).

    :raises ValueError: no share has a value (the first guess of the order is searched with no bound by whichever
        share has it, so shares of one search always give one)."""
    valued = [s for s in shares if s.get("value") is not None]
    if not valued:
        raise ValueError("no share of the part has a value: its shares are not of one search")
    best = min(valued, key=lambda s: int(s["value"]))
    seconds = sum(float(s["seconds"]) for s in shares) + float((whole or {}).get("seconds", 0.0))
    record = {"candidates": int(best["candidates"]), "value": int(best["value"]), "seconds": round(seconds, 1),
              **({"guess": best["guess"]} if "guess" in best else {})}
    return record if len(shares) == 1 else {**record, "shares": len(shares)}
