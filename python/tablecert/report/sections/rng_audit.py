"""Section ``rng-audit``: raw RNG output through NIST SP 800-22 rev1a, judged PASS / FAIL /
INCONCLUSIVE.

The files are read and split into sequences as the NIST tool does, and every p-value column
is shown as the document's final analysis shows it (or, with ``nist_tool = true``, as the NIST
tool's does). Those per-column marks are not a family-wise test: with 188 columns and many
sequences a perfect generator collects some by chance, and with one or two sequences no column
can ever be marked. The verdict is the family-wise decision of
`tablecert.audit.rng_decision` (extreme p-value, proportion and uniformity rules, each at its
share of alpha = 0.01, Holm/Bonferroni); the section states each rule, its level, the smallest
sequence count at which it can reject and whether it could here. One verdict under the
equipment article of the rule file naming the device the RNG drives. Floats measured by the
battery are carried as decimals of six significant digits.
"""

from __future__ import annotations

from typing import Any

from tablecert import figures
from tablecert.audit import nist_tool
from tablecert.audit import rng as nist
from tablecert.audit.rng_decision import RngDecision, decide
from tablecert.audit.rng_result import rng_audit_json
from tablecert.judgement import Verdict
from tablecert.report.entry import Appendix, Context, Field, PlanEntry, Sample, Scope, Section
from tablecert.report.html import esc, table
from tablecert.report.registry import register_section
from tablecert.report.sections.fields import EQUIPMENT_RULES
from tablecert.report.sections.shuffler_audit import EQUIPMENT_KEYS, equipment_article


@register_section(
    "rng-audit",
    title="RNG audit (NIST SP 800-22)",
    fields={
        "files": Field("files", help="raw RNG output: binary or ASCII 0/1"),
        "rules": EQUIPMENT_RULES,
        "bits": Field(
            "integer",
            required=False,
            minimum=nist.MIN_BITS,
            help="bits per sequence (default 1,000,000)",
        ),
        "sequences": Field(
            "integer", required=False, minimum=1, help="sequences (default: all whole)"
        ),
        "tests": Field("texts", required=False, help="only these tests (default: all)"),
        "nist_tool": Field(
            "boolean",
            required=False,
            help="the NIST tool's class probabilities and final analysis (default false)",
        ),
    },
)
def rng_audit_section(entry: PlanEntry, context: Context) -> Section:
    files = entry.paths("files")
    rules = entry.rules()
    tests = entry.texts("tests") or None
    unknown = sorted(set(tests or ()) - set(nist.TEST_NAMES))
    if unknown:
        raise entry.error("tests", f"unknown test(s) {', '.join(unknown)}")
    tool = entry.values.get("nist_tool", False)
    if not isinstance(tool, bool):
        raise entry.error("nist_tool", f"expected true or false, not {tool!r}")
    context.step(f"NIST SP 800-22 on {len(files)} file(s)")
    source, report = nist.audit_files(
        files,
        bits=entry.values.get("bits"),
        sequences=entry.values.get("sequences"),
        tests=tests,
        parameters=nist_tool.TOOL_PARAMETERS if tool else None,
    )
    decision = decide(report)
    names = [p.name for p in files]
    marked = [c for c in report.columns if not c.ok]
    article = f"{equipment_article(rules)}; NIST SP 800-22 rev1a 4.2"
    rules_text = "; ".join(
        f"{r.key} at alpha {r.alpha:.4g}" if r.can_reject else f"{r.key} not run"
        for r in decision.rules
    )
    verdict = Verdict(
        f"rng-audit.{'+'.join(names)}",
        article,
        f"{report.sequences} sequence(s) of {report.bits:,} bits: no NIST SP 800-22 p-value "
        f"column rejected at family-wise alpha {decision.family_alpha:g} ({rules_text})",
        decision.outcome,
        f"{decision.summary}; columns outside the document's per-column acceptance region "
        f"(marked *): {len(marked)}",
    )
    tool_cols = nist_tool.tool_columns(report) if tool else None
    return Section(
        id=f"rng-audit/{'+'.join(names)}",
        title=f"RNG audit: NIST SP 800-22 ({', '.join(names)})",
        data=_data(report, source, names, decision, tool_cols),
        verdicts=(verdict,),
        html=_html(report, names, decision, tool_cols),
        scope=_scope(report, source, names, decision),
        appendix=Appendix(
            f"NIST SP 800-22 final analysis ({', '.join(names)}), every column",
            _columns_html(report, tool_cols),
        ),
    )


