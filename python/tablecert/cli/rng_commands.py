"""``tablecert audit rng``: NIST SP 800-22 rev1a on raw RNG output, as the NIST tool reports."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Annotated

import typer

from tablecert.audit import rng as nist
from tablecert.cli import conventions, values
from tablecert.cli.common import JsonOption, emit_json, stderr, stdout


def rng(
    files: Annotated[list[Path], typer.Argument(help="Raw RNG output: binary or ASCII 0/1.")],
    sequences: Annotated[
        int | None,
        typer.Option("--sequences", "-N", help="Number of sequences (default: all whole ones)."),
    ] = None,
    bits: Annotated[
        int | None,
        typer.Option("--bits", "-n", help="Bits per sequence (default 1,000,000)."),
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
            "--confidence", help="Confidence of each test (NIST's significance level is 1 - this)."
        ),
    ] = 0.99,
    json_out: JsonOption = False,
    old_alpha: Annotated[float | None, typer.Option("--alpha", hidden=True)] = None,
) -> None:
    """Run the fifteen NIST SP 800-22 tests and print the final analysis report."""
    values.probability(confidence, "--confidence")
    alpha = float(Decimal(1) - Decimal(str(confidence)))  # 0.99 -> 0.01 exactly
    if old_alpha is not None:
        conventions.deprecated("--alpha (a per-test level here)", "--confidence (= 1 - alpha)")
        alpha = old_alpha
    if fmt not in ("auto", "binary", "ascii"):
        raise typer.BadParameter(f"{fmt!r}: expected auto, binary or ascii", param_hint="--format")
    source = nist.read_bits(files, fmt)  # type: ignore[arg-type]
    n, count = nist.split_sequences(source.total_bits, bits, sequences)
    stderr.print(
        f"{source.total_bits:,} bits read as {source.format} from {len(files)} file(s); "
        f"testing {count:,} sequence(s) of {n:,} bits"
    )
    report = nist.run_nist(source.data, bits=n, sequences=count, tests=tests, alpha=alpha)
    for name, reason in report.skipped:
        stderr.print(f"skipped {name}: {reason}")
    if json_out:
        data = report.as_json()
        data["input"] = {
            "files": list(source.sources),
            "format": source.format,
            "total_bits": source.total_bits,
        }
        emit_json(data)
    else:
        stdout.print(final_analysis_report(report, source))
    if report.failures:
        stderr.print(f"{len(report.failures)} column(s) outside the acceptance region (marked *)")


def final_analysis_report(report: nist.NistReport, source: nist.BitSource) -> str:
    """The NIST tool's finalAnalysisReport.txt layout, one line per p-value column."""
    rule = "-" * 79
    lines = [
        rule,
        "RESULTS FOR THE UNIFORMITY OF P-VALUES AND THE PROPORTION OF PASSING SEQUENCES",
        rule,
        f"   input = {', '.join(source.sources)} ({source.format}); "
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
        "The minimum pass rate for each statistical test with the exception of the random",
        f"excursion (variant) test is approximately = {int(lo * s)} for a sample size = {s} "
        f"binary sequences.",
        "For the random excursion (variant) tests the bounds use the number of sequences with",
        f"at least {report.min_cycles} cycles. Uniformity is assessed from "
        f"{nist.MIN_SEQUENCES_FOR_UNIFORMITY} sequences on.",
        rule,
    ]
    return "\n".join(lines)


def register(audit_app: typer.Typer) -> None:
    """Add ``rng`` to the ``audit`` command group."""
    audit_app.command("rng")(rng)
