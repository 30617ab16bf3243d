"""Section ``rng-audit``: raw RNG output through NIST SP 800-22 rev1a (the final analysis).

The files are read and split into sequences as the NIST tool does, and every p-value column
is shown as the tool's final analysis shows it (a column outside section 4.2's acceptance
region is marked *). Those per-column marks are not a family-wise test: with 188 columns and
few sequences a perfect generator gets some marks by chance (the binary expansions of pi, e,
sqrt 2 and sqrt 3 do). The certification verdict therefore judges the family as the shuffler
battery does: per column, the exact binomial probability of so few passing sequences when
each passes with probability 1 - alpha, with Holm's correction over all columns at
family-wise alpha; and section 4.2.2's uniformity rule (P-value_T < 0.0001) where it applies.
One verdict under the equipment article of the rule file naming the device the RNG drives.
Floats measured by the battery are carried as decimals of six significant digits.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

from tablecert.audit import rng as nist
from tablecert.report.canonical import float_decimal
from tablecert.report.html import esc, table
from tablecert.report.plan import PlanEntry
from tablecert.report.registry import (
    Appendix,
    Context,
    Field,
    Sample,
    Scope,
    Section,
    Verdict,
    register_section,
)
from tablecert.report.sections.shuffler_audit import equipment_article


@register_section(
    "rng-audit",
    title="RNG audit (NIST SP 800-22)",
    fields={
        "files": Field("files", help="raw RNG output: binary or ASCII 0/1"),
        "rules": Field("rules", help="the game's rule file (its equipment article)"),
        "bits": Field("integer", required=False, help="bits per sequence (default 1,000,000)"),
        "sequences": Field("integer", required=False, help="sequences (default: all whole)"),
        "tests": Field("texts", required=False, help="only these tests (default: all)"),
    },
)
def rng_audit_section(entry: PlanEntry, context: Context) -> Section:
    files = entry.paths("files")
    rules = entry.rules()
    tests = entry.texts("tests") or None
    unknown = sorted(set(tests or ()) - set(nist.TEST_NAMES))
    if unknown:
        raise entry.error("tests", f"unknown test(s) {', '.join(unknown)}")
    context.step(f"NIST SP 800-22 on {len(files)} file(s)")
    source, report = nist.audit_files(
        files,
        bits=entry.values.get("bits"),
        sequences=entry.values.get("sequences"),
        tests=tests,
    )
    names = [p.name for p in files]
    tails = [proportion_tail(c, report.alpha) for c in report.columns]
    rejected = holm_rejected(report.columns, tails, report.alpha)
    marked = [c for c in report.columns if not c.ok]
    article = f"{equipment_article(rules)}; NIST SP 800-22 rev1a 4.2"
    verdict = Verdict(
        f"rng-audit.{'+'.join(names)}",
        article,
        f"{report.sequences} sequence(s) of {report.bits:,} bits: no NIST SP 800-22 p-value "
        f"column rejected (Holm over {len(report.columns)} columns at alpha {report.alpha}; "
        "uniformity by section 4.2.2)",
        "fail" if rejected else "pass",
        f"rejected: {', '.join(rejected) or 'none'}; columns outside the per-column "
        f"acceptance region (marked *): {len(marked)}",
    )
    return Section(
        id=f"rng-audit/{'+'.join(names)}",
        title=f"RNG audit: NIST SP 800-22 ({', '.join(names)})",
        data=_data(report, source, names, tails, rejected),
        verdicts=(verdict,),
        html=_summary_html(report, names, marked, rejected),
        scope=_scope(report, source, names),
        appendix=Appendix(
            f"NIST SP 800-22 final analysis ({', '.join(names)}), every column",
            _html(report, names),
        ),
    )


def detection_threshold(sequences: int, alpha: float, columns: int) -> int | None:
    """The most passing sequences (of ``sequences``) at which a column is still rejected at
    the first Holm step (tail <= alpha / columns); None if no count is."""
    a = Fraction(str(alpha))
    level = a / max(columns, 1)
    tail = Fraction(0)
    found = None
    for k in range(sequences + 1):
        tail += comb(sequences, k) * (1 - a) ** k * a ** (sequences - k)
        if tail > level:
            break
        found = k
    return found


def _scope(report: nist.NistReport, source: nist.BitSource, names: list[str]) -> Scope:
    used = report.sequences * report.bits
    k = detection_threshold(report.sequences, report.alpha, len(report.columns))
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
                used,
                source.total_bits,
            ),
        ),
        power=(
            (
                f"with {m} sequence(s), a column is rejected when at most {k} of {m} pass "
                f"(first Holm step, alpha {report.alpha} / {len(report.columns)} columns); a "
                "generator failing one test more often goes undetected"
                if k is not None
                else f"with {m} sequence(s) no column can be rejected family-wise: too few "
                "sequences to fail (inconclusive power)"
            ),
        ),
        limitations=tuple(f"skipped: {t} ({r})" for t, r in report.skipped),
    )


def _summary_html(
    report: nist.NistReport, names: list[str], marked: list[nist.ColumnResult], rejected: list[str]
) -> str:
    rows = [
        (
            _label(c),
            f"{c.passed}/{c.sample_size}" if c.sample_size else "-",
            "-" if c.uniformity_p is None else str(float_decimal(c.uniformity_p, 6)),
        )
        for c in marked
    ]
    skipped = "".join(f"<li>{esc(t)}: {esc(r)}</li>" for t, r in report.skipped)
    return (
        f"<p>{report.sequences} sequence(s) of {report.bits:,} bits from "
        f"{esc(', '.join(names))}; significance level {report.alpha}; "
        f"{len(report.columns)} p-value columns. Family-wise (Holm) rejected: "
        f"<strong>{esc(', '.join(rejected) or 'none')}</strong>. Columns outside the "
        f"per-column acceptance region: {len(marked)} (chance marks are expected among many "
        "columns).</p>"
        + (
            table(["marked column", "proportion", "P-VALUE (uniformity)"], rows, (1, 2))
            if rows
            else ""
        )
        + (f"<p>Skipped:</p><ul>{skipped}</ul>" if skipped else "")
    )


def proportion_tail(c: nist.ColumnResult, alpha: float) -> Fraction | None:
    """P(at most ``c.passed`` of ``c.sample_size`` sequences pass) when each passes with
    probability 1 - alpha: exact; None for a column no sequence applied to."""
    if not c.applicable:
        return None
    a = Fraction(str(alpha))
    m = c.sample_size
    return sum((comb(m, k) * (1 - a) ** k * a ** (m - k) for k in range(c.passed + 1)), Fraction(0))


def _label(c: nist.ColumnResult) -> str:
    return f"{c.test} {c.label}".strip()


def holm_rejected(
    columns: tuple[nist.ColumnResult, ...], tails: list[Fraction | None], alpha: float
) -> list[str]:
    """Columns rejected: Holm step-down on the proportion tails at family-wise ``alpha``, and
    any column section 4.2.2 judges non-uniform."""
    a = Fraction(str(alpha))
    ranked = sorted(
        ((t, i) for i, t in enumerate(tails) if t is not None), key=lambda item: item[0]
    )
    out: set[int] = set()
    for rank, (tail, i) in enumerate(ranked):
        if tail > a / (len(ranked) - rank):
            break
        out.add(i)
    out.update(i for i, c in enumerate(columns) if c.uniformity_ok is False)
    return [_label(columns[i]) for i in sorted(out)]


def _column(c: nist.ColumnResult, tail: Fraction | None) -> dict[str, Any]:
    lo, hi = c.proportion_bounds
    return {
        "test": c.test,
        "label": c.label,
        "histogram": list(c.histogram),
        "sample_size": c.sample_size,
        "passed": c.passed,
        "proportion": Fraction(c.passed, c.sample_size) if c.applicable else None,
        "proportion_bounds": [float_decimal(lo), float_decimal(hi)] if c.applicable else None,
        "proportion_ok": c.proportion_ok if c.applicable else None,
        "uniformity_p": float_decimal(c.uniformity_p),
        "uniformity_ok": c.uniformity_ok,
        "ok": c.ok,
        "proportion_tail": float_decimal(None if tail is None else float(tail)),
    }


def _data(
    report: nist.NistReport,
    source: nist.BitSource,
    names: list[str],
    tails: list[Fraction | None],
    rejected: list[str],
) -> dict[str, Any]:
    return {
        "standard": "NIST SP 800-22 rev1a",
        "files": names,
        "format": source.format,
        "total_bits": source.total_bits,
        "bits_per_sequence": report.bits,
        "sequences": report.sequences,
        "alpha": float_decimal(report.alpha),
        "min_cycles": report.min_cycles,
        "columns": [_column(c, t) for c, t in zip(report.columns, tails, strict=True)],
        "skipped": [{"test": t, "reason": r} for t, r in report.skipped],
        "tests_marked": list(report.tests_failed()),
        "holm_rejected": rejected,
    }


def _html(report: nist.NistReport, names: list[str]) -> str:
    rows = []
    for c in report.columns:
        uniformity = "----" if c.uniformity_p is None else str(float_decimal(c.uniformity_p, 6))
        proportion = f"{c.passed}/{c.sample_size}" if c.sample_size else "------"
        mark = "" if c.ok else " *"
        rows.append(
            (
                *c.histogram,
                uniformity,
                proportion + mark,
                _label(c),
            )
        )
    skipped = "".join(f"<li>{esc(t)}: {esc(r)}</li>" for t, r in report.skipped)
    return (
        f"<p>{report.sequences} sequence(s) of {report.bits:,} bits from "
        f"{esc(', '.join(names))}; significance level {report.alpha}. Columns outside the "
        "per-column acceptance region are marked * (chance marks are expected among many "
        "columns; the verdict is family-wise, see the requirement).</p>"
        + table(
            [*(f"C{i}" for i in range(1, 11)), "P-VALUE", "PROPORTION", "STATISTICAL TEST"],
            rows,
            numeric=tuple(range(12)),
        )
        + (f"<p>Skipped:</p><ul>{skipped}</ul>" if skipped else "")
    )
