"""The human report: one self-contained HTML file (inline CSS and SVG, no scripts, no fetches).

Rendered from Jinja2 templates (``report/templates``; a lab's ``--template DIR`` overrides any
of them): page 1 carries the identification, the verdict and every deviation with its article
and a link to its section; then the contents, the scope and limitations, every requirement,
each section's fragment, the integrity summary and the appendices (long tables). Section
builders use ``table``, ``bar_chart``, ``display`` and ``esc`` to build their fragments.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from html import escape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
import markupsafe

from tablecert.errors import ReportError
from tablecert.report.registry import Section

TEMPLATES = Path(__file__).resolve().parent / "templates"
TEMPLATE = "report.html.j2"


def esc(value: Any) -> str:
    """HTML-escaped text of any value."""
    return escape(str(value), quote=True)


def display(value: Any) -> str:
    """A value as a reader writes it: no Python reprs (None, lists, dicts, True)."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ", ".join(display(v) for v in value) or "none"
    if isinstance(value, Mapping):
        return "; ".join(f"{k}: {display(v)}" for k, v in value.items()) or "none"
    if isinstance(value, Fraction):
        return str(value)
    return str(value)


def grouped(number: str) -> str:
    """A decimal numeral with thousands separators in its integer part (1234567.5 ->
    1,234,567.5)."""
    sign, digits = ("-", number[1:]) if number.startswith("-") else ("", number)
    whole, dot, frac = digits.partition(".")
    if not whole.isdigit():
        return number
    return f"{sign}{int(whole):,}{dot}{frac}"


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
            text = str(cell) if isinstance(cell, Markup) else esc(display(cell))
            cells.append(f"<td{cls}>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


class Markup(str):
    """Text that is already HTML (e.g. a badge) and must not be escaped again."""

    __slots__ = ()


def bar_chart(title: str, labels: Sequence[str], values: Sequence[int], log: bool = True) -> str:
    """A horizontal bar chart as inline SVG (log10 scale by default); floats are display only."""
    width, label_w, bar_h, gap = 720, 170, 20, 6
    height = 30 + len(labels) * (bar_h + gap) + (22 if log else 0)
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
    if log:
        parts.append(
            f'<text x="{label_w}" y="{height - 6}" font-size="11" fill="#4a5263">bar length: '
            "log10 of the count (the exact count is written at the end of each bar)</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


# CJK text runs (with a parenthesised sub-article such as 第十條(一)) get a language tag, so a
# browser or screen reader uses Chinese fonts and voices: simplified if a run has a character
# only simplified Chinese writes, else traditional (the Macau statutes' script).
_CJK = "\u2e80-\u2fdf\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_CJK_RUN = re.compile(rf"[{_CJK}](?:[{_CJK}]|\([^()<>\s]{{1,12}}\))*")
_SIMPLIFIED = set("条与门风东发对听杠张红绿万饼龙双杂单庄头尽数计为这个们规则处时胜负应该额")
_RAW = re.compile(r"(<svg\b.*?</svg>|<style\b.*?</style>|<title>.*?</title>|<[^>]*>)", re.S)


def chinese_lang(text: str) -> str:
    """``zh-Hans`` or ``zh-Hant`` for a run of Chinese text."""
    return "zh-Hans" if _SIMPLIFIED.intersection(text) else "zh-Hant"


def tag_languages(page: str) -> str:
    """Wrap every run of Chinese text outside tags, titles, styles and SVG in a lang span."""
    parts = _RAW.split(page)
    for i in range(0, len(parts), 2):
        parts[i] = _CJK_RUN.sub(
            lambda m: f'<span lang="{chinese_lang(m.group())}">{m.group()}</span>', parts[i]
        )
    return "".join(parts)


def anchor(section_id: str) -> str:
    """A section id as a fragment (URL-safe; the id attribute holds the same text)."""
    return quote(section_id, safe="/:+._-")


def wbr(text: str) -> markupsafe.Markup:
    """Escaped text that may wrap only after '.', '/', '+' or a space: each piece between
    those is kept whole (an id never breaks mid-word, nor at a hyphen in a file name)."""
    pieces = [p for p in re.split(r"(?<=[./+ ])", text) if p]
    return markupsafe.Markup("<wbr>".join(f"<span>{esc(p)}</span>" for p in pieces))


def _environment(template_dir: Path | None) -> jinja2.Environment:
    loaders: list[jinja2.BaseLoader] = [jinja2.FileSystemLoader(TEMPLATES)]
    if template_dir is not None:
        if not template_dir.is_dir():
            raise ReportError(f"--template {template_dir}: not a folder")
        loaders.insert(0, jinja2.FileSystemLoader(template_dir))
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.globals.update(
        badge=lambda outcome: markupsafe.Markup(badge(str(outcome))),
        wbr=wbr,
        anchor=anchor,
        sample_text=_sample_text,
    )
    return env


def _sample_text(sample: Mapping[str, Any]) -> str:
    of = f" of {sample['population']:,}" if sample.get("population") is not None else ""
    seed = f", seed {sample['seed']}" if sample.get("seed") is not None else ""
    return f"{sample['what']}: {sample['size']:,}{of}{seed}"


def certificate_number(report: Mapping[str, Any]) -> str:
    """The report id with its revision, as every page's header shows it."""
    cert = report["certificate"]
    number = cert["report_id"] or "report without a number"
    return number if cert["revision"] is None else f"{number} rev. {cert['revision']}"


def render_report(
    report: Mapping[str, Any],
    sections: Sequence[Section],
    key_ids: Sequence[str],
    note: str = "",
    *,
    template_dir: Path | None = None,
    binding: str = "",
    paper: str = "A4",
) -> str:
    """The whole HTML report for a report.json object and the sections' fragments.

    ``binding`` says how the named signatory relates to the signing key (shown beside the
    key id).
    """
    entries = []
    appendices: list[dict[str, Any]] = []
    numbers: dict[str, str] = {}
    for n, (section, data) in enumerate(zip(sections, report["sections"], strict=True), 1):
        number = f"{n}."
        numbers[section.id] = f"§{n}"
        entry = {
            "id": section.id,
            "anchor": anchor(section.id),
            "number": number,
            "title": section.title,
            "outcome": section.outcome,
            "html": markupsafe.Markup(section.html),
            "scope": data["scope"],
            "appendix": None,
        }
        if section.appendix is not None:
            letter = chr(ord("A") + len(appendices))
            appendix = {
                "letter": letter,
                "anchor": f"appendix-{letter}",
                "title": section.appendix.title,
                "html": markupsafe.Markup(section.appendix.html),
                "section_anchor": entry["anchor"],
                "section_number": f"§{n}",
            }
            appendices.append(appendix)
            entry["appendix"] = appendix
        entries.append(entry)
    cert = report["certificate"]
    devices = sorted(
        {
            str(d)
            for data in report["sections"]
            for d in data.get("data", {}).get("integrity", {}).get("devices", [])
        }
    )
    env = _environment(template_dir)
    try:
        template = env.get_template(TEMPLATE)
        page = template.render(
            report=report,
            cert=cert,
            verdict=str(report["verdict"]),
            counts=report["summary"],
            number=certificate_number(report),
            issue_date=cert["issue_date"] or f"{report['finished_at'][:10]} (date of signing)",
            signatory=cert["signatory"],
            log_devices=devices,
            binding=binding,
            key_ids=list(key_ids),
            deviations=[r for r in report["requirements"] if r["verdict"] != "pass"],
            section_numbers=numbers,
            sections=entries,
            appendices=appendices,
            outputs=list(report["outputs"]),
            note=note,
            paper=paper,
        )
    except jinja2.TemplateError as exc:
        where = (
            f"{exc.filename}:{exc.lineno}" if isinstance(exc, jinja2.TemplateSyntaxError) else ""
        )
        raise ReportError(f"template {where or TEMPLATE}: {exc}") from exc
    return tag_languages(page)
