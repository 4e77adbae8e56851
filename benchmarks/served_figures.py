"""Every figure the service serves from its shipped data, as one JSON document: to show that a change of the code
serves the same numbers (run it on two checkouts and compare the outputs).

Asked through the real app (``create_app`` on a new SQLite file), so that what is compared is what clients get:
``GET /v1/games`` and ``GET /v1/games/{game}`` for every game listed (the atlas, the records, the named games),
the statistics of every shipped strategy tree (``GET /v1/strategies/{game}/{strategy}``) with its lengths file
summed, and the seed games' first guesses (``POST /v1/next-move``).  Timing fields are dropped.

    python benchmarks/served_figures.py after.json
    PYTHONPATH=../base python benchmarks/served_figures.py before.json && cmp before.json after.json
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from typing import Any

TIMING = {"elapsed_ms", "seconds_taken", "request_id"}


def _clean(value: Any) -> Any:
    """``value`` without its timing fields, which differ from run to run."""
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def main() -> None:
    from service import create_app

    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"DATABASE_URL": f"sqlite:///{os.path.join(folder, 'figures.db')}",
                          "RATE_LIMIT_EXPENSIVE": "1000000/minute",
                          "RATE_LIMIT_MOVES": "1000000/minute"})
        client = app.test_client()
        out: dict[str, Any] = {}

        def get(url: str) -> Any:
            response = client.get(url)
            return {"status": response.status_code, "body": _clean(response.get_json(silent=True))}

        games = client.get("/v1/games").get_json()
        out["/v1/games"] = _clean(games)
        names = sorted({g["name"] for g in games["presets"]} | {g["game"] for g in games["atlas"]})
        for name in names:
            out[f"/v1/games/{name}"] = get(f"/v1/games/{name}")
        for name in names:
            for strategy in sorted({"optimal-total", "optimal-kmovers", "best-known", "entropy", "minimax"}):
                url = f"/v1/strategies/{name}/{strategy}"
                response = client.get(url)
                if response.status_code == 200:
                    out[url] = _clean(response.get_json())
                    lengths = client.get(f"{url}/tree?format=lengths")
                    if lengths.status_code == 200:
                        rows = [line.split() for line in lengths.get_data(as_text=True).splitlines()
                                if line and not line.startswith("#")]
                        out[url + " lengths"] = {"codes": len(rows), "sum": sum(int(r[1]) for r in rows)}
        for game in ("mastermind", "bulls-cows"):
            for strategy in ("optimal-total", "optimal-kmovers"):
                response = client.post("/v1/next-move", json={"game": game, "history": [], "strategy": strategy})
                out[f"next-move {game} {strategy}"] = _clean(response.get_json())
    with open(sys.argv[1], "w", encoding="utf-8") as fh:  # a file: the app logs to standard output
        json.dump(out, fh, indent=1, sort_keys=True)
        fh.write("\n")


if __name__ == "__main__":
    main()
