"""Whole strategy trees: build them from any strategy, measure them, save and load them.

A tree node is a position reached by the strategy: the guess it plays there, how many candidates
remain, and one child per response that does not end the game.  A secret is *solved* at the node
whose guess equals it; the game length of a secret is the depth of that node, counting every guess
of the game (a tree built after a history starts at depth ``len(history) + 1``).

Serialisations: a nested JSON document (:func:`to_json` / :func:`from_json`), and a compact text
form listing the guesses breadth-first with ``.`` where the guess is *derivable* — the lowest
candidate that splits the others into singletons, which a loader can recompute (the article's idea
for shipping trees to a browser).  Loading re-derives every candidate set and rejects any document
that is not a valid strategy for its game.

No search lives here: the guess at each node comes from a :class:`Chooser`.
"""

from __future__ import annotations

import sys
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np

from solver import plainkernels
from solver.codes import GameArrays
from solver.errors import InvalidCodeError, InvalidResponseError, InvalidTreeError, SolverError
from solver.game import DEFAULT_ALPHABET, CandidateSet, Code, Game, History, Response, Turn
from solver.position import Position

FORMAT = "bullscows-tree/1"


Chooser: TypeAlias = Callable[[CandidateSet, list[Turn]], Code]
"""What a tree needs from a strategy: a guess for a candidate set reached by the given turns (the
tree's history included; the next guess is number ``len(turns) + 1``)."""


@dataclass
class Node:
    """One position of a strategy tree."""

    guess: Code
    """The code played here."""
    size: int
    """How many candidates remain here."""
    hit: bool
    """Whether ``guess`` is one of them (so one secret is solved here)."""
    derivable: bool
    """Whether some candidate splits the others into singletons (its guess could be recomputed)."""
    children: dict[Response, Node] = field(default_factory=dict)
    """Sub-trees by response, the winning response excluded."""
    _subtree: Subtree | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def subtree(self) -> Subtree:
        """The figures of the subtree under this node: what a proven tree answers with at a position, and the
        worst case a browser is shown at each node of a part.

        Measured the first time any node above or at this one is asked (every node below is measured in the same
        pass, bottom up and without recursion: trees may be deep), then kept on the node, so that the answer
        chain and the routes pay for it once per loaded tree.  A tree is finished (built, loaded, polished)
        before anyone measures it: a node whose children change afterwards would keep its old figures."""
        if self._subtree is not None:
            return self._subtree
        order: list[Node] = []
        stack = [self]
        while stack:
            node = stack.pop()
            if node._subtree is None:  # a measured subtree is not walked again
                order.append(node)
                stack.extend(node.children.values())
        for node in reversed(order):  # children before their parents
            secrets = total = 1 if node.hit else 0
            height = 0
            for child in node.children.values():
                below = child.subtree
                secrets += below.secrets
                total += below.total + below.secrets  # every secret below also pays this node's guess
                height = max(height, below.height)
            measured = Subtree(secrets, total, height + 1)
            node._subtree = measured
        return measured  # the last one measured is this node


@dataclass(frozen=True)
class Subtree:
    """What a node's subtree holds (:attr:`Node.subtree`), counted in guesses from that node on, its own included."""

    secrets: int
    """Secrets solved at the node or below it."""
    total: int
    """Guesses those secrets still need, summed."""
    height: int
    """Most guesses any of them still needs: the node's worst case, from the node on."""


