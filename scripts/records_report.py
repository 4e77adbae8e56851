"""Redraw the table of docs/records.md (between its markers) from the shipped records file, as
``bullscows records show --markdown`` prints it.

    .venv/bin/python scripts/records_report.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service import records  # noqa: E402

BEGIN, END = "<!-- records table: begin (bullscows records show --markdown) -->", "<!-- records table: end -->"


def main() -> None:
    page = ROOT / "docs" / "records.md"
    text = page.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    page.write_text(f"{head}{BEGIN}\n{records.markdown(records.load())}{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    main()