def _scope(
    report: nist.NistReport, source: nist.BitSource, names: list[str], decision: RngDecision
) -> Scope:
    m = report.sequences
    return Scope(
        exhaustive=(
            f"every applicable NIST SP 800-22 test on every sequence ({len(report.columns)} "
            "p-value columns)",
        ),
        sampled=(
            Sample(
                f"{m} sequence(s) of {report.bits:,} bits, the first bits of "
                f"{', '.join(names)} (bits examined of bits supplied)",
                m * report.bits,
                source.total_bits,
            ),
        ),
        power=tuple(
            f"{r.key}: can reject from {r.min_sequences:,} sequence(s); here "
            + (f"it judges at alpha {r.alpha:.4g}" if r.can_reject else f"not run ({r.reason})")
            for r in decision.rules
        ),
        reads=EQUIPMENT_KEYS,  # the rule file names the device, nothing more
        limitations=(
            *(f"skipped: {t} ({r})" for t, r in report.skipped),
            *(f"not judged: {t} (shown only)" for t, _ in decision.not_judged),
        ),
    )


def _data(
    report: nist.NistReport,
    source: nist.BitSource,
    names: list[str],
    decision: RngDecision,
    tool_cols: tuple[nist_tool.ToolColumn, ...] | None,
) -> dict[str, Any]:
    return rng_audit_json(report, source, decision, tool_cols, names)


def _columns_html(
    report: nist.NistReport, tool_cols: tuple[nist_tool.ToolColumn, ...] | None
) -> str:
    """The final-analysis table, every p-value column (the report's appendix)."""
    rows = []
    if tool_cols is not None:
        for t in tool_cols:
            uniformity = "----" if t.uniformity_p is None else f"{t.uniformity_p:.6f}"
            proportion = f"{t.passed}/{t.sample_size}" if t.sample_size else "------"
            rows.append(
                (
                    *t.histogram,
                    uniformity + (" *" if t.uniformity_marked else ""),
                    proportion + (" *" if t.proportion_marked else ""),
                    t.name,
                )
            )
    else:
        for c in report.columns:
            uniformity = "----" if c.uniformity_p is None else figures.p_value(c.uniformity_p, 6)
            proportion = f"{c.passed}/{c.sample_size}" if c.sample_size else "------"
            rows.append((*c.histogram, uniformity, proportion + ("" if c.ok else " *"), c.name))
    return (
        "<p>Columns outside the per-column acceptance region are marked * (chance marks are "
        "expected among many columns; the verdict is family-wise, in the section).</p>"
        + table(
            [*(f"C{i}" for i in range(1, 11)), "P-VALUE", "PROPORTION", "STATISTICAL TEST"],
            rows,
            numeric=tuple(range(12)),
        )
    )


def _html(
    report: nist.NistReport,
    names: list[str],
    decision: RngDecision,
    tool_cols: tuple[nist_tool.ToolColumn, ...] | None,
) -> str:
    marked = (
        [t.name for t in tool_cols if t.uniformity_marked or t.proportion_marked]
        if tool_cols is not None
        else [c.name for c in report.columns if not c.ok]
    )
    skipped = "".join(f"<li>{esc(t)}: {esc(r)}</li>" for t, r in report.skipped)
    rule_rows = [
        (
            r.key,
            r.statement,
            f"{r.alpha:.4g}" if r.can_reject else "not run",
            str(r.min_sequences),
            r.reason,
            ", ".join(r.rejected) or "none",
        )
        for r in decision.rules
    ]
    not_judged = "".join(
        f"<li>{esc(t)}: judged from {b:,} bits per sequence</li>" for t, b in decision.not_judged
    )
    mode = (
        "the NIST tool's final analysis (assess 2.1.2: integer proportion bounds, its class "
        "probabilities)"
        if tool_cols is not None
        else "the document's final analysis (section 4.2)"
    )
    return (
        f"<p>{report.sequences} sequence(s) of {report.bits:,} bits from "
        f"{esc(', '.join(names))}; significance level {report.alpha}; {esc(mode)}; "
        f"{len(report.columns)} p-value columns, {len(marked)} outside the per-column "
        "acceptance region (chance marks are expected among many columns; the verdict is "
        f"family-wise, below){': ' + esc(', '.join(marked)) if marked else ''}.</p>"
        + (f"<p>Skipped:</p><ul>{skipped}</ul>" if skipped else "")
        + f"<p>Decision at family-wise alpha {decision.family_alpha:g}, split equally over the "
        "rules that can reject at this sequence count: "
        f"<strong>{esc(decision.verdict.upper())}</strong> ({esc(decision.summary)}).</p>"
        + table(["rule", "statement", "alpha", "from sequences", "here", "rejected"], rule_rows)
        + (f"<p>Not judged (shown only):</p><ul>{not_judged}</ul>" if not_judged else "")
    )
