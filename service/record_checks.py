"""The search behind ``bullscows records check``: a game's optimal total among the strategies that open with a given
first guess and then play only codes still possible, one part (response to the first guess) at a time, each part
resumable and shareable between runs.

Why apart from :mod:`service.records`: this is a search over a game, which knows nothing of the records file; the
records keep what it proves (:func:`service.records.add_check`) and say where a check stands
(:func:`service.records.check_status`), and hand it the callbacks through which it reads and writes that file.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Collection
from typing import Any

import numpy as np

from solver import kernels
from solver.game import Code, Game, Turn
from solver.search import InvalidSearchError, RootProgress, Searcher, SolveOptions
from solver.vocabulary import Criterion, game_value

CHECK_PROGRESS_EVERY_S = 60.0
"""How often a part being searched writes how far it has come (a stopped run loses at most this much)."""


def share_key(name: str, share: tuple[int, int]) -> str:
    """Where a check keeps the progress of one share of a part (the part's own name for the whole search)."""
    mine, shares = share
    return name if shares == 1 else f"{name} share {mine + 1}/{shares}"


def candidates_only_parts(game: Game, first: Code, known: Callable[[], dict[str, dict[str, Any]]], *,
                          keep: Callable[[str, dict[str, Any]], None] = lambda _r, _p: None,
                          only: Collection[str] | None = None,
                          progress: Callable[[], dict[str, dict[str, Any]]] = dict,
                          keep_progress: Callable[[str, dict[str, Any]], None] = lambda _r, _p: None,
                          share: tuple[int, int] = (0, 1),
                          every: float | None = None,
                          log: Callable[[str], None] = lambda _: None) -> int | None:
    """The optimal total of ``game`` among the strategies that open with ``first`` and then play only codes that
    are still possible (the from-set-only search, :class:`solver.search.Searcher`), one response to ``first``
    at a time, smallest first.  ``known()``: the parts solved so far, by formatted response, as ``keep`` was told
    each (``{"candidates", "value", "seconds"}``, the value counting every guess of the game, ``first``
    included); it is asked again before each part, so that a stopped run continues with the parts it had not
    solved, and several runs share the parts.  ``only``: the responses this run may solve (the others are taken
    from ``known()`` if they are there).  Returns the total (the parts' values, and 1 for the secret ``first``
    itself), or None while a part is missing.

    Inside a part, ``keep_progress`` is told at most every ``every`` seconds (default
    :data:`CHECK_PROGRESS_EVERY_S`) how far its search has come (``{"search": RootProgress as JSON,
    "seconds"}``, under :func:`share_key`), and ``progress()`` gives all of it back to a later run, which
    continues the part from there (the part's ``seconds`` then count every run's).  ``share`` (k, n): this run
    searches only the second guesses k, k + n, ... of each part (:meth:`Searcher.search_root`), cut by the best
    value the other shares have written; the share that finds all n done writes the part.

    Why part by part, progress inside a part and shares: the biggest parts of Super Mastermind take hours,
    longer than a run may last, a run that is stopped must keep what it proved, and one part left should still
    keep every core busy."""
    options = SolveOptions(Criterion.TOTAL, from_set_only=True)
    searcher = Searcher(game, options, table_capacity=1 << 22)
    a = searcher.arrays
    order, starts = kernels.split(*a.kernel_args(), first, game.candidates(()), game.n_responses)
    sizes = np.diff(starts)
    total: int | None = 0
    for r in sorted(np.flatnonzero(sizes).tolist(), key=lambda r: (int(sizes[r]), r)):
        if r == game.all_bulls:
            total = None if total is None else total + 1
            continue
        name = game.format_response(r)
        part = known().get(name)
        if part is not None and int(part["candidates"]) != int(sizes[r]):
            part = None  # another game's or another guess's part: never counted
        if part is None and (only is None or name in only):
            part = _search_part(searcher, first, r, order[starts[r]:starts[r + 1]], share, progress, keep_progress,
                                CHECK_PROGRESS_EVERY_S if every is None else every, log)
            if part is not None:
                keep(name, part)
                log(f"{game.spec}: after {game.format_code(first)} {name}, {part['candidates']} candidates: "
                    f"{part['value']} guesses ({part['seconds']} s)")
        total = None if part is None or total is None else total + int(part["value"])
    return total


def _search_part(searcher: Any, first: Code, r: int, cands: Any, share: tuple[int, int],
                 progress: Callable[[], dict[str, dict[str, Any]]],
                 keep_progress: Callable[[str, dict[str, Any]], None], period: float,
                 log: Callable[[str], None]) -> dict[str, Any] | None:
    """One part of :func:`candidates_only_parts` (the response ``r`` to ``first``, its candidates ``cands``),
    or this run's share of it: the part's record, or None while other shares have not finished."""
    game: Game = searcher.game
    name = game.format_response(r)
    key = share_key(name, share)
    mine, shares = share
    size = int(cands.shape[0])
    history = [Turn(first, r)]
    where = f"{game.spec}: after {game.format_code(first)} {key}"
    digest = searcher.root_digest(history, cands=cands)

    def state_of(saved: dict[str, Any] | None) -> RootProgress | None:
        """A kept progress of this search (None if unreadable or of another search)."""
        try:
            state = RootProgress.from_json(saved["search"]) if saved is not None else None
        except (ValueError, TypeError, KeyError):
            return None
        return state if state is not None and state.order == digest else None

    def others() -> dict[str, dict[str, Any]]:
        """The progress kept for this part: the whole search's and every share's."""
        return {k: v for k, v in progress().items() if k == name or k.startswith(f"{name} share ")}

    kept = others()
    before, resume = 0.0, state_of(kept.get(key))
    if kept.get(key) is not None and resume is None:
        log(f"{where}: the progress kept is unreadable or of another search; it starts over")
    if resume is not None:
        before = float(kept[key].get("seconds", 0.0))
    elif key != name and state_of(kept.get(name)) is not None:
        resume = state_of(kept.get(name))  # every guess before the whole search's `done` is done: any share goes on
        if resume is not None and resume.done % shares != mine:
            resume = dataclasses.replace(resume, parts=0, acc=0, per={})  # that guess is another share's
    if resume is not None:
        log(f"{where}: continuing from guess {resume.done} of {resume.guesses} ({before:.0f} s searched before)")
    started = last = time.perf_counter()

    def guessed(guess: Code | None) -> dict[str, str]:
        """The part record's ``guess`` entry, left out when the search names no guess."""
        return {} if guess is None else {"guess": game.format_code(guess)}

    def checkpoint(state: RootProgress) -> None:
        nonlocal last
        now = time.perf_counter()
        final = shares > 1 and state.done >= state.guesses  # the other shares need it to finish the part
        if now - last < period and not final:
            return
        last = now
        keep_progress(key, {"search": state.to_json(), "seconds": round(before + now - started, 1)})
        best = "none yet" if state.best_value is None else str(game_value(state.best_value, size, 2, Criterion.TOTAL))
        log(f"{where}, {size} candidates: guess {state.done} of {state.guesses} ({state.parts} parts of it "
            f"searched), best so far {best}, {before + now - started:.0f} s")

    if shares == 1:
        res = searcher.solve(history, cands=cands, resume=resume, checkpoint=checkpoint)
        if not res.exact or res.value is None:
            raise RuntimeError(f"the search of part {name} gave no exact value")  # no limit: it always ends
        seconds = round(before + time.perf_counter() - started, 1)
        return {"candidates": size, "value": int(res.value), "seconds": seconds, **guessed(res.best_guess)}

    def elsewhere() -> int | None:
        values = [s.best_value for k, v in others().items() if k != key
                  for s in [state_of(v)] if s is not None and s.best_value is not None]
        return min(values, default=None)

    try:
        searcher.search_root(history, cands=cands, slot=share, elsewhere=elsewhere, resume=resume,
                             checkpoint=checkpoint)
    except InvalidSearchError:
        raise RuntimeError(f"the progress kept for {key} does not fit its search") from None  # checked above
    kept = others()
    finals = [state_of(kept.get(share_key(name, (j, shares)))) for j in range(shares)]
    if any(s is None or s.done < s.guesses for s in finals):
        log(f"{where}: this share is done; the part waits for the others")
        return None
    bests = [(s.best_value, s.best_guess) for s in finals if s is not None and s.best_value is not None]
    if not bests:  # the first guess of the order is searched with no bound by whichever share has it
        raise RuntimeError(f"no share of part {name} has a value: its progress is not of one search")
    value, guess = min(bests, key=lambda b: b[0])
    seconds = sum(float(kept[share_key(name, (j, shares))]["seconds"]) for j in range(shares))
    if state_of(kept.get(name)) is not None:
        seconds += float(kept[name].get("seconds", 0.0))  # the whole search the shares went on from
    return {"candidates": size, "value": game_value(value, size, 2, Criterion.TOTAL), "seconds": round(seconds, 1),
            "shares": shares, **guessed(guess)}