@dataclass(frozen=True)
class TreeStats:
    """Summary of a strategy tree."""

    total: int
    """Sum over all secrets of the guesses needed, the final one (and any history) included."""
    secrets: int
    """Number of secrets the tree solves."""
    average: float
    """``total / secrets``."""
    worst_case: int
    """Longest game."""
    histogram: dict[int, int]
    """Number of secrets solved with exactly ``k`` guesses, by ``k``."""
    nodes: int
    """Number of positions (nodes) in the tree."""
    derivable_nodes: int
    """Nodes whose guess could be derived (a candidate splits the rest into singletons)."""
    first_guess: str
    """The guess at the root."""

    def beyond(self, limit: int | None) -> int:
        """Secrets that need more than ``limit`` guesses (none without a limit): what a depth limit puts first."""
        return 0 if limit is None else sum(v for d, v in self.histogram.items() if d > limit)

    def as_dict(self) -> dict[str, Any]:
        """JSON-friendly form (histogram keys as strings)."""
        return {
            "total": self.total,
            "secrets": self.secrets,
            "average": self.average,
            "worst_case": self.worst_case,
            "histogram": {str(k): v for k, v in sorted(self.histogram.items())},
            "nodes": self.nodes,
            "derivable_nodes": self.derivable_nodes,
            "first_guess": self.first_guess,
        }


@dataclass
class Tree:
    """A complete strategy for every secret consistent with ``history``."""

    game: Game
    """The game played."""
    root: Node
    """Position after ``history``."""
    history: list[Turn] = field(default_factory=list)
    """Turns already played before the root."""
    strategy: str = ""
    """Name of the strategy that produced it (informational)."""

    @property
    def root_depth(self) -> int:
        """Guess number of the root's guess."""
        return len(self.history) + 1

    def nodes(self) -> Iterator[tuple[Node, int]]:
        """Every node with its depth, breadth-first, children by ascending response."""
        queue: deque[tuple[Node, int]] = deque([(self.root, self.root_depth)])
        while queue:
            node, depth = queue.popleft()
            yield node, depth
            for r in sorted(node.children):
                queue.append((node.children[r], depth + 1))

    def stats(self) -> TreeStats:
        """Totals, histogram, node counts."""
        hist: dict[int, int] = {}
        nodes = derivable = 0
        for node, depth in self.nodes():
            nodes += 1
            derivable += node.derivable
            if node.hit:
                hist[depth] = hist.get(depth, 0) + 1
        total = sum(k * v for k, v in hist.items())
        secrets = sum(hist.values())
        return TreeStats(
            total=total,
            secrets=secrets,
            average=total / secrets if secrets else 0.0,
            worst_case=max(hist) if hist else 0,
            histogram=dict(sorted(hist.items())),
            nodes=nodes,
            derivable_nodes=derivable,
            first_guess=self.game.format_code(self.root.guess),
        )

    def play(self, secret: Code) -> list[Code]:
        """The guesses the tree makes against ``secret`` (the last one equals it).

        :raises InvalidTreeError: the tree does not solve this secret.
        """
        node: Node | None = self.root
        guesses: list[Code] = []
        while node is not None:
            guesses.append(node.guess)
            if node.guess == secret:
                return guesses
            r = self.game.response(node.guess, secret)
            node = node.children.get(r)
        raise InvalidTreeError(
            f"the tree does not solve secret {self.game.format_code(secret)!r}"
        )

    def node_at(self, turns: Sequence[Turn]) -> Node | None:
        """The node reached by following ``turns`` from the root, if the tree played them."""
        node = self.root
        for turn in turns:
            if turn.guess != node.guess or turn.response not in node.children:
                return None
            node = node.children[turn.response]
        return node


