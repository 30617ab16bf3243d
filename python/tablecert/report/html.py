"""The human report: one self-contained HTML file (inline CSS and SVG, no scripts, no fetches).

Rendered from Jinja2 templates (``report/templates``; a lab's ``--template DIR`` overrides any
of them): page 1 carries the identification, the verdict and every deviation with its article
and a link to its section; then the contents, the scope and limitations, every requirement,
each section's fragment, the integrity summary and the appendices (long tables). Section
builders use ``table``, ``bar_chart`` and ``esc`` (and ``report.display``) to build their
fragments.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import signal
import threading
import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from html import escape
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
import jinja2.runtime
import markupsafe
from jinja2.sandbox import ImmutableSandboxedEnvironment

from tablecert.errors import ReportError
from tablecert.judgement import VERDICTS, Outcome
from tablecert.report.display import display
from tablecert.report.entry import Section
from tablecert.report.template_folder import TemplateFolder
from tablecert.visible_text import controls_escaped

TEMPLATES = Path(__file__).resolve().parent / "templates"
TEMPLATE = "report.html.j2"


def esc(value: Any) -> str:
    """HTML-escaped text of any value, its hidden characters (controls, direction overrides,
    zero-width and soft-hyphen characters) shown as escapes."""
    return escape(controls_escaped(str(value)), quote=True)


def badge(outcome: str) -> str:
    return f'<span class="badge {esc(outcome)}">{esc(outcome.upper())}</span>'


def table(
    headers: Sequence[str], rows: Sequence[Sequence[Any]], numeric: Sequence[int] = ()
) -> str:
    """A table; cells are escaped unless given as ``HtmlCell`` (pre-built HTML)."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            cls = ' class="num"' if i in numeric else ""
            text = str(cell) if isinstance(cell, HtmlCell) else esc(display(cell))
            cells.append(f"<td{cls}>{text}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


class HtmlCell(str):
    """A table cell that is already HTML (e.g. a badge) and must not be escaped again by
    :func:`table` (the templates' own ``markupsafe.Markup`` is another thing)."""

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


#: Longer identifiers may still wrap (overflow-wrap), or they would run off the page.
KEPT_WHOLE = 40


def wbr(text: str) -> markupsafe.Markup:
    """Escaped text that may wrap only after '.', '/', '+' or a space: each piece between
    those is kept whole (an id never breaks mid-word, nor at a hyphen in a file name), unless
    it is longer than ``KEPT_WHOLE`` characters (it would run off the page: it may wrap)."""
    pieces = [p for p in re.split(r"(?<=[./+ ])", text) if p]
    return markupsafe.Markup(
        "<wbr>".join(
            f"<span>{esc(p)}</span>" if len(p) <= KEPT_WHOLE else str(esc(p)) for p in pieces
        )
    )


_IDENTIFIER = re.compile(r"\S*\w[-./_]\w\S*")


def keep_ids(text: str) -> markupsafe.Markup:
    """Escaped text whose identifiers (words joined by '-', '.', '/' or '_': a device id
    SM-0417, a file name fair.csv.gz) are each kept on one line: a heading wraps between
    words, never inside an id of up to ``KEPT_WHOLE`` characters."""
    out, at = [], 0
    for m in _IDENTIFIER.finditer(text):
        if len(m.group()) > KEPT_WHOLE:
            continue
        out += [esc(text[at : m.start()]), f'<span class="id">{esc(m.group())}</span>']
        at = m.end()
    out.append(esc(text[at:]))
    return markupsafe.Markup("".join(out))


class _Loader(jinja2.BaseLoader):
    """Templates by name from a lab's folder as read into memory (its file name is the
    template's name, so an error says where it is), else tablecert's own."""

    def __init__(self, files: Mapping[str, str]) -> None:
        self.files = files

    def get_source(
        self, environment: jinja2.Environment, template: str
    ) -> tuple[str, str | None, Callable[[], bool]]:
        if template in self.files:
            return self.files[template], template, lambda: True
        raise jinja2.TemplateNotFound(template)


def _finalize(value: Any) -> Any:
    """Every value a template writes, text from outside shown with its hidden characters as
    escapes (markup built by tablecert is escaped where it is made)."""
    if isinstance(value, str) and not isinstance(value, markupsafe.Markup):
        return controls_escaped(value)
    return value


#: The most characters a rendered page may have (the largest bundled report is a few MB).
MAX_PAGE = 64 << 20
_MAX_REPEAT = 1 << 20  # "x" * n, [..] * n
_MAX_POWER_BITS = 4096  # n ** m


class _BoundedSandbox(ImmutableSandboxedEnvironment):
    """Jinja2's sandbox with ``*`` and ``**`` bounded: a template cannot spend the machine's
    memory or hours of CPU on one expression (``"x" * 10**12``, ``7 ** 1000000000``)."""

    intercepted_binops = frozenset(("*", "**"))

    def call_binop(
        self, context: jinja2.runtime.Context, operator: str, left: Any, right: Any
    ) -> Any:
        if _too_large(operator, left, right):
            raise jinja2.TemplateRuntimeError(
                f"{_short(left)} {operator} {_short(right)} is too large for a template"
            )
        return super().call_binop(context, operator, left, right)


def _too_large(operator: str, left: Any, right: Any) -> bool:
    """Whether ``left operator right`` would make a huge number, string or list."""
    numbers = all(isinstance(v, int) and not isinstance(v, bool) for v in (left, right))
    if operator == "**":
        return (
            numbers
            and right > 0
            and abs(left) > 1
            and right * abs(left).bit_length() > _MAX_POWER_BITS
        )
    sequence = (str, list, tuple)
    count = right if isinstance(left, sequence) else left if isinstance(right, sequence) else 0
    return isinstance(count, int) and count > _MAX_REPEAT


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:37]}..."


