"""``--nist-tool``: the NIST tool's (assess 2.1.2) output, reproduced exactly.

`../shared/nist-reference/` (beside the repository; TABLECERT_NIST_REFERENCE overrides) holds
assess's complete output for two inputs of 100 x 10^6 bits and the scripts that regenerate the
inputs. The tests regenerate the inputs (cached in a temporary folder for the session) and
compare: the second level and layout on the tool's own p-values (every column, byte for byte),
the core's p-values of the first sequences against the tool's results files (normal run), and
the whole run through the command line, final analysis and every results file (slow)."""

from __future__ import annotations

import filecmp
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tablecert._core import _testing
from tablecert.audit import nist_tool
from tablecert.audit.rng import TEST_NAMES, run_nist, second_level
from tablecert.cli import app

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = Path(
    os.environ.get("TABLECERT_NIST_REFERENCE", ROOT.parent / "shared" / "nist-reference")
)
INPUTS = {
    "sha256ctr": ["gen_sha256ctr.py", "sha256ctr"],
    "biased": ["gen_biased.py"],
}
runner = CliRunner()


@pytest.fixture(scope="module")
def reference() -> Path:
    if not (REFERENCE / "sha256ctr" / "finalAnalysisReport.txt").is_file():
        if os.environ.get("CI"):
            pytest.fail(f"the NIST reference outputs are missing: {REFERENCE}")
        pytest.skip(f"no NIST reference outputs at {REFERENCE}")
    return REFERENCE


def regenerate(reference: Path, name: str, nbytes: int, folder: Path) -> Path:
    """The reference input (its first `nbytes`: both constructions are prefix-stable) by the
    reference's own script."""
    out = folder / f"{name}-{nbytes}.bin"
    if not out.exists():
        script, *label = INPUTS[name]
        subprocess.run(
            [sys.executable, str(reference / script), *label, str(nbytes), str(out)], check=True
        )
    return out


def tool_pvalues(reference: Path, name: str, test: str, columns: int) -> np.ndarray:
    """The tool's results.txt of one test as (sequences, columns)."""
    values = np.loadtxt(reference / name / test / "results.txt", dtype=np.float64)
    return values.reshape(-1, columns)


@pytest.mark.parametrize("name", list(INPUTS))
def test_second_level_and_layout_on_the_tools_own_pvalues(reference: Path, name: str) -> None:
    """From the tool's results.txt files, `tool_column` and `final_analysis_report` give
    its finalAnalysisReport.txt byte for byte: integer bounds, uniformity from 10 sequences
    with an integer expected count, excursion p-values of 0 dropped, the footer."""
    labels = {
        "CumulativeSums": 2,
        "NonOverlappingTemplate": 148,
        "RandomExcursions": 8,
        "RandomExcursionsVariant": 18,
        "Serial": 2,
    }
    columns = []
    for test in TEST_NAMES:
        p = tool_pvalues(reference, name, test, labels.get(test, 1))
        back = nist_tool.as_read_back(p)
        columns += [nist_tool.tool_column(test, "", back[:, k], 0.01) for k in range(p.shape[1])]
    text = nist_tool.final_analysis_report(columns, f"data/{name}-100x1M.bin")
    assert text == (reference / name / "finalAnalysisReport.txt").read_text()
    # What the default (document) mode would mark differently is docs/methodology/nist.md's table.
    # Where the document's rule differs (docs/methodology/nist.md): 60 of 63 is
    # inside the tool's truncated bound int(60.04) = 60 and outside the document's 60.04.
    if name == "sha256ctr":
        variant = columns[-3 - 18 : -3]
        p = tool_pvalues(reference, name, "RandomExcursionsVariant", 18)
        sixty = [k for k, c in enumerate(variant) if (c.passed, c.sample_size) == (60, 63)]
        assert sixty == [14, 15]  # x = +6, x = +7
        for k in sixty:
            assert not variant[k].proportion_marked
            document = second_level(
                "RandomExcursionsVariant", "", np.where(p[:, k] > 0, p[:, k], np.nan), 0.01
            )
            assert (document.passed, document.sample_size) == (60, 63)
            assert document.proportion_ok is False
            # The tool's uniformity uses 6 as the expected count per bin (63 // 10), the
            # document 6.3.
            tool_u, document_u = variant[k].uniformity_p, document.uniformity_p
            assert tool_u is not None
            assert document_u is not None
            assert round(tool_u, 6) != round(document_u, 6)


