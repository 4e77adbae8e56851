"""Redraw the atlas's page from the shipped atlas: the table of docs/atlas.md (between its markers) and the
chart docs/atlas.svg, average guesses against the number of codes, one series per repetition rule.

    .venv/bin/python scripts/atlas_report.py

Plain SVG, written here: the chart needs no plotting library in the project's dependencies.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from service import atlas  # noqa: E402

BEGIN, END = "<!-- atlas table: begin (scripts/atlas_report.py) -->", "<!-- atlas table: end -->"


def table() -> str:
    """``bullscows atlas show --markdown``, as the CLI prints it."""
    out = subprocess.run([sys.executable, "-m", "service.cli", "atlas", "show", "--markdown"], cwd=ROOT,
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def chart() -> str:
    """Average guesses (exact totals only) against codes, log scale, both repetition rules."""
    points = [(e["codes"], e["values"]["total"]["value"] / e["codes"], bool(e["repetition"]), e["game"])
              for e in atlas.load().values() if e["values"]["total"]["exact"]]
    width, height, left, right, top, bottom = 720, 440, 60, 20, 30, 50
    x_max = 8192
    y_max = math.ceil(max([p[1] for p in points] + [1.0]))

    def x(codes: float) -> float:
        return left + (width - left - right) * math.log2(codes) / math.log2(x_max)

    def y(avg: float) -> float:
        return height - bottom - (height - top - bottom) * avg / y_max

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{width / 2}" y="18" text-anchor="middle" font-size="14">'
             'Optimal average number of guesses, by number of codes</text>']
    for k in range(1, 14):
        xx = x(2**k)
        parts.append(f'<line x1="{xx:.1f}" y1="{top}" x2="{xx:.1f}" y2="{height - bottom}" stroke="#eee"/>')
        parts.append(f'<text x="{xx:.1f}" y="{height - bottom + 16}" text-anchor="middle">{2**k}</text>')
    for a in range(0, y_max + 1):
        yy = y(a)
        parts.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{width - right}" y2="{yy:.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{left - 8}" y="{yy + 4:.1f}" text-anchor="end">{a}</text>')
    parts.append(f'<text x="{width / 2}" y="{height - 12}" text-anchor="middle">codes (log scale)</text>')
    parts.append(f'<text x="16" y="{height / 2}" text-anchor="middle" transform="rotate(-90 16 {height / 2})">'
                 'average guesses</text>')
    for codes, avg, rep, game in sorted(points):
        title = f"<title>{game}: {avg:.4f}</title>"
        if rep:
            parts.append(f'<circle cx="{x(codes):.1f}" cy="{y(avg):.1f}" r="4" fill="#1f77b4">{title}</circle>')
        else:
            parts.append(f'<rect x="{x(codes) - 4:.1f}" y="{y(avg) - 4:.1f}" width="8" height="8" '
                         f'fill="#d62728">{title}</rect>')
    lx, ly = left + 16, top + 16
    parts.append(f'<circle cx="{lx}" cy="{ly}" r="4" fill="#1f77b4"/><text x="{lx + 10}" y="{ly + 4}">'
                 'with repetition (Mastermind-like)</text>')
    parts.append(f'<rect x="{lx - 4}" y="{ly + 14}" width="8" height="8" fill="#d62728"/>'
                 f'<text x="{lx + 10}" y="{ly + 22}">without repetition (Bulls-and-Cows-like)</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> None:
    page = ROOT / "docs" / "atlas.md"
    text = page.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    page.write_text(f"{head}{BEGIN}\n{table()}\n{END}{tail}", encoding="utf-8")
    (ROOT / "docs" / "atlas.svg").write_text(chart(), encoding="utf-8")


if __name__ == "__main__":
    main()
