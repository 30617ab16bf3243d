"""Compatibility with the NIST Statistical Test Suite's ``assess`` (version 2.1.2).

Labs compare with ``assess`` daily, so ``--nist-tool`` reproduces its output exactly, quirks
included (the compatibility table of docs/methodology/nist.md lists each one against the
document's rule):

- class probabilities as the tool has them: table 2.4's rounded longest-run probabilities,
  the uncorrected overlapping-template probabilities and linear complexity's π_0 = 0.01047;
- p-values as the tool reads them back: printed with six decimals (``%f``) and read into a
  C ``float``, then compared with alpha and binned;
- random excursions: a p-value that prints as 0.000000 counts as "test not applicable";
- proportion bounds truncated to integers, (int)((p̂ ± 3 sqrt(p̂(1-p̂)/m)) m);
- uniformity from 10 sequences on, with the expected count per bin truncated to an integer
  (m / 10 in integer arithmetic);
- the ``finalAnalysisReport.txt`` layout, its footer sentences, and the per-test folders of
  ``results.txt`` (one p-value per line, all columns of a sequence together) and ``dataN.txt``
  (one file per column).
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tablecert import _core
from tablecert.audit import rng as nist
from tablecert.errors import RngAuditError
from tablecert.exact import measured

#: The parameters with which the core's p-values equal the tool's to the printed digits.
TOOL_PARAMETERS = nist.NistParameters(
    longest_run_rounded=True, overlapping_approximate=True, linear_complexity_tool_pi=True
)

RULE = "-" * 78
FOOTER_RULE = "- " * 40 + "-"
EXCURSION_TESTS = ("RandomExcursions", "RandomExcursionsVariant")


def as_read_back(pvalues: np.ndarray[Any, np.dtype[np.float64]]) -> np.ndarray[Any, Any]:
    """p-values as the tool reads them from its results files: printed with ``%f`` (NaN, a
    test that did not apply, as 0.000000) and parsed into a C float, widened to double."""
    flat = np.where(np.isnan(pvalues), 0.0, pvalues).ravel()
    printed = np.array([float(f"{p:f}") for p in flat], dtype=np.float64)
    return printed.astype(np.float32).astype(np.float64).reshape(pvalues.shape)


@dataclass(frozen=True)
class ToolColumn:
    """One line of the tool's final analysis, computed as ``computeMetrics`` does."""

    test: str
    label: str
    histogram: tuple[int, ...]
    sample_size: int
    passed: int
    bounds: tuple[int, int] | None
    uniformity_p: float | None

    @property
    def name(self) -> str:
        """The column's name, as the document-mode column's (:func:`rng.column_name`)."""
        return nist.column_name(self.test, self.label)

    @property
    def proportion_marked(self) -> bool:
        if self.bounds is None:
            return False
        lo, hi = self.bounds
        return self.passed < lo or self.passed > hi

    @property
    def uniformity_marked(self) -> bool:
        return self.uniformity_p is not None and self.uniformity_p < 0.0001

    def line(self) -> str:
        hist = "".join(f"{h:3d} " for h in self.histogram)
        if self.uniformity_p is None:
            uni = "    ----    "
        elif self.uniformity_marked:
            uni = f" {self.uniformity_p:8.6f} * "
        else:
            uni = f" {self.uniformity_p:8.6f}   "
        if self.sample_size == 0:
            prop = f" ------     {self.test}"
        elif self.proportion_marked:
            prop = f"{self.passed:4d}/{self.sample_size:<4d} *  {self.test}"
        else:
            prop = f"{self.passed:4d}/{self.sample_size:<4d}    {self.test}"
        return hist + uni + prop

    def as_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "label": self.label,
            "histogram": list(self.histogram),
            "sample_size": self.sample_size,
            "passed": self.passed,
            "proportion_bounds": list(self.bounds) if self.bounds else None,
            "proportion_marked": self.proportion_marked,
            "uniformity_p": measured(self.uniformity_p),
            "uniformity_marked": self.uniformity_marked,
        }


def tool_bounds(sample_size: int, alpha: float) -> tuple[int, int]:
    """The tool's integer proportion bounds for `sample_size` sequences (C truncation)."""
    p_hat = 1.0 - alpha
    half = 3.0 * math.sqrt(p_hat * alpha / sample_size)
    return int((p_hat - half) * sample_size), int((p_hat + half) * sample_size)


def tool_column(
    test: str, label: str, read_back: Sequence[float] | np.ndarray[Any, Any], alpha: float
) -> ToolColumn:
    """``computeMetrics`` on one column of p-values as read back (see `as_read_back`)."""
    a = np.asarray(read_back, dtype=np.float64)
    if test in EXCURSION_TESTS:
        a = a[a > 0.0]
    s = int(a.size)
    passed = s - int(np.count_nonzero(a < alpha))
    pos = np.minimum(np.floor(a * 10).astype(int), 9)
    histogram = tuple(int(c) for c in np.bincount(pos, minlength=10))
    expected = s // 10
    uniformity: float | None = None
    if expected:
        chi2 = sum((f - expected) ** 2 / expected for f in histogram)
        uniformity = _core.igamc(9.0 / 2.0, chi2 / 2.0)
    return ToolColumn(
        test=test,
        label=label,
        histogram=histogram,
        sample_size=s,
        passed=passed if s else 0,
        bounds=tool_bounds(s, alpha) if s else None,
        uniformity_p=uniformity,
    )


def tool_columns(report: nist.NistReport) -> tuple[ToolColumn, ...]:
    """Every column of `report` through the tool's second level."""
    back = as_read_back(report.pvalues)
    return tuple(
        tool_column(c.test, c.label, back[:, i], report.alpha) for i, c in enumerate(report.columns)
    )


