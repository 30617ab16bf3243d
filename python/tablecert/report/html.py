"""The human report: one self-contained HTML file (inline CSS and SVG, no scripts, no fetches).

The summary verdict comes first, then every requirement with its article, then each section's
own fragment, then the integrity summary (inputs, rule data, versions, signing key ids).
Section builders use ``table``, ``bar_chart`` and ``esc`` to build their fragments.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from tablecert.report.registry import Section

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC",sans-serif;
 margin:0;color:#1d2330;background:#f6f7f9;line-height:1.45}
main{max-width:1050px;margin:0 auto;padding:24px}
h1{font-size:1.6em;margin:.2em 0}
h2{margin-top:1.8em;border-bottom:1px solid #ccd;padding-bottom:4px}
.verdict{padding:18px 22px;border-radius:8px;color:#fff;font-size:1.4em;font-weight:700}
.verdict.pass{background:#1e7b34}.verdict.fail{background:#b3261e}
.verdict.inconclusive{background:#8a6d00}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;color:#fff;font-size:.85em}
.badge.pass{background:#1e7b34}.badge.fail{background:#b3261e}.badge.inconclusive{background:#8a6d00}
table{border-collapse:collapse;margin:10px 0;background:#fff;font-size:.92em}
th,td{border:1px solid #d6d9e0;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#eef0f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
code,.mono{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.88em;
 word-break:break-all}
section{background:#fff;border:1px solid #d6d9e0;border-radius:8px;padding:4px 18px 14px;
 margin:18px 0}
.meta{color:#4a5263;font-size:.92em}svg{max-width:100%;height:auto}
"""


def esc(value: Any) -> str:
    """HTML-escaped text of any value."""
    return escape(str(value), quote=True)


def badge(outcome: str) -> str:
    return f'<span class="badge {esc(outcome)}">{esc(outcome.upper())}</span>'


def table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], numeric: Sequence[int] = ()
) -> str:
    """A table; cells are escaped unless given as ``Markup`` (pre-built HTML)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            cls = ' class="num"' if i in numeric else ""
            text = str(cell) if isinstance(cell, Markup) else esc(cell)
            cells.append(f"<td{cls}>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


class Markup(str):
    """Text that is already HTML (e.g. a badge) and must not be escaped again."""

    __slots__ = ()


def bar_chart(title: str, labels: Sequence[str], values: Sequence[int], log: bool = True) -> str:
    """A horizontal bar chart as inline SVG (log10 scale by default); floats are display only."""
    width, label_w, bar_h, gap = 720, 170, 20, 6
    height = 30 + len(labels) * (bar_h + gap)
    scaled = [math.log10(v + 1) if log else float(v) for v in values]
    top = max(scaled, default=1.0) or 1.0
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="{esc(title)}">',
        f'<text x="0" y="16" font-size="13" font-weight="bold">{esc(title)}</text>',
    ]
    span = width - label_w - 110
    for i, (label, value, s) in enumerate(zip(labels, values, scaled, strict=True)):
        y = 28 + i * (bar_h + gap)
        w = max(1.0, span * s / top)
        parts.append(
            f'<text x="{label_w - 6}" y="{y + 14}" font-size="12" text-anchor="end">'
            f"{esc(label)}</text>"
            f'<rect x="{label_w}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="#3b6db3"/>'
            f'<text x="{label_w + w + 6:.1f}" y="{y + 14}" font-size="12">{value:,}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def render_report(
    report: Mapping[str, Any], sections: Sequence[Section], key_ids: Sequence[str], note: str = ""
) -> str:
    """The whole HTML report for a report.json object and the sections' fragments."""
    verdict = str(report["verdict"])
    counts = report["summary"]
    out = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width,initial-scale=1">',
        '<link rel="icon" href="data:,">',
        f"<title>{esc(report['title'])}: {esc(verdict.upper())}</title>",
        f"<style>{_CSS}</style></head><body><main>",
        f"<h1>{esc(report['title'])}</h1>",
        f'<p class="meta">{esc(report["lab"])} · plan <code>{esc(report["plan"])}</code> · '
        f"{esc(report['started_at'])} to {esc(report['finished_at'])}</p>",
        f'<div class="verdict {esc(verdict)}" id="verdict">Verdict: {esc(verdict.upper())}'
        f' <span style="font-weight:400;font-size:.7em">({counts["pass"]} passed, '
        f"{counts['fail']} failed, {counts['inconclusive']} inconclusive of "
        f"{counts['requirements']} requirements)</span></div>",
        "<h2>Requirements</h2>",
        table(
            ["", "requirement", "article", "statement", "finding"],
            [
                (
                    Markup(badge(r["verdict"])),
                    Markup(f"<code>{esc(r['requirement'])}</code>"),
                    r["article"],
                    r["statement"],
                    r["detail"],
                )
                for r in report["requirements"]
            ],
        ),
    ]
    for section in sections:
        out.append(
            f'<section id="{esc(section.id)}"><h2>{esc(section.title)} {badge(section.outcome)}'
            f"</h2>{section.html}</section>"
        )
    out += [
        "<h2>Integrity</h2>",
        "<p>The signed statement (<code>report.intoto.dsse.json</code>) binds every input below "
        "by its SHA-256 and carries report.json as its predicate. Check it with "
        "<code>tablecert verify report.intoto.dsse.json --pubkey LAB.pub --inputs ...</code>.</p>",
        table(
            ["input", "role", "bytes", "sha256"],
            [
                (i["name"], i["role"], i["bytes"], Markup(f"<code>{esc(i['sha256'])}</code>"))
                for i in report["inputs"]
            ],
            numeric=(2,),
        ),
        "<h3>Rule data</h3>",
        table(
            ["rule file", "game", "variant", "sha256"],
            [
                (r["name"], r["game"], r["variant"], Markup(f"<code>{esc(r['sha256'])}</code>"))
                for r in report["rule_data"]
            ],
        ),
        "<h3>Tool and platform</h3>",
        table(
            ["", ""],
            [(f"tool.{k}", v) for k, v in sorted(report["tool"].items())]
            + [(f"platform.{k}", v) for k, v in sorted(report["platform"].items())],
        ),
        "<h3>Signing keys</h3>",
        table(
            ["key id (SHA-256 of the raw Ed25519 public key)"],
            [(Markup(f"<code>{esc(k)}</code>"),) for k in key_ids],
        ),
        f'<p class="meta">{esc(note)}</p>' if note else "",
        "</main></body></html>\n",
    ]
    return "".join(out)
