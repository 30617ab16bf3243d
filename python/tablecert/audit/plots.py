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
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="11" role="img" '
        f'aria-label="{escape(title)}">'
        f"<title>{escape(title)}</title>" + "".join(body) + "</svg>"
    )


def _nice_step(top: float, ticks: int = 5) -> float:
    """A round tick spacing (1, 2 or 5 x 10^k) giving about ``ticks`` ticks up to ``top``."""
    raw = top / ticks if top > 0 else 1.0
    power = 10 ** np.floor(np.log10(raw))
    return float(next(m * power for m in (1, 2, 5, 10) if m * power >= raw))


CLAMP = 4.0


def position_heatmap(t: Tally) -> str:
    """Standardized residuals of the symbol x position table (red: more often than expected),
    every card (or tile type) labelled, positions on the x axis, and the colour scale."""
    o = t.tables["position"]
    p = t.copies / t.size
    e = t.shuffles * p
    resid = (o - e) / sqrt(e * (1 - p)) if e > 0 else np.zeros(o.shape)
    rows, cols = resid.shape
    cell_h = 11
    cell_w = max(4, min(11, 620 // cols))
    left, top = 46, 30
    plot_w, plot_h = cols * cell_w, rows * cell_h
    legend_x = left + plot_w + 24
    width, height = legend_x + 110, top + plot_h + 46
    symbol = "card" if t.deck == "cards52" else "tile type"
    title = f"Card x position: standardized residuals, {t.shuffles:,} shuffles"
    if t.deck != "cards52":
        title = title.replace("Card", "Tile")
    body = [f'<text x="{left}" y="16" font-size="13" font-weight="bold">{escape(title)}</text>']
    cells = ['<g id="cells">']
    for s in range(rows):
        for q in range(cols):
            cells.append(
                f'<rect x="{left + q * cell_w}" y="{top + s * cell_h}" width="{cell_w}" '
                f'height="{cell_h}" fill="{_colour(float(resid[s, q]))}"/>'
            )
    body.append("".join(cells) + "</g>")
    for s in range(rows):
        body.append(
            f'<text x="{left - 4}" y="{top + s * cell_h + cell_h - 2}" text-anchor="end" '
            f'font-size="9">{escape(battery._symbol_code(t.deck, s))}</text>'
        )
    body.append(
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" '
        'stroke="#555" stroke-width="0.5"/>'
    )
    step = 5 if cols <= 60 else 10
    for q in [0, *range(step - 1, cols, step)]:
        x = left + q * cell_w + cell_w / 2
        body.append(
            f'<line x1="{x:.1f}" y1="{top + plot_h}" x2="{x:.1f}" y2="{top + plot_h + 4}" '
            'stroke="#555"/>'
            f'<text x="{x:.1f}" y="{top + plot_h + 15}" text-anchor="middle">{q + 1}</text>'
        )
    body.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">'
        "position in the shuffled order (1 = first dealt)</text>"
        f'<text x="12" y="{top + plot_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 12 {top + plot_h / 2:.1f})">{symbol}</text>'
    )
    # The colour scale: residual (observed - expected) / standard deviation, clamped.
    steps = 17
    bar_h = min(plot_h, 220)
    seg = bar_h / steps
    body.append(f'<text x="{legend_x}" y="{top - 6}" font-size="10">residual (sd)</text>')
    for i in range(steps):
        value = CLAMP - i * (2 * CLAMP / (steps - 1))
        body.append(
            f'<rect x="{legend_x}" y="{top + i * seg:.1f}" width="14" height="{seg + 0.5:.1f}" '
            f'fill="{_colour(value)}"/>'
        )
    for value in (CLAMP, CLAMP / 2, 0.0, -CLAMP / 2, -CLAMP):
        y = top + (CLAMP - value) / (2 * CLAMP) * (bar_h - seg) + seg / 2
        label = f"{value:+.0f}" + (" or more" if value == CLAMP else "")
        label = label if value != -CLAMP else f"{value:+.0f} or less"
        body.append(
            f'<line x1="{legend_x + 14}" y1="{y:.1f}" x2="{legend_x + 18}" y2="{y:.1f}" '
            f'stroke="#555"/><text x="{legend_x + 21}" y="{y + 3.5:.1f}" font-size="10">'
            f"{escape(label.replace('+0', '0'))}</text>"
        )
    body.append(
        f'<text x="{legend_x}" y="{top + bar_h + 16}" font-size="10">red: more often</text>'
        f'<text x="{legend_x}" y="{top + bar_h + 29}" font-size="10">blue: less often</text>'
        f'<text x="{legend_x}" y="{top + bar_h + 42}" font-size="10">than expected</text>'
    )
    return _svg(width, height, body, title)


def rising_histogram(t: Tally, width: int = 620, height: int = 280) -> str:
    """Observed rising-sequence frequencies (bars) against the exact Eulerian law (dots), with
    both axes labelled and a legend."""
    h = t.tables["rising"].astype(float)
    n = h.sum()
    law = np.array(battery._laws(t.size)["rising"].cells.probs)
    observed = h / n if n else h
    shown = np.nonzero((law > 1e-6) | (observed > 0))[0]
    lo, hi = int(shown.min()), int(shown.max())
    k = hi - lo + 1
    left, top, bottom, right = 62, 44, 46, 12
    plot_w, plot_h = width - left - right, height - top - bottom
    bar = plot_w / k
    peak = float(max(observed.max(), law.max()))
    step = _nice_step(peak)
    axis_top = step * np.ceil(peak / step)
    title = f"Rising sequences, {int(n):,} shuffles against their input order"
    body = [f'<text x="{left}" y="16" font-size="13" font-weight="bold">{escape(title)}</text>']
    body.append(
        f'<rect x="{left}" y="24" width="12" height="10" fill="#8aa9d6"/>'
        f'<text x="{left + 16}" y="33">observed share</text>'
        f'<circle cx="{left + 136}" cy="29" r="3" fill="#c0392b"/>'
        f'<text x="{left + 144}" y="33">exact law for a uniform shuffle (Eulerian numbers)</text>'
    )
    ticks = round(float(axis_top / step))
    for i in range(ticks + 1):
        value = i * step
        y = top + plot_h - plot_h * value / axis_top
        body.append(
            f'<line x1="{left - 4}" y1="{y:.1f}" x2="{left + plot_w}" y2="{y:.1f}" '
            f'stroke="{"#555" if i == 0 else "#e3e6ec"}"/>'
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{value * 100:g}%</text>'
        )
    body.append(
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#555"/>'
        f'<text x="14" y="{top + plot_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 14 {top + plot_h / 2:.1f})">share of shuffles</text>'
    )
    for i, r in enumerate(range(lo, hi + 1)):
        x = left + i * bar
        bh = plot_h * observed[r] / axis_top
        body.append(
            f'<rect x="{x:.1f}" y="{top + plot_h - bh:.1f}" width="{max(bar - 1, 1):.1f}" '
            f'height="{bh:.1f}" fill="#8aa9d6"/>'
        )
        cy = top + plot_h - plot_h * law[r] / axis_top
        body.append(f'<circle cx="{x + bar / 2:.1f}" cy="{cy:.1f}" r="2.5" fill="#c0392b"/>')
        if r % 5 == 0 or k <= 12:
            body.append(
                f'<text x="{x + bar / 2:.1f}" y="{top + plot_h + 15}" text-anchor="middle">'
                f"{r}</text>"
            )
    body.append(
        f'<text x="{left + plot_w / 2:.1f}" y="{height - 8}" text-anchor="middle">'
        "rising sequences in the shuffled order (relative to the input order)</text>"
    )
    return _svg(width, height, body, title)
