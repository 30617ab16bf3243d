"""``tablecert audit rng``: NIST SP 800-22 rev1a on raw RNG output, judged PASS / FAIL /
INCONCLUSIVE, with the document's final analysis or (``--nist-tool``) the NIST tool's."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from tablecert.audit import nist_tool
from tablecert.audit import rng as nist
from tablecert.audit.rng_decision import FAMILY_ALPHA, RngDecision, decide
from tablecert.audit.rng_result import rng_audit_json
from tablecert.cli import values
from tablecert.cli.common import (
    JsonOption,
    emit_json,
    exit_for,
    plain,
    probability,
    stderr,
    stdout,
)
from tablecert.cli.progress import progress
from tablecert.exact import measured
from tablecert.stats import level_of, pvalues


def rng(
    files: Annotated[
        list[Path], typer.Argument(metavar="FILE", help="Raw RNG output: binary or ASCII 0/1.")
    ],
    sequences: Annotated[
        int | None,
        typer.Option("--sequences", "-N", help="Number of sequences (default: all whole ones)."),
    ] = None,
    bits: Annotated[
        int | None,
        typer.Option("--bits", "-n", help="Bits per sequence (default 1,000,000; at least 100)."),
    ] = None,
    fmt: Annotated[
        str,
        typer.Option("--format", help="Input format: auto, binary or ascii."),
    ] = "auto",
    tests: Annotated[
        list[str] | None,
        typer.Option("--test", "-t", help="Run only this test (repeatable)."),
    ] = None,
    confidence: Annotated[
        float,
        typer.Option(
            "--confidence",
            callback=probability,
            help="Confidence of each test: the document's significance level is 1 - this.",
        ),
    ] = 0.99,
    family_alpha: Annotated[
        float,
        typer.Option(
            "--alpha", callback=probability, help="Family-wise significance level of the verdict."
        ),
    ] = FAMILY_ALPHA,
    tool: Annotated[
        bool,
        typer.Option(
            "--nist-tool",
            help="Reproduce the NIST tool (assess 2.1.2): its class probabilities, integer "
            "proportion bounds and finalAnalysisReport.txt layout.",
        ),
    ] = False,
    results_dir: Annotated[
        Path | None,
        typer.Option(
            "--results-dir",
            metavar="DIR",
            help="Write the tool's per-test results.txt, dataN.txt and stats.txt and the "
            "finalAnalysisReport.txt into DIR (new or empty).",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Run the fifteen NIST SP 800-22 tests, print the final analysis and judge the generator.

    Verdict: PASS (exit 0), FAIL (exit 1: a rule rejected a p-value column), INCONCLUSIVE
    (exit 3: no rule can reject at this length and sequence count). Exit 2: bad input or
    option, nothing judged. The decision rules and their levels are printed with the verdict.
    """
    alpha = level_of(confidence)  # 0.99 -> 0.01 exactly
    if fmt not in ("auto", "binary", "ascii"):
        raise typer.BadParameter(f"{fmt!r}: expected auto, binary or ascii", param_hint="--format")
    for test in tests or ():  # every option is checked before any input is read
        values.choice(test, nist.TEST_NAMES, "--test")
    nist.check_sizes(bits, sequences)
    if results_dir is not None:
        nist_tool.check_results_dir(results_dir)
    if sequences != 1:  # one sequence's decision needs no SciPy (stats.pvalues)
        pvalues.special_functions()  # light, while this is the only Python thread (see there)
    with progress("audit rng") as reporter:
        reporter.update(0, 2, f"reading {len(files)} file(s)")
        source = nist.read_bits(files, fmt, nist.bits_needed(bits, sequences))  # type: ignore[arg-type]
        n, count = nist.split_sequences(source.total_bits, bits, sequences)
        stderr.print(
            f"{source.total_bits:,} bits read as {source.format} from {len(files)} file(s); "
            f"testing {count:,} sequence(s) of {n:,} bits" + ("; NIST tool mode" if tool else "")
        )
        reporter.update(1, 2, f"running the battery on {count:,} sequence(s) of {n:,} bits")
        params = nist_tool.TOOL_PARAMETERS if tool else nist.NistParameters()
        report = nist.run_nist(
            source.data, bits=n, sequences=count, tests=tests, parameters=params, alpha=alpha
        )
    for name, reason in report.skipped:
        stderr.print(f"skipped {name}: {reason}")
    decision = decide(report, family_alpha)
    tool_cols = nist_tool.tool_columns(report) if tool else None
    generator = plain(", ".join(str(f) for f in files))
    if tool_cols is not None:
        table = nist_tool.final_analysis_report(tool_cols, generator, report.alpha)
    else:
        table = final_analysis_report(report, source)
    if results_dir is not None:
        written = nist_tool.write_results(report, results_dir, table)
        stderr.print(f"wrote {len(written)} file(s) under {plain(results_dir)}")
    if json_out:
        emit_json(rng_json(report, source, decision, tool_cols))
    else:
        stdout.print(table.rstrip("\n"))
        stdout.print()
        stdout.print("\n".join(decision.lines()))
    raise exit_for(decision.outcome)


