"""Small inline-SVG figures for audit reports (no plotting library): strings a report embeds."""

from __future__ import annotations

from html import escape
from math import sqrt

import numpy as np

from tablecert.audit import battery
from tablecert.audit.battery import Tally


def _colour(r: float, clamp: float = 4.0) -> str:
    """Diverging blue (below expectation) - white - red (above)."""
    x = max(-1.0, min(1.0, r / clamp))
    fade = round(255 * (1 - abs(x)))
    return f"#ff{fade:02x}{fade:02x}" if x > 0 else f"#{fade:02x}{fade:02x}ff"


def _svg(width: int, height: int, body: list[str], title: str) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11">'
        f"<title>{escape(title)}</title>" + "".join(body) + "</svg>"
    )


def position_heatmap(t: Tally, cell: int = 8) -> str:
    """Standardized residuals of the symbol x position table (red: more often than expected)."""
    o = t.tables["position"]
    p = t.copies / t.size
    e = t.shuffles * p
    resid = (o - e) / sqrt(e * (1 - p)) if e > 0 else np.zeros(o.shape)
    rows, cols = resid.shape
    left, top = 40, 24
    width, height = left + cols * cell + 10, top + rows * cell + 30
    title = f"Standardized residuals, {t.shuffles} shuffles (clamped at ±4)"
    body = [f'<text x="{left}" y="14">{escape(title)}</text>']
    for s in range(rows):
        for q in range(cols):
            body.append(
                f'<rect x="{left + q * cell}" y="{top + s * cell}" width="{cell}" '
                f'height="{cell}" fill="{_colour(float(resid[s, q]))}"/>'
            )
    step = max(1, rows // 13)
    for s in range(0, rows, step):
        body.append(
            f'<text x="{left - 4}" y="{top + s * cell + cell}" text-anchor="end">'
            f"{escape(battery._symbol_code(t.deck, s))}</text>"
        )
    for q in range(0, cols, 10):
        body.append(f'<text x="{left + q * cell}" y="{top + rows * cell + 14}">{q + 1}</text>')
    body.append(
        f'<text x="{left + cols * cell // 2}" y="{height - 4}" text-anchor="middle">position</text>'
    )
    return _svg(width, height, body, title)


def rising_histogram(t: Tally, width: int = 520, height: int = 220) -> str:
    """Observed rising-sequence frequencies (bars) against the exact Eulerian law (dots)."""
    h = t.tables["rising"].astype(float)
    n = h.sum()
    law = np.array(battery._laws(t.size)["rising"])
    observed = h / n if n else h
    shown = np.nonzero((law > 1e-6) | (observed > 0))[0]
    lo, hi = int(shown.min()), int(shown.max())
    k = hi - lo + 1
    left, top, bottom = 40, 20, 30
    plot_h = height - top - bottom
    bar = (width - left - 10) / k
    peak = float(max(observed.max(), law.max()))
    title = f"Rising sequences, {int(n)} shuffles: observed (bars) vs exact (dots)"
    body = [f'<text x="{left}" y="14">{escape(title)}</text>']
    for i, r in enumerate(range(lo, hi + 1)):
        x = left + i * bar
        bh = plot_h * observed[r] / peak
        body.append(
            f'<rect x="{x:.1f}" y="{top + plot_h - bh:.1f}" width="{max(bar - 1, 1):.1f}" '
            f'height="{bh:.1f}" fill="#8aa9d6"/>'
        )
        cy = top + plot_h - plot_h * law[r] / peak
        body.append(f'<circle cx="{x + bar / 2:.1f}" cy="{cy:.1f}" r="2.5" fill="#c0392b"/>')
        if r % 5 == 0:
            body.append(f'<text x="{x:.1f}" y="{height - 14}">{r}</text>')
    return _svg(width, height, body, title)