def build_tree(
    game: Game,
    choose: Chooser,
    history: History = (),
    *,
    first: Code | None = None,
    strategy: str = "",
    arrays: GameArrays | None = None,
    on_solved: Callable[[int], None] | None = None,
) -> Tree:
    """The whole tree of ``choose`` from the position after ``history``.

    ``first`` forces the root's guess.  ``on_solved(k)`` is called as ``k`` more secrets get solved
    (for progress bars).

    :raises InconsistentHistoryError: the history leaves no candidate.
    """
    from solver import kernels

    a = arrays if arrays is not None else game.arrays(table=True)
    args = a.kernel_args()
    n_resp = game.n_responses
    win = game.all_bulls
    max_depth = len(history) + game.size + 1

    path: list[Turn] = list(history)

    def grow(cands: CandidateSet, depth: int, forced: Code | None) -> Node:
        size = int(cands.shape[0])
        if size == 1 and forced is None:
            # A lone candidate is the guess of every strategy, and most nodes of a tree are such
            # leaves: no kernel call for them.
            if on_solved is not None:
                on_solved(1)
            return Node(guess=int(cands[0]), size=1, hit=True, derivable=True)
        guess = forced if forced is not None else int(choose(cands, path))
        order, starts = kernels.split(*args, guess, cands, n_resp)
        node = Node(
            guess=guess,
            size=size,
            hit=bool(starts[win + 1] > starts[win]),
            # (no set larger than the number of responses can be split into singletons)
            derivable=bool(size <= n_resp and kernels.perfect_candidate(*args, cands, n_resp) >= 0),
        )
        if node.hit and on_solved is not None:
            on_solved(1)
        bounds = starts.tolist()
        for r in np.flatnonzero(np.diff(starts)).tolist():
            lo, hi = bounds[r], bounds[r + 1]
            if r == win:
                continue
            if hi - lo == node.size or depth >= max_depth:
                raise SolverError(
                    f"guess {game.format_code(guess)!r} does not split the candidates; "
                    f"the strategy {strategy or 'given'} makes no progress"
                )
            path.append(Turn(guess, r))
            node.children[r] = grow(order[lo:hi], depth + 1, None)
            path.pop()
        return node

    at = Position.of(game, history)
    limit = max(sys.getrecursionlimit(), 4 * game.positions * game.symbols + 1000)
    sys.setrecursionlimit(limit)
    root = grow(at.cands, at.turn, first)
    return Tree(game=game, root=root, history=list(history), strategy=strategy)


# -- serialisation ---------------------------------------------------------------------------


def to_json(tree: Tree) -> dict[str, Any]:
    """Nested JSON document of a tree (guesses and responses written as text)."""
    g = tree.game

    def enc(node: Node) -> dict[str, Any]:
        out: dict[str, Any] = {"guess": g.format_code(node.guess), "candidates": node.size}
        if node.children:
            out["children"] = {g.format_response(r): enc(c) for r, c in sorted(node.children.items())}
        return out

    return {
        "format": FORMAT,
        "game": g.describe(),
        "strategy": tree.strategy,
        "history": [g.format_turn(t) for t in tree.history],
        "stats": tree.stats().as_dict(),
        "root": enc(tree.root),
    }


def _game_of(doc: Mapping[str, Any]) -> Game:
    spec = doc.get("game")
    if not isinstance(spec, Mapping):
        raise InvalidTreeError("tree document has no 'game' object")
    try:
        return Game(
            int(spec["positions"]), int(spec["symbols"]), bool(spec["repetition"]),
            str(spec.get("alphabet") or DEFAULT_ALPHABET),
        )
    except (KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, SolverError):
            raise
        raise InvalidTreeError(f"tree document has a malformed 'game': {spec!r}") from None