def _nullable(values: Any) -> list[str | None]:
    """P-values as every JSON of tablecert writes a measured float; NaN (not applied): null."""
    return [None if math.isnan(v) else measured(v) for v in values]


def rng_json(
    report: nist.NistReport,
    source: nist.BitSource,
    decision: RngDecision,
    tool_cols: tuple[nist_tool.ToolColumn, ...] | None,
) -> dict[str, Any]:
    """What ``--json`` prints: the audit's JSON (:func:`rng_audit_json`, the files as given)
    with the verdict and every p-value per sequence (null where a test did not apply)."""
    data = rng_audit_json(report, source, decision, tool_cols, source.sources)
    data["verdict"] = decision.outcome.value
    data["pvalues"] = {
        "columns": [c.name for c in report.columns],
        "per_sequence": [_nullable(row.tolist()) for row in report.pvalues],
    }
    return data


def final_analysis_report(report: nist.NistReport, source: nist.BitSource) -> str:
    """The document's final analysis in the NIST tool's layout, one line per p-value column."""
    rule = "-" * 79
    lines = [
        rule,
        "RESULTS FOR THE UNIFORMITY OF P-VALUES AND THE PROPORTION OF PASSING SEQUENCES",
        rule,
        f"   input = {plain(', '.join(source.sources))} ({source.format}); "
        f"{report.sequences} sequences of {report.bits} bits",
        rule,
        " C1  C2  C3  C4  C5  C6  C7  C8  C9 C10  P-VALUE  PROPORTION  STATISTICAL TEST",
        rule,
    ]
    for c in report.columns:
        hist = " ".join(f"{h:3d}" for h in c.histogram)
        if c.uniformity_p is None:
            uni = "   ----    "
        else:
            mark = "*" if not c.uniformity_ok else " "
            uni = f"{c.uniformity_p:.6f}{mark}  "
        if c.sample_size:
            mark = " " if c.proportion_ok else "*"
            prop = f"{c.passed:4d}/{c.sample_size:<4d}{mark}"
        else:
            prop = "   ------  "
        label = f" {c.label}" if c.label else ""
        lines.append(f"{hist}  {uni}{prop}  {c.test}{label}")
    s = report.sequences
    lo, _ = nist.second_level("", "", [0.5] * s, report.alpha).proportion_bounds
    lines += [
        rule,
        "A column is marked * when its proportion of sequences with p >= "
        f"{report.alpha:g} lies outside",
        f"p̂ ± 3 sqrt(p̂(1-p̂)/m) (for m = {s}: at least {lo * s:.4f} sequences, not truncated), "
        "or when",
        f"P-value_T < 0.0001 (assessed from {nist.MIN_SEQUENCES_FOR_UNIFORMITY} sequences on). "
        "For the random excursion (variant)",
        f"tests m is the number of sequences with at least {report.min_cycles} cycles. "
        "These marks are per column; the verdict below is family-wise.",
        rule,
    ]
    return "\n".join(lines)