def _pass_rate(size: int, alpha: float) -> int:
    p_hat = 1.0 - alpha
    return int((p_hat - 3.0 * math.sqrt(p_hat * alpha / size)) * size)


def final_analysis_report(
    columns: Sequence[ToolColumn], generator: str, alpha: float = nist.ALPHA
) -> str:
    """The tool's ``finalAnalysisReport.txt``, byte for byte (`generator`: the input path as
    the tool prints it)."""
    lines = [
        RULE,
        "RESULTS FOR THE UNIFORMITY OF P-VALUES AND THE PROPORTION OF PASSING SEQUENCES",
        RULE,
        f"   generator is <{generator}>",
        RULE,
        " C1  C2  C3  C4  C5  C6  C7  C8  C9 C10  P-VALUE  PROPORTION  STATISTICAL TEST",
        RULE,
    ]
    lines += [c.line() for c in columns]
    general = [c for c in columns if c.test not in EXCURSION_TESTS]
    excursion = [c for c in columns if c.test in EXCURSION_TESTS]
    lines += ["", "", FOOTER_RULE]
    if general:
        size = general[-1].sample_size
        lines.append("The minimum pass rate for each statistical test with the exception of the")
        if size == 0:
            lines.append("random excursion (variant) test is undefined.")
        else:
            lines += [
                f"random excursion (variant) test is approximately = {_pass_rate(size, alpha)}"
                " for a",
                f"sample size = {size} binary sequences.",
            ]
        lines.append("")
    if excursion:
        size = excursion[-1].sample_size
        if size == 0:
            lines.append(
                "The minimum pass rate for the random excursion (variant) test is undefined."
            )
        else:
            lines += [
                "The minimum pass rate for the random excursion (variant) test",
                f"is approximately = {_pass_rate(size, alpha)} for a sample size = {size} "
                "binary sequences.",
            ]
        lines.append("")
    lines += [
        "For further guidelines construct a probability table using the MAPLE program",
        "provided in the addendum section of the documentation.",
        FOOTER_RULE,
    ]
    return "\n".join(lines) + "\n"


def _stats_text(test: str, labels: Sequence[str], rows: np.ndarray[Any, Any], alpha: float) -> str:
    out: list[str] = [f"{test}: the p-value of each column per sequence (tablecert)", ""]
    for i, row in enumerate(rows, start=1):
        out.append(f"sequence {i}")
        for label, p in zip(labels, row, strict=True):
            name = f" {label}" if label else ""
            if math.isnan(p):
                out.append(f"NOT APPLICABLE\t{test}{name}")
            else:
                verdict = "SUCCESS" if p >= alpha else "FAILURE"
                out.append(f"{verdict}\t\tp_value = {p:f}\t{test}{name}")
        out.append("")
    return "\n".join(out)


def check_results_dir(directory: Path) -> Path:
    """``directory`` if :func:`write_results` can write into it (new, or an empty folder, in
    a folder that exists); checked before the battery runs, and again when it writes."""
    directory = Path(directory)
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise RngAuditError(f"--results-dir {directory}: exists and is not an empty folder")
    if not directory.parent.is_dir():
        raise RngAuditError(
            f"--results-dir {directory}: the folder {directory.parent} does not exist"
        )
    return directory


def write_results(
    report: nist.NistReport, directory: Path, final_report: str | None = None
) -> list[Path]:
    """The tool's per-test folders under `directory`: ``<Test>/results.txt`` (one ``%f``
    p-value per line; all columns of a sequence together, in sequence order; a test that did
    not apply prints 0.000000 as the tool does), ``<Test>/dataN.txt`` per column of a
    multi-column test, ``<Test>/stats.txt`` (each p-value with SUCCESS/FAILURE), and
    ``finalAnalysisReport.txt`` when given. Written into a fresh folder beside `directory`
    and renamed into place, so a failure leaves nothing half-written; an existing non-empty
    `directory` is refused."""
    directory = check_results_dir(directory)
    parent = directory.parent
    tmp = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=parent))
    written: list[Path] = []
    try:
        tests = list(dict.fromkeys(c.test for c in report.columns))
        for test in tests:
            idx = [i for i, c in enumerate(report.columns) if c.test == test]
            rows = report.pvalues[:, idx]
            folder = tmp / test
            folder.mkdir()
            printed = np.where(np.isnan(rows), 0.0, rows)
            (folder / "results.txt").write_text("".join(f"{p:f}\n" for p in printed.ravel()))
            written.append(directory / test / "results.txt")
            if len(idx) > 1:
                for k in range(len(idx)):
                    name = f"data{k + 1}.txt"
                    (folder / name).write_text("".join(f"{p:f}\n" for p in printed[:, k]))
                    written.append(directory / test / name)
            labels = [report.columns[i].label for i in idx]
            (folder / "stats.txt").write_text(_stats_text(test, labels, rows, report.alpha))
            written.append(directory / test / "stats.txt")
        if final_report is not None:
            (tmp / "finalAnalysisReport.txt").write_text(final_report)
            written.append(directory / "finalAnalysisReport.txt")
        if directory.exists():
            directory.rmdir()
        os.replace(tmp, directory)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RngAuditError(f"--results-dir {directory}: cannot write ({exc.strerror})") from exc
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return written


__all__ = [
    "TOOL_PARAMETERS",
    "ToolColumn",
    "as_read_back",
    "final_analysis_report",
    "tool_bounds",
    "tool_column",
    "tool_columns",
    "write_results",
]