def from_json(doc: Mapping[str, Any]) -> Tree:
    """Load and verify a tree written by :func:`to_json`.

    :raises InvalidTreeError: wrong format, a bad code or response, a child for a response that
        cannot occur, a missing child, or a wrong candidate count.
    """
    if not isinstance(doc, Mapping) or doc.get("format") != FORMAT:
        raise InvalidTreeError(f"not a {FORMAT} document")
    from solver import kernels

    game = _game_of(doc)
    a = game.arrays(table=True)
    args = a.kernel_args()
    try:
        history = game.parse_history(list(doc.get("history") or []))
    except SolverError as exc:
        raise InvalidTreeError(f"bad history in tree: {exc}") from None
    cands = game.candidates(history)
    win = game.all_bulls

    def dec(obj: Any, cands: CandidateSet, path: str) -> Node:
        if not isinstance(obj, Mapping) or "guess" not in obj:
            raise InvalidTreeError(f"node at {path or 'root'} is not an object with a 'guess'")
        try:
            guess = game.parse_code(obj["guess"])
        except InvalidCodeError as exc:
            raise InvalidTreeError(f"node at {path or 'root'}: {exc}") from None
        if "candidates" in obj and obj["candidates"] != int(cands.shape[0]):
            raise InvalidTreeError(
                f"node at {path or 'root'} claims {obj['candidates']!r} candidates, "
                f"the history leaves {cands.shape[0]}"
            )
        order, starts = kernels.split(*args, guess, cands, game.n_responses)
        node = Node(guess, int(cands.shape[0]), bool(starts[win + 1] > starts[win]),
                    bool(kernels.perfect_candidate(*args, cands, game.n_responses) >= 0))
        raw = obj.get("children") or {}
        if not isinstance(raw, Mapping):
            raise InvalidTreeError(f"node at {path or 'root'} has malformed children")
        wanted = {r for r in range(game.n_responses) if starts[r + 1] > starts[r] and r != win}
        given: dict[Response, Any] = {}
        for key, child in raw.items():
            try:
                given[game.parse_response(key)] = child
            except InvalidResponseError as exc:
                raise InvalidTreeError(f"node at {path or 'root'}: {exc}") from None
        if set(given) != wanted:
            missing = sorted(game.format_response(r) for r in wanted - set(given))
            extra = sorted(game.format_response(r) for r in set(given) - wanted)
            raise InvalidTreeError(
                f"node at {path or 'root'} (guess {obj['guess']!r}): missing responses {missing}, "
                f"impossible responses {extra}"
            )
        for r in sorted(wanted):
            if starts[r + 1] - starts[r] == cands.shape[0]:
                raise InvalidTreeError(
                    f"node at {path or 'root'}: guess {obj['guess']!r} does not split the candidates"
                )
            sub = order[starts[r]:starts[r + 1]]
            node.children[r] = dec(given[r], sub, f"{path} {obj['guess']} {game.format_response(r)}".strip())
        return node

    root = dec(doc.get("root"), cands, "")
    return Tree(game=game, root=root, history=history, strategy=str(doc.get("strategy") or ""))


def to_compact(tree: Tree) -> str:
    """Compact text: a header line, then guesses breadth-first, ``.`` for derivable ones.

    A node's guess is written as ``.`` when it equals the lowest candidate splitting the others into
    singletons; children are listed by ascending response.
    """
    from solver import kernels

    g = tree.game
    a = g.arrays(table=True)
    header = f"{FORMAT} game={g.spec} alphabet={g.alphabet[:g.symbols]} strategy={tree.strategy or '-'}"
    if tree.history:
        header += " history=" + ",".join(g.format_turn(t).replace(" ", ":") for t in tree.history)
    tokens: list[str] = []
    queue: deque[tuple[Node, CandidateSet]] = deque([(tree.root, g.candidates(tree.history))])
    while queue:
        node, cands = queue.popleft()
        derived = kernels.perfect_candidate(*a.kernel_args(), cands, g.n_responses)
        tokens.append("." if derived == node.guess else g.format_code(node.guess))
        order, starts = kernels.split(*a.kernel_args(), node.guess, cands, g.n_responses)
        for r in sorted(node.children):
            queue.append((node.children[r], order[starts[r]:starts[r + 1]]))
    lines = [header]
    for k in range(0, len(tokens), 16):
        lines.append(" ".join(tokens[k:k + 16]))
    return "\n".join(lines) + "\n"


