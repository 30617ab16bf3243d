"""The section registry: each analysis contributes one kind of report section.

A section kind is a function ``(entry, context) -> Section`` registered under the name a plan
uses in ``[[section]] kind = "..."``, with the plan keys it accepts. To add one (say the
shuffler audit)::

    # python/tablecert/report/sections/shuffler.py
    from tablecert.judgement import Outcome, Verdict
    from tablecert.report.entry import Context, Field, PlanEntry, Section
    from tablecert.report.registry import register_section

    @register_section(
        "shuffler-audit",
        title="Shuffler audit",
        fields={"log": Field("file", help="the shuffler's log"), "game": Field("text")},
    )
    def shuffler_section(entry: PlanEntry, context: Context) -> Section:
        log = entry.path("log")               # resolved, checked to exist; becomes a subject
        context.step(f"auditing {log.name}")  # progress line on stderr
        ...
        return Section(id=f"shuffler-audit/{log.name}", title=..., data={...},
                       verdicts=(Verdict(..., Outcome.PASS, ...),), html=html.table(...))

then add ``shuffler`` to the imports in ``report/sections/__init__.py``. Verdicts come from
the judgement layer (``tablecert.judgement``): a section takes each outcome from the result it
was handed and only lays it out. Every ``file``,
``files`` and ``rules`` field of the entry is hashed into the signed statement automatically;
a section that reads further files reads each through ``context.snapshot(path)`` (the
hashed copy) and lists it in ``Section.inputs``. ``data`` must be exact
(int, str, Fraction, Decimal; no floats): it goes into report.json as canonical JSON. ``html``
is a fragment built with the helpers in ``report/html.py`` (they escape text).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from tablecert.errors import ReportError
from tablecert.report.entry import Builder, Check, Field, SectionKind

REGISTRY: dict[str, SectionKind] = {}


def register_section(
    name: str, *, title: str, fields: Mapping[str, Field], check: Check | None = None
) -> Callable[[Builder], Builder]:
    """Register ``build`` as the section kind ``name`` accepting ``fields`` in the plan;
    ``check`` vets each entry when the plan is read."""
    if "kind" in fields:
        raise ReportError(f"section kind {name}: 'kind' is reserved")

    def decorate(build: Builder) -> Builder:
        if name in REGISTRY:
            raise ReportError(f"section kind {name!r} is registered twice")
        REGISTRY[name] = SectionKind(name, title, dict(fields), build, check)
        return build

    return decorate