@pytest.mark.parametrize("name", list(INPUTS))
def test_core_pvalues_equal_the_tools_on_the_first_sequences(
    reference: Path, name: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Every p-value of the first 8 sequences, all 188 columns, printed as the tool prints
    them, equals the tool's results.txt line (sequence-major, as the tool writes them)."""
    sequences = 8
    folder = tmp_path_factory.mktemp("nist-inputs")
    data = regenerate(reference, name, sequences * 125_000, folder).read_bytes()
    report = run_nist(
        data, bits=1_000_000, sequences=sequences, parameters=nist_tool.TOOL_PARAMETERS
    )
    tests = list(dict.fromkeys(c.test for c in report.columns))
    compared = 0
    for test in tests:
        idx = [i for i, c in enumerate(report.columns) if c.test == test]
        want = (reference / name / test / "results.txt").read_text().splitlines()
        got = np.where(np.isnan(report.pvalues[:, idx]), 0.0, report.pvalues[:, idx])
        lines = [f"{p:f}" for p in got.ravel()]
        assert lines == want[: len(lines)], test
        compared += len(lines)
    assert compared == sequences * 188


def tool_peak_counts(reference: Path, name: str) -> list[int]:
    """N_l (the DFT test's N1) per sequence from the tool's FFT/stats.txt."""
    lines = (reference / name / "FFT" / "stats.txt").read_text().splitlines()
    values = [line.split("=")[1] for line in lines if "(b) N_l" in line]
    counts = [int(float(v)) for v in values]
    assert [float(v) for v in values] == counts
    return counts


def check_spectral_transforms(reference: Path, name: str, sequences: int, folder: Path) -> None:
    """N1 of each sequence by the hand-written FFT, by realfft/rustfft, and as the battery
    takes it, all equal to the tool's N_l; the battery takes every one from the crate (no
    magnitude near the threshold)."""
    data = regenerate(reference, name, sequences * 125_000, folder).read_bytes()
    want = tool_peak_counts(reference, name)[:sequences]
    assert len(want) == sequences
    hand = _testing.dft_peak_counts(data, 1_000_000, sequences, "hand")
    fast = _testing.dft_peak_counts(data, 1_000_000, sequences, "crate")
    test = _testing.dft_peak_counts(data, 1_000_000, sequences, "test")
    assert [c for c, _ in hand] == want
    assert [c for c, _ in fast] == want
    assert test == [(c, "crate") for c in want]


@pytest.mark.parametrize("name", list(INPUTS))
def test_both_transforms_count_the_tools_peaks_on_the_first_sequences(
    reference: Path, name: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    check_spectral_transforms(reference, name, 12, tmp_path_factory.mktemp("nist-inputs"))


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("TABLECERT_SLOW"), reason="long run: set TABLECERT_SLOW=1 (and -m slow)"
)
@pytest.mark.parametrize("name", list(INPUTS))
def test_both_transforms_count_the_tools_peaks_on_every_sequence(
    reference: Path, name: str, tmp_path: Path
) -> None:
    check_spectral_transforms(reference, name, 100, tmp_path)


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("TABLECERT_SLOW"), reason="long run: set TABLECERT_SLOW=1 (and -m slow)"
)
@pytest.mark.parametrize("name", list(INPUTS))
def test_cli_reproduces_the_tool_on_the_full_inputs(
    reference: Path, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`audit rng --nist-tool --results-dir` on the whole 100 x 10^6-bit input: the final
    analysis and every results.txt / dataN.txt equal the tool's, byte for byte."""
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    source = regenerate(reference, name, 12_500_000, tmp_path)
    source.rename(data_dir / f"{name}-100x1M.bin")
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(
        app,
        [
            "audit",
            "rng",
            f"data/{name}-100x1M.bin",
            "--nist-tool",
            "--results-dir",
            "AlgorithmTesting",
        ],
    )
    assert result.exit_code == (0 if name == "sha256ctr" else 1), result.output
    out = tmp_path / "AlgorithmTesting"
    assert (out / "finalAnalysisReport.txt").read_text() == (
        reference / name / "finalAnalysisReport.txt"
    ).read_text()
    assert result.stdout.startswith((reference / name / "finalAnalysisReport.txt").read_text())
    files = sorted(p.relative_to(reference / name) for p in (reference / name).glob("*/data*.txt"))
    files += sorted(
        p.relative_to(reference / name) for p in (reference / name).glob("*/results.txt")
    )
    assert len(files) == 15 + 2 + 148 + 8 + 18 + 2
    _, mismatch, errors = filecmp.cmpfiles(reference / name, out, [str(f) for f in files])
    assert (mismatch, errors) == ([], [])
