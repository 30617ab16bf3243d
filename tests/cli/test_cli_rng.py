"""``tablecert audit rng`` through Typer's test runner."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.errors import RngAuditError
from tests.support.cli_support import tablecert_process

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "nist"


def test_report_table_on_e(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["audit", "rng", str(FIXTURES / "e.bin"), "--bits", "100000", "--sequences", "10"]
    )
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "C1  C2  C3  C4  C5  C6  C7  C8  C9 C10  P-VALUE  PROPORTION  STATISTICAL TEST" in out
    assert "NonOverlappingTemplate 000000001" in out
    assert "10 sequences of 100000 bits" in out
    assert "skipped Universal" in result.stderr


def test_json_on_ascii_digits(tmp_path: Path) -> None:
    """An ASCII 0/1 file like the NIST tool's data.e is detected and read as digits."""
    raw = (FIXTURES / "e.bin").read_bytes()[:25_000]
    digits = "".join(format(b, "08b") for b in raw)
    path = tmp_path / "data.e"
    path.write_text("\n".join(digits[i : i + 1000] for i in range(0, len(digits), 1000)))
    result = runner.invoke(
        app, ["audit", "rng", str(path), "--bits", "200000", "--test", "Frequency", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["format"] == "ascii"
    assert data["total_bits"] == 200_000
    assert data["sequences"] == 1
    [col] = data["columns"]
    assert (col["test"], col["sample_size"]) == ("Frequency", 1)


def test_errors_are_handled_failures(tmp_path: Path) -> None:
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    short = tmp_path / "short.bin"
    short.write_bytes(b"\x55" * 10)
    cases = [
        ([str(empty)], "the file is empty"),
        ([str(short), "--bits", "1000"], "fewer than one sequence of 1,000 bits"),
        ([str(FIXTURES / "pi.bin"), "--bits", "1000", "-t", "Universal"], "needs at least"),
    ]
    for args, message in cases:
        result = runner.invoke(app, ["audit", "rng", *args])
        assert result.exit_code == 1
        assert isinstance(result.exception, RngAuditError)
        assert message in str(result.exception)
    # Through the entry point: the message on stderr (rich may wrap it), exit 2.
    proc = tablecert_process(["audit", "rng", str(empty)])
    assert proc.returncode == 2
    assert "the file is empty" in " ".join(proc.stderr.split())
    result = runner.invoke(app, ["audit", "rng", str(short), "--format", "hex"])
    assert result.exit_code == 2


# --- verdicts, exit statuses, JSON, the NIST tool's files ---


def _zeros(tmp_path: Path, nbytes: int = 12_500) -> Path:
    path = tmp_path / "zeros.bin"
    path.write_bytes(bytes(nbytes))
    return path


def test_verdict_and_exit_status(tmp_path: Path) -> None:
    """All zeros, one sequence of 10^5 bits: FAIL, exit 1 (a verdict, never a silent exit 0);
    the digits of e: PASS, exit 0; a test not judged at this length: INCONCLUSIVE, exit 3."""
    zeros = _zeros(tmp_path)
    result = runner.invoke(app, ["audit", "rng", str(zeros), "--bits", "100000"])
    assert result.exit_code == 1, result.output
    assert "verdict: FAIL (extreme rule rejected 9 column(s)" in result.stdout
    assert "uniformity" in result.stdout
    assert "cannot run with 1 sequence(s)" in result.stdout
    result = runner.invoke(app, ["audit", "rng", str(zeros), "--bits", "100000", "--json"])
    data = json.loads(result.stdout)
    assert (result.exit_code, data["verdict"], data["decision"]["verdict"]) == (1, "fail", "fail")
    rules = {r["rule"]: r for r in data["decision"]["rules"]}
    assert rules["extreme"]["can_reject"]
    assert rules["extreme"]["min_sequences"] == 1
    assert rules["proportion"]["min_sequences"] == 2
    assert not rules["proportion"]["can_reject"]
    result = runner.invoke(
        app, ["audit", "rng", str(FIXTURES / "e.bin"), "--bits", "100000", "-N", "10"]
    )
    assert result.exit_code == 0, result.output
    assert "verdict: PASS" in result.stdout
    # The document's bound, not the tool's truncated sentence ("approximately = 8").
    assert "for m = 10: at least 8.9561 sequences, not truncated" in result.stdout
    assert "approximately" not in result.stdout
    result = runner.invoke(
        app, ["audit", "rng", str(zeros), "--bits", "100000", "-t", "LinearComplexity"]
    )
    assert result.exit_code == 3, result.output
    assert "verdict: INCONCLUSIVE" in result.stdout


def test_json_carries_pvalues_and_the_parameters_used(tmp_path: Path) -> None:
    result = runner.invoke(
        app, ["audit", "rng", str(FIXTURES / "pi.bin"), "--bits", "100000", "-N", "3", "--json"]
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    per_sequence = data["pvalues"]["per_sequence"]
    assert len(per_sequence) == 3
    assert len(per_sequence[0]) == len(data["pvalues"]["columns"]) == 187
    # Random excursions with too few cycles: null, never a number standing for "not applied".
    excursion = data["pvalues"]["columns"].index("RandomExcursions x = -4")
    assert all(row[excursion] is None or 0 <= float(row[excursion]) <= 1 for row in per_sequence)
    params = data["parameters"]
    # The values the tests used, chosen from n (never the unset longest_run_m: 0).
    assert params["longest_run_m"] == 128
    assert params["min_cycles"] == 500
    assert "universal_l" not in params  # Universal did not run at 10^5 bits
    assert len(params["non_overlapping_templates"]) == 148
    assert data["mode"] == "document"


def test_bad_lengths_and_levels(tmp_path: Path) -> None:
    """An 8-byte file is too short to test (not one 8-bit sequence); -n 1 is refused; levels
    must lie strictly between 0 and 1 (exit 2, nothing judged)."""
    eight = tmp_path / "eight.bin"
    eight.write_bytes(b"\x12\x34\x56\x78\x9a\xbc\xde\xf0")
    result = runner.invoke(app, ["audit", "rng", str(eight)])
    assert isinstance(result.exception, RngAuditError)
    assert "64 bits, fewer than one sequence of 1,000,000 bits; pass --bits" in str(
        result.exception
    )
    result = runner.invoke(app, ["audit", "rng", str(_zeros(tmp_path)), "-n", "1"])
    assert isinstance(result.exception, RngAuditError)
    assert "--bits 1: a sequence needs at least 100 bits" in str(result.exception)
    for option, value in [
        ("--alpha", "nan"),
        ("--alpha", "0"),
        ("--alpha", "1"),
        ("--confidence", "1.5"),
        ("--confidence", "-1"),
    ]:
        result = runner.invoke(
            app, ["audit", "rng", str(_zeros(tmp_path)), "--bits", "1000", option, value]
        )
        assert result.exit_code == 2, (option, value, result.output)
        assert "strictly between 0 and 1" in result.output


def test_nist_tool_mode_and_results_dir(tmp_path: Path) -> None:
    """10 sequences of e: the tool's integer bound is 8 of 10 (the document's 8.9561), the
    tool's layout and footer, and its folders of results files."""
    out = tmp_path / "AlgorithmTesting"
    e_tool = ["audit", "rng", str(FIXTURES / "e.bin"), "--bits", "100000", "-N", "10"]
    e_tool.append("--nist-tool")
    result = runner.invoke(app, [*e_tool, "--results-dir", str(out)])
    assert result.exit_code == 0, result.output
    final = (out / "finalAnalysisReport.txt").read_text()
    assert result.stdout.startswith(final)
    assert f"   generator is <{FIXTURES / 'e.bin'}>" in final
    assert "random excursion (variant) test is approximately = 8 for a\n" in final
    assert "sample size = 10 binary sequences." in final
    frequency = (out / "Frequency" / "results.txt").read_text().splitlines()
    assert len(frequency) == 10
    assert all(len(line) == 8 and line.startswith(("0.", "1.")) for line in frequency)
    cusum = (out / "CumulativeSums" / "results.txt").read_text().splitlines()
    assert cusum[0::2] == (out / "CumulativeSums" / "data1.txt").read_text().splitlines()
    assert len(list((out / "NonOverlappingTemplate").glob("data*.txt"))) == 148
    stats = (out / "Frequency" / "stats.txt").read_text()
    assert stats.count("p_value = ") == 10
    # An existing folder with content is refused; nothing is written.
    again = runner.invoke(
        app,
        ["audit", "rng", str(FIXTURES / "e.bin"), "--bits", "100000", "--results-dir", str(out)],
    )
    assert isinstance(again.exception, RngAuditError)
    assert "exists and is not an empty folder" in str(again.exception)
    data = json.loads(runner.invoke(app, [*e_tool, "--json"]).stdout)
    assert data["mode"] == "nist-tool"
    assert data["parameters"]["longest_run_rounded"] is True
    tool_frequency = data["nist_tool_columns"][0]
    assert tool_frequency["proportion_bounds"] == [8, 10]
