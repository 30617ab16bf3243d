"""``tablecert audit rng`` through Typer's test runner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.errors import RngAuditError

runner = CliRunner()
FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "nist"


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
    assert data["input"]["format"] == "ascii"
    assert data["input"]["total_bits"] == 200_000
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
    proc = subprocess.run(
        [sys.executable, "-m", "tablecert", "audit", "rng", str(empty)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "the file is empty" in " ".join(proc.stderr.split())
    result = runner.invoke(app, ["audit", "rng", str(short), "--format", "hex"])
    assert result.exit_code == 2