def _environment(lab: TemplateFolder | None) -> jinja2.Environment:
    """A sandboxed environment: a template reads the values it is given and calls the helpers
    below, nothing else (no attribute of Python internals, no file, no module)."""
    loaders: list[jinja2.BaseLoader] = [jinja2.FileSystemLoader(TEMPLATES)]
    if lab is not None:
        loaders.insert(0, _Loader(lab.files))
    env = _BoundedSandbox(
        loader=jinja2.ChoiceLoader(loaders),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        finalize=_finalize,
    )
    env.globals.update(
        badge=lambda outcome: markupsafe.Markup(badge(str(outcome))),
        wbr=wbr,
        keep_ids=keep_ids,
        anchor=anchor,
        sample_text=_sample_text,
    )
    return env


def _sample_text(sample: Mapping[str, Any]) -> str:
    of = f" of {sample['population']:,}" if sample.get("population") is not None else ""
    seed = f", seed {sample['seed']}" if sample.get("seed") is not None else ""
    return f"{sample['what']}: {sample['size']:,}{of}{seed}"


def deviations(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The requirements of report.json that failed or could not be judged, in order: page 1's
    deviations (house choices and not-applicable rows judge nothing and are not among them)."""
    wrong = (Outcome.FAIL, Outcome.INCONCLUSIVE)
    return [r for r in report["requirements"] if Outcome.parse(r["verdict"]) in wrong]


def open_points(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Page 1's open points: each duty the statute attaches to a judged value (an approval
    to obtain), whatever the requirement's verdict, with its requirement."""
    return [{**r, "duty": duty} for r in report["requirements"] for duty in r.get("duties", ())]


def house_choices(report: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The requirements that record values the statute leaves to the house (never a pass)."""
    return [r for r in report["requirements"] if r["verdict"] == Outcome.HOUSE_CHOICE.value]


def certificate_number(report: Mapping[str, Any]) -> str:
    """The report id with its revision, as every page's header shows it."""
    cert = report["certificate"]
    number = cert["report_id"] or "report without a number"
    return number if cert["revision"] is None else f"{number} rev. {cert['revision']}"


#: The blocks of page 1 that a lab's template cannot replace: tablecert renders them from its
#: own templates and the page must hold each of them as rendered.
FIXED_BLOCKS = ("verdict", "identification", "deviations")


def render_report(
    report_json: bytes,
    sections: Sequence[Section],
    key_ids: Sequence[str],
    note: str = "",
    *,
    templates: TemplateFolder | None = None,
    binding: str = "",
    paper: str = "A4",
) -> str:
    """The whole HTML report from report.json's bytes and the sections' fragments.

    The templates see the report parsed from ``report_json`` (the bytes that are signed), the
    fragments tablecert's section builders made, and the signing key ids; ``binding`` says how
    the named signatory relates to the key (shown beside the key id). A lab's ``templates``
    render in Jinja2's sandbox; the page they make must carry tablecert's verdict,
    identification and deviations blocks and state no other verdict (else a ``ReportError``).
    """
    report = json.loads(report_json)
    if [s.id for s in sections] != [d["id"] for d in report["sections"]]:
        raise ReportError("the sections' fragments do not match report.json's sections")
    entries = []
    appendices: list[dict[str, Any]] = []
    numbers: dict[str, str] = {}
    for n, (section, data) in enumerate(zip(sections, report["sections"], strict=True), 1):
        number = f"{n}."
        numbers[data["id"]] = f"§{n}"
        entry = {
            "id": data["id"],
            "anchor": anchor(data["id"]),
            "number": number,
            "title": data["title"],
            "outcome": data["verdict"],
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
    context: dict[str, Any] = {
        "report": report,
        "cert": cert,
        "verdict": str(report["verdict"]),
        "counts": report["summary"],
        "number": certificate_number(report),
        "issue_date": cert["issue_date"] or f"{report['finished_at'][:10]} (date of signing)",
        "signatory": cert["signatory"],
        "log_devices": devices,
        "binding": binding,
        "key_ids": list(key_ids),
        "deviations": deviations(report),
        "open_points": open_points(report),
        "house_choices": house_choices(report),
        "judged": sum(report["summary"][o.value] for o in VERDICTS),
        "section_numbers": numbers,
        "sections": entries,
        "appendices": appendices,
        "outputs": list(report["outputs"]),
        "note": note,
        "paper": paper,
    }
    own = _environment(None)
    fixed = {
        name: markupsafe.Markup(own.get_template(f"fixed/{name}.html.j2").render(context))
        for name in FIXED_BLOCKS
    }
    page = _render(_environment(templates), {**context, "fixed": fixed}, templates)
    page = controls_escaped(page)
    if templates is not None:
        tablecert_made = [
            *(e["html"] for e in entries),
            *(a["html"] for a in appendices),
        ]
        check_page(page, report, fixed, tablecert_made)
    return tag_languages(page)


#: The longest a lab's template may take to render, in seconds (a loop that writes nothing
#: is bounded by this, not by the page's size).
RENDER_SECONDS = 60.0


class _RenderTimeoutError(Exception):
    """A template ran past ``RENDER_SECONDS``."""


@contextlib.contextmanager
def _render_deadline(seconds: float) -> Iterator[None]:
    """Raise ``_RenderTimeoutError`` in the rendering code after ``seconds`` (a real-time timer;
    only in the main thread, where signals are delivered: elsewhere rendering is unbounded
    in time, still bounded in size)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum: int, frame: object) -> None:
        raise _RenderTimeoutError

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _render(env: jinja2.Environment, context: Mapping[str, Any], lab: TemplateFolder | None) -> str:
    """The page rendered; any failure of a lab's template is a ``ReportError`` naming it."""
    try:
        with _render_deadline(RENDER_SECONDS):
            return _generate(env, context)
    except _RenderTimeoutError:
        raise ReportError(
            f"template {TEMPLATE}: rendering took longer than {RENDER_SECONDS:g} s"
        ) from None
    except ReportError:
        raise
    except jinja2.TemplateSyntaxError as exc:
        raise ReportError(f"template {exc.name or TEMPLATE}:{exc.lineno}: {exc.message}") from None
    except jinja2.TemplateError as exc:
        raise ReportError(f"template {_where(exc, lab)}: {exc}") from None
    except RecursionError:
        raise ReportError(
            f"template {TEMPLATE}: it includes or extends itself without end"
        ) from None
    except Exception as exc:
        if lab is None:
            raise
        raise ReportError(f"template {_where(exc, lab)}: {type(exc).__name__}: {exc}") from None


def _generate(env: jinja2.Environment, context: Mapping[str, Any]) -> str:
    """The page, refused as soon as it grows past ``MAX_PAGE`` characters."""
    parts: list[str] = []
    size = 0
    for part in env.get_template(TEMPLATE).generate(context):
        size += len(part)
        if size > MAX_PAGE:
            raise ReportError(
                f"template {TEMPLATE}: the page is longer than {MAX_PAGE:,} characters"
            )
        parts.append(part)
    return "".join(parts)


def _where(exc: BaseException, lab: TemplateFolder | None) -> str:
    """The lab template and line an error was raised in (the innermost such frame)."""
    found = TEMPLATE
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if lab is not None and name in lab.files:
            found = f"{name}:{tb.tb_lineno}"
        tb = tb.tb_next
    return found


def verdict_line(report: Mapping[str, Any]) -> str:
    """The text of page 1's verdict block for ``report`` (as a reader sees it)."""
    template = _environment(None).get_template("fixed/verdict.html.j2")
    return visible_text(template.render(verdict=str(report["verdict"]), counts=report["summary"]))


class _Text(HTMLParser):
    """The text a reader sees of a page: no comments, styles, scripts, templates or title,
    nothing inside an element marked ``hidden`` or styled out of sight in its own ``style``
    attribute (a stylesheet's rules are not read: the PDF check reads the printed text)."""

    _UNSEEN = frozenset(("head", "style", "script", "template", "noscript", "textarea", "title"))
    _VOID = frozenset(
        (
            "area",
            "base",
            "br",
            "col",
            "embed",
            "hr",
            "img",
            "input",
            "link",
            "meta",
            "source",
            "track",
            "wbr",
        )
    )
    _OUT_OF_SIGHT = re.compile(
        r"display\s*:\s*none|visibility\s*:\s*(hidden|collapse)|content-visibility\s*:\s*hidden"
        r"|opacity\s*:\s*0*(\.0*)?\s*(;|$)|font-size\s*:\s*0",
        re.IGNORECASE,
    )

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.open: list[tuple[str, bool]] = []  # open elements, and whether each hides

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in self._VOID:
            return
        named = dict(attrs)
        hides = (
            tag in self._UNSEEN
            or "hidden" in named
            or bool(self._OUT_OF_SIGHT.search(named.get("style") or ""))
        )
        self.open.append((tag, hides))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.open) - 1, -1, -1):
            if self.open[i][0] == tag:
                del self.open[i:]
                return

    def handle_data(self, data: str) -> None:
        if not any(hides for _, hides in self.open):
            self.parts.append(data)


def visible_text(page: str) -> str:
    """The text of ``page`` as a reader sees it (compatibility forms folded, white space
    collapsed)."""
    parser = _Text()
    parser.feed(page)
    parser.close()
    return " ".join(unicodedata.normalize("NFKC", "".join(parser.parts)).split())


#: A statement of the overall verdict in a page's text, and one that there is no deviation.
VERDICT_STATED = re.compile(r"verdict\s*[:：]\s*(pass|fail|inconclusive)\b", re.IGNORECASE)
NO_DEVIATION = re.compile(r"\bno\s+deviations?\b", re.IGNORECASE)


def denied_deviations(text: str, report: Mapping[str, Any]) -> str | None:
    """What ``text`` says that denies report.json's deviations ("says 'No deviation', but
    report.json lists 2 deviation(s)"), or None."""
    listed = deviations(report)
    said = NO_DEVIATION.search(text) if listed else None
    if said is None:
        return None
    return f"says {said.group()!r}, but report.json lists {len(listed)} deviation(s)"


def check_page(
    page: str,
    report: Mapping[str, Any],
    fixed: Mapping[str, str],
    tablecert_made: Sequence[str],
) -> None:
    """Refuse a page made by a lab's template that does not say what report.json says: one
    without tablecert's verdict, identification or deviations block as rendered (or with
    one out of sight), one stating another verdict, or one saying there is no deviation when
    there is."""
    verdict = str(report["verdict"])
    seen = visible_text(page)
    for name, block in fixed.items():
        if controls_escaped(block) not in page or visible_text(block) not in seen:
            raise ReportError(
                f"template {TEMPLATE}: the page does not show tablecert's {name} block "
                "(a lab's template may not replace or hide it)"
            )
    authored = page
    for made in sorted({*fixed.values(), *tablecert_made}, key=len, reverse=True):
        authored = authored.replace(controls_escaped(made), " ")
    text = visible_text(authored)
    for match in VERDICT_STATED.finditer(text):
        if match.group(1).lower() != verdict:
            raise ReportError(
                f"template {TEMPLATE}: the page states {match.group()!r}, but the verdict in "
                f"report.json is {verdict}"
            )
    denial = denied_deviations(text, report)
    if denial is not None:
        raise ReportError(f"template {TEMPLATE}: the page {denial}")
