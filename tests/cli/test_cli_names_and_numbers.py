"""Names and numbers as users type and read them: game ids case-free with a suggestion for a
typo, a hyphenated hand refused as a whole, measured figures in one notation on the terminal
and in the report (a p-value never "0"), the battery's effect column defined, and the
documentation's ``make OUT=DIR`` line working on a new folder."""

from __future__ import annotations

import shutil
import subprocess
from html import escape
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablecert.audit.shuffler import audit_shuffler
from tablecert.cli import app
from tablecert.figures import P_FLOOR_TEXT, measured, p_value
from tablecert.stats import EFFECT_MEANING
from tests.support.cli_support import tablecert

runner = CliRunner()
NATIVE = Path(__file__).resolve().parents[2] / "fixtures" / "evaluators" / "native"


@pytest.mark.parametrize(
    "args",
    [
        ["hands", "q-pokr"],
        ["compare", "q-pokr", "As Kh Td", "2c 3c 4d"],
        ["crosscheck", "poker", "q-pokr", "--evaluator", "x"],
        ["audit", "rounds", "missing.csv", "--game", "q-pokr"],
    ],
    ids=["hands", "compare", "crosscheck", "audit-rounds"],
)
def test_a_mistyped_game_is_refused_with_the_nearest_name(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert "unknown game 'q-pokr'" in result.stderr
    assert "Did you mean 'q-poker'?" in result.stderr
    assert "Traceback" not in result.output


def test_game_ids_are_case_free() -> None:
    lower = runner.invoke(app, ["hands", "q-poker", "--json"])
    mixed = runner.invoke(app, ["hands", "Q-Poker", "--json"])
    assert (lower.exit_code, mixed.exit_code) == (0, 0)
    assert mixed.stdout == lower.stdout
    compared = runner.invoke(app, ["compare", "Q-POKER", "As Kh Td", "2c 3c 4d"])
    assert compared.exit_code == 0, compared.output
    assert compared.stdout.splitlines()[2] == "B wins: straight (4d 3c 2c)"
    analysed = runner.invoke(app, ["analyze", "Q-Poker", "--json"])
    assert analysed.exit_code == 0, analysed.output
    assert '"game": "q-poker"' in analysed.stdout


def test_a_hyphenated_hand_is_refused_as_a_whole() -> None:
    result = tablecert(["compare", "q-poker", "AS-KH-TD", "2c 3c 4d"])
    assert result.code == 2
    assert result.error_lines == [
        "error: 'AS-KH-TD': cards are separated by spaces, commas or semicolons, not hyphens"
    ]


def test_measured_figures_have_one_notation() -> None:
    assert [measured(v) for v in (24127.3, 1310.0, 0.38103, 4.0e-18, -0.815353, 0.0)] == [
        "24,127",
        "1,310",
        "0.381",
        "4e-18",
        "-0.8154",
        "0",
    ]
    assert measured(2.4e9) == "2.4e+09"
    assert measured(None) == ""
    assert [p_value(v) for v in (0.0, 1.0, 0.00524211)] == [P_FLOOR_TEXT, "1", "0.00524"]
    assert P_FLOOR_TEXT == "< 1e-300"


@pytest.fixture(scope="module")
def riffled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A riffle:3 log whose rising-sequence p-value underflows to 0."""
    log = tmp_path_factory.mktemp("riffle") / "riffle3.csv.gz"
    made = runner.invoke(
        app,
        ["simulate", "shuffler", "--model", "riffle:3", "--shuffles", "1000", "-o", str(log)],
    )
    assert made.exit_code == 0, made.output
    return log


def test_an_underflowed_p_value_reads_below_the_floor_in_the_terminal_and_report(
    riffled: Path,
) -> None:
    from tablecert.report.sections.shuffler_audit import _html

    result = audit_shuffler([riffled], input_order="logged")
    rising = next(t for t in result.battery.tests if t.key == "rising")
    assert rising.p_value == 0.0
    assert rising.statistic is not None
    assert rising.statistic >= 1000
    text = runner.invoke(app, ["audit", "shuffler", str(riffled), "--input-order", "logged"])
    assert text.exit_code == 1, text.output
    row = next(ln for ln in text.stdout.splitlines() if ln.startswith("│ rising "))
    cells = [c.strip() for c in row.strip("│").split("│")]
    assert cells[0] == "rising"
    assert cells[1] == measured(rising.statistic)
    assert cells[3] == "< 1e-300"
    html = _html(result)
    assert f">{measured(rising.statistic)}</td>" in html
    assert "E+" not in html
    assert "e+0" not in html.split("<svg")[0]
    assert "&lt; 1e-300" in html


def test_the_effect_column_is_defined_in_the_terminal_and_the_report(riffled: Path) -> None:
    from tablecert.report.sections.shuffler_audit import _html

    text = runner.invoke(app, ["audit", "shuffler", str(riffled), "--input-order", "logged"])
    assert f"effect: {EFFECT_MEANING}" in text.stdout
    rising = next(ln for ln in text.stdout.splitlines() if ln.startswith("  rising: "))
    assert rising.endswith("(effect: Cohen's w)")
    html = _html(audit_shuffler([riffled], input_order="logged"))
    assert f"<p>Effect: {escape(EFFECT_MEANING)}.</p>" in html
    assert "(effect: Cohen&#x27;s w)" in html


@pytest.mark.skipif(
    shutil.which("cc") is None or shutil.which("make") is None, reason="no C toolchain"
)
def test_make_creates_a_new_output_folder(tmp_path: Path) -> None:
    out = tmp_path / "new" / "folder"
    subprocess.run(
        ["make", "-s", "-C", str(NATIVE), f"OUT={out}", f"{out}/libsample.so"], check=True
    )
    assert (out / "libsample.so").stat().st_size > 0


def test_the_rng_report_writes_a_tiny_uniformity_p_value_as_the_terminal_does() -> None:
    from tablecert.audit import rng as nist
    from tablecert.report.sections.rng_audit import _columns_html

    report = nist.run_nist(bytes(125 * 60), bits=1000, sequences=60, tests=["Frequency"])
    (column,) = report.columns
    assert column.uniformity_p is not None
    assert column.uniformity_p < 1e-100
    html = _columns_html(report, None)
    assert f">{p_value(column.uniformity_p, 6)}</td>" in html
    assert "E-" not in html
