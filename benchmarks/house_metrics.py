"""Measures of the house's shape, as JSON: modules and lines of ``solver/`` and ``service/``, the files over 600
lines, the imports written inside functions, and the ``app.extensions`` keys the code writes.  Run it on two
checkouts to compare a redesign's before and after (the rules themselves are tests: tests/test_house.py).

    python benchmarks/house_metrics.py [REPO]
"""

from __future__ import annotations

import ast
import json
import re
import sys
from pathlib import Path


def measure(root: Path) -> dict[str, object]:
    files = sorted(p for d in ("solver", "service") for p in (root / d).rglob("*.py"))
    texts = {p: p.read_text(encoding="utf-8") for p in files}
    inner = 0
    for text in texts.values():
        for fn in ast.walk(ast.parse(text)):
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                inner += sum(isinstance(n, ast.Import | ast.ImportFrom) for n in ast.walk(fn))
    keys = sorted({k for text in texts.values()
                   for k in re.findall(r'extensions(?:\[|\.get\(|\.setdefault\()\s*"([a-z_]+)"', text)}
                  | {k for text in texts.values() for k in re.findall(r'^KEY = "([a-z_]+)"', text, re.MULTILINE)})
    return {"modules": len(files), "lines": sum(len(t.splitlines()) for t in texts.values()),
            "over_600": {str(p.relative_to(root)): n for p, t in texts.items() if (n := len(t.splitlines())) > 600},
            "imports_inside_functions": inner, "extension_keys": keys}


if __name__ == "__main__":
    print(json.dumps(measure(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent)))
