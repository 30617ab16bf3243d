"""Caribbean Stud's par sheet as a regulator reads it: the progressive's pay table in the text
and the certificate (the XLSX: tests/games/test_par_export.py), a long-run player advantage flagged
in words, the check's comparison made at one meter (the meter is the house's), and a cap
stated against its ante."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from pathlib import Path

import pytest

from tablecert import _core
from tablecert.conformance.configuration import bet_returns, check_configuration
from tablecert.games import progressive
from tablecert.games.progressive import grouped, long_run_text
from tablecert.poker import ordering, tie_break_spec
from tablecert.rules.stud import PROGRESSIVE_HAND, VOCABULARY
from tests.support.games_support import caribbean
from tests.support.hostile import run_cli

CONFIGS = Path(__file__).resolve().parents[2] / "fixtures" / "configs"


def test_a_positive_long_run_return_is_flagged_as_a_player_advantage() -> None:
    prog = caribbean("caribbean-stud.macau").progressive
    run = prog.long_run()
    assert run.return_per_bet > 0  # prizes 1.0073 per unit bet under the Macau example
    assert run.player_advantage
    assert prog.long_run_json()["player_advantage"] is True
    text = long_run_text(prog)
    assert text.startswith(
        "PLAYER ADVANTAGE: the prizes pay 1.0073 per unit bet, so the house loses on this bet "
        "in the long run; long-run return +0.7276% per bet with 7 players"
    )
    assert "(seed 50,000, contribution 0.70, a cycle of 92,820.5 rounds on average;" in text
    house = dataclasses.replace(prog, contribution=Fraction(1, 10))
    assert not house.long_run().player_advantage
    assert long_run_text(house).startswith("long-run return -")


@pytest.mark.parametrize("game", ["caribbean-stud", "q-poker", None])
def test_the_usual_ranking_is_counted_by_the_core_evaluator_as_by_a_stud_ranking(
    game: str | None,
) -> None:
    """The progressive's paying hands under the usual poker ranking, counted by the core's
    own evaluator, are the counts a stud ranking of the same names enumerates."""
    tie_breaks = _core.TieBreaks(suit_decides=False) if game is None else ordering(game).tie_breaks
    spec = tie_break_spec(tie_breaks)
    names = VOCABULARY[PROGRESSIVE_HAND]
    progressive._category_counts.cache_clear()

    def enumerated(*args: object) -> object:
        raise AssertionError("the usual ranking enumerated through a stud ranking")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_core, "stud_category_counts", enumerated)
        fast = progressive._category_counts(names, spec)
    order = _core.StudRanking(PROGRESSIVE_HAND, list(names), _core.TieBreaks(*spec))
    slow = tuple(
        sum(row)
        for row in reversed(_core.stud_category_counts(order, list(range(52)), PROGRESSIVE_HAND))
    )
    assert fast == slow == (4, 36, 624, 3744, 5108, 10200, 54912, 123552, 1098240, 1302540)
    # Another order of the names is counted through a stud ranking, as before.
    other = (*names[:4], names[5], names[4], *names[6:])
    assert progressive._category_counts(other, spec) == (*slow[:4], slow[5], slow[4], *slow[6:])


def test_grouped_figures_have_thousands_separators() -> None:
    assert grouped(Fraction(50_000)) == "50,000"
    assert grouped(Fraction(1856410891, 20000), 1) == "92,820.5"
    assert grouped(Fraction(-5000900, 19)) == "-263,205.26"


def test_analyze_prints_the_progressive_pay_table(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    caribbean("caribbean-stud.macau")  # fills the test cache the CLI reads
    run = run_cli(
        ["analyze", "caribbean-stud", "--rules", "caribbean-stud.macau"], monkeypatch, capsys
    )
    assert run.code == 0, run.err
    out = run.out
    assert "progressive (第十条): prizes per unit bet 1, meter 200,000" in out
    rows = {
        line.split("第十条")[0].strip(): line.split("第十条", 1)[1].split()
        for line in out.replace("│", " ").splitlines()
        if "第十条(二)(" in line
    }
    assert rows["royal flush"] == ["(二)(1)", "4", "0.000001539", "0", "100.00%", "200,000"]
    assert rows["flush"] == ["(二)(5)", "5,108", "0.001965402", "50", "-", "50"]
    assert "progressive over the meter's cycles: PLAYER ADVANTAGE" in out


def test_the_certificate_shows_the_pay_table_and_the_advantage(tmp_path: Path) -> None:
    from tests.report.test_report_sections import _sections

    caribbean("caribbean-stud.macau")
    (s,) = _sections(
        tmp_path,
        '[[section]]\nkind = "par-sheet"\ngame = "caribbean-stud"\n'
        'rules = "caribbean-stud.macau"\n',
    )
    assert "<h3>Progressive (第十条): prizes per unit bet 1 at the meter 200,000</h3>" in s.html
    assert '<td>flush</td><td>第十条(二)(5)</td><td class="num">5,108</td>' in s.html
    assert (
        "<strong>Player advantage:</strong> in the long run the progressive's prizes pay 1.0073 "
        "per unit bet (return +0.7276% per bet with 7 players betting every round): the house "
        "loses on this bet."
    ) in s.html
    assert s.data["progressive"]["long_run"]["player_advantage"] is True


def test_the_progressive_is_compared_at_the_submitted_meter() -> None:
    caribbean("caribbean-stud.macau")
    report = check_configuration(CONFIGS / "caribbean-stud.casino-a.toml")
    jackpot = next(b for b in bet_returns(report) if "累进大奖" in b.bet)
    law = caribbean("caribbean-stud.macau").progressive
    submitted_meter = Fraction(250_000)
    assert law.meter == 200_000  # the rule file's example meter, not the casino's
    assert jackpot.bet == (
        "累进大奖 (progressive, statute and submission at the submitted meter 250,000)"
    )
    assert jackpot.statute == -law.return_at(submitted_meter)
    assert jackpot.statute != -law.return_at(law.meter)
    assert jackpot.difference == 0  # the casino's prizes are the statute's: only the meter differs


def test_the_cap_curve_says_against_which_ante(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    caribbean("caribbean-stud.macau")
    args = ["analyze", "caribbean-stud", "--rules", "caribbean-stud.macau", "--cap-curve", "0,40"]
    run = run_cli(args, monkeypatch, capsys)
    assert run.code == 0, run.err
    assert "\nno per-round maximum: house edge 5.2241% (same decisions)\n" in run.out
    assert (
        "\nper-round maximum 40 against an ante of 1 (raise wins capped at 40 antes): house "
        "edge 5.2848% (same decisions)\n"
    ) in run.out