def from_compact(text: str) -> Tree:
    """Load and verify a tree written by :func:`to_compact`.

    :raises InvalidTreeError: malformed header, too few or too many guesses, or a guess that is
        not valid in its position.
    """
    lines = text.strip().splitlines()
    if not lines or not lines[0].startswith(FORMAT):
        raise InvalidTreeError(f"not a {FORMAT} compact tree")
    # The strategy's name may hold spaces and "=" (a rollout's "rollout(width 16, ...) over entropy+exact<=80"):
    # it runs from "strategy=" to " history=" or the end of the line, the other fields are single words.
    rest, _, hist_text = lines[0].partition(" history=")
    head, _, strategy = rest.partition(" strategy=")
    fields = dict(kv.split("=", 1) for kv in head.split()[1:] if "=" in kv)
    try:
        game = Game.from_spec(fields["game"], alphabet=fields.get("alphabet"))
    except KeyError:
        raise InvalidTreeError("compact tree header lacks game=") from None
    history = game.parse_history([t.replace(":", " ") for t in hist_text.split(",") if t])
    tokens = " ".join(lines[1:]).split()
    # A level of the tree at a time, in numpy (:mod:`solver.plainkernels`): the guesses are written breadth-first, so
    # a level's guesses are consecutive tokens, and its candidate sets are split by one vectorised call.  Reading a
    # shipped tree to answer a question then loads no numba and builds no response table, and a tree of 32768
    # secrets is read in a few dozen numpy calls rather than one kernel call per node.
    a = game.arrays()
    n_resp, win = game.n_responses, game.all_bulls
    it = iter(tokens)
    root_holder: list[Node] = []
    codes = game.candidates(history)
    sizes = np.array([codes.shape[0]], dtype=np.int64)
    places: list[tuple[Node | None, Response]] = [(None, -1)]
    """Where each set of the level hangs: its parent node (None for the root) and the response leading to it."""
    while places:
        derived = plainkernels.perfect_candidates(a, codes, sizes, n_resp)
        guesses = np.empty(len(places), dtype=np.int64)
        written: list[str] = []
        for k in range(len(places)):
            tok = next(it, None)
            if tok is None:
                raise InvalidTreeError("compact tree ends before every position has a guess")
            if tok == ".":
                if derived[k] < 0:
                    raise InvalidTreeError("'.' given for a position whose guess cannot be derived")
                guesses[k] = derived[k]
            else:
                try:
                    guesses[k] = game.parse_code(tok)
                except InvalidCodeError as exc:
                    raise InvalidTreeError(str(exc)) from None
            written.append(tok)
        set_of = np.repeat(np.arange(len(places)), sizes)
        keys = set_of * n_resp + plainkernels.response_pairs(a, guesses[set_of], codes)
        order = np.argsort(keys, kind="stable")  # by set, then response; each part stays ascending
        counts = np.bincount(keys, minlength=len(places) * n_resp)
        nodes: list[Node] = []
        for k, (parent, resp) in enumerate(places):
            node = Node(int(guesses[k]), int(sizes[k]), bool(counts[k * n_resp + win]), bool(derived[k] >= 0))
            if parent is None:
                root_holder.append(node)
            else:
                parent.children[resp] = node
            nodes.append(node)
        parts = np.flatnonzero(counts)
        parts = parts[parts % n_resp != win]
        whole = np.flatnonzero(counts[parts] == sizes[parts // n_resp])
        if whole.shape[0]:
            raise InvalidTreeError(f"guess {written[int(parts[whole[0]]) // n_resp]!r} does not split its candidates")
        sorted_keys = keys[order]
        codes = codes[order][sorted_keys % n_resp != win]
        sizes = counts[parts].astype(np.int64)
        places = [(nodes[k], r) for k, r in zip((parts // n_resp).tolist(), (parts % n_resp).tolist(), strict=True)]
    if next(it, None) is not None:
        raise InvalidTreeError("compact tree has more guesses than positions")
    return Tree(game=game, root=root_holder[0], history=history,
                strategy="" if strategy == "-" else strategy)


def strategy_chooser(game: Game, strategy: Any, arrays: GameArrays | None = None) -> Chooser:
    """Adapt a one-step :class:`solver.heuristics.Strategy` to a :class:`Chooser`."""
    a = arrays if arrays is not None else game.arrays(table=True)

    def choose(cands: CandidateSet, turns: list[Turn]) -> Code:
        return int(strategy.choose(game, cands, a, turns).guess)

    return choose


def solved_depths(tree: Tree) -> np.ndarray:
    """Game length of every secret, indexed by code (0 where the tree does not reach it)."""
    out = np.zeros(tree.game.size, dtype=np.int32)
    for node, depth in tree.nodes():
        if node.hit:
            out[node.guess] = depth
    return out
