"""A submitted configuration of a game described by its rule file alone (no statute), judged
against that file value by value as the statutes' games are: rows with their articles, house
choices, deviations, unknown keys refused by name, and the bets' exact returns."""

from __future__ import annotations

import json
import os
from fractions import Fraction
from pathlib import Path

import pytest
from rich.cells import cell_len

from tablecert.conformance.configuration import bet_returns, check_configuration
from tablecert.games import stud
from tablecert.judgement import Outcome
from tablecert.report.certify import run_sections
from tablecert.report.plan import load_plan
from tablecert.rules.stud import describe
from tablecert.rules.submission import in_force
from tests.support.cli_support import tablecert
from tests.support.plan_support import write_plan

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "fixtures" / "configs"
CONFORMING = CONFIGS / "four-card-poker.casino-d.toml"
DEVIATING = CONFIGS / "four-card-poker.casino-e.toml"
RULES = ROOT / "fixtures" / "rules" / "four-card-poker.standard.toml"
SLOW = bool(os.environ.get("TABLECERT_SLOW"))

#: The player's five-card hands by the category of their best four (the engine's counts).
FLUSHES, TWO_PAIRS, QUADS, HANDS = 114_616, 123_552, 624, 2_598_960
#: Aces Up on the rule file's table (50-40-8-6-4-2-1), per unit.
ACES_UP = Fraction(1376, 32487)
#: The bet against the dealer under optimal play, per ante (the rule file's par sheet).
FOUR_CARD_EDGE = Fraction(8_840_827_253, 317_119_576_410)


def write(tmp_path: Path, body: str, game: str = "four-card-poker.standard") -> Path:
    path = tmp_path / "config.toml"
    path.write_text(f'[submission]\ngame = "{game}"\n{body}', encoding="utf-8")
    return path


def lines(data: dict[str, object]) -> dict[str, tuple[str, str, object, object]]:
    rows = data["lines"]
    assert isinstance(rows, list)
    return {r["key"]: (r["verdict"], r["article"], r["expected"], r["submitted"]) for r in rows}


def test_a_conforming_configuration_passes_with_its_house_choices() -> None:
    run = tablecert(["check", str(CONFORMING), "--no-returns", "--json"])
    assert run.code == 0, run.stderr
    data = json.loads(run.stdout)
    assert (data["game"], data["verdict"], data["judged"]) == (
        "four-card-poker.standard",
        "conforms",
        9,
    )
    assert data["statute_rules"] == "four-card-poker.standard.toml"
    rows = lines(data)
    assert rows["decision.raises"] == ("conforms", "Rules: the play", [1, 2, 3], [1, 2, 3])
    assert rows["settlement.bonus.three-of-a-kind"] == ("conforms", "Rules: ante bonus", 2, 2)
    pays = "Aces Up: pay table (Live! Casino Philadelphia)"
    assert rows["side_bets.aces-up.pays.flush"] == ("house choice", pays, 6, 5)
    assert rows["side_bets.aces-up.pays.two-pair"] == ("house choice", pays, 2, 3)
    assert sum(r[0] == "house choice" for r in rows.values()) == 8
    assert rows["deal.dealer_cards"] == ("not submitted", "Rules: the deal", 6, None)
    # The rule file's own text is no row: categories, and the file's identity.
    assert not any(k.startswith("ranking.categories") for k in rows)
    assert "game.source" not in rows
    assert "game.title" not in rows
    checks = {c["check"]: c["passed"] for c in data["consistency"]}
    assert checks == {
        "settlement.raise.win: payouts never fall as the hand rises": True,
        "settlement.bonus: payouts never fall as the hand rises": True,
        "side_bets.aces-up.pays: payouts never fall as the hand rises": True,
    }


def test_a_deviating_configuration_fails_naming_each_rule() -> None:
    run = tablecert(["check", str(DEVIATING), "--no-returns", "--json"])
    assert run.code == 1, run.stderr
    data = json.loads(run.stdout)
    assert data["verdict"] == "deviates"
    deviations = {k: v for k, v in lines(data).items() if v[0] == "deviates"}
    assert deviations == {
        "settlement.ties": ("deviates", "Rules: settlement", "player", "push"),
        "settlement.bonus.three-of-a-kind": ("deviates", "Rules: ante bonus", 2, 3),
    }
    # A house choice of the side bet is recorded, never a deviation.
    assert lines(data)["side_bets.aces-up.pays.four-of-a-kind"][0] == "house choice"


def test_the_text_report_fits_80_columns_and_says_rule_file() -> None:
    run = tablecert(["check", str(DEVIATING), "--no-returns"], env={"COLUMNS": "80"})
    assert run.code == 1, run.stderr
    text = run.stdout.splitlines()
    assert "verdict: DEVIATES (2 deviation(s), 5 value(s) judged)" in text
    assert "house choice (8): the rule file leaves this to the house" in text
    tables = [line for line in text if line[:1] in "┏┃┡│└─" or "  " in line]
    assert tables
    assert max(cell_len(line) for line in tables) <= 80
    header = next(line for line in text if line.startswith("┃ article"))
    assert "rule file" in header
    assert "statute" not in header


def test_an_unknown_key_is_refused_by_name(tmp_path: Path) -> None:
    config = write(tmp_path, "[settlement]\nsurrender = -1\n")
    run = tablecert(["check", str(config)])
    assert run.code == 2
    assert run.error_lines == [
        f"error: {config}:4: settlement.surrender: not a rule of four-card-poker.standard (the "
        "rule file four-card-poker.standard.toml has no such key)"
    ]


def test_a_falling_side_bet_table_fails_the_consistency_check(tmp_path: Path) -> None:
    config = write(tmp_path, "[side_bets.aces-up.pays]\nflush = 9\n")
    report = check_configuration(config)
    assert not report.passed
    (failed,) = [c for c in report.consistency if not c.passed]
    assert failed.name == "side_bets.aces-up.pays: payouts never fall as the hand rises"
    assert failed.detail == "three-of-a-kind 8 < flush 9"


def test_the_id_of_described_games_needs_the_rule_file(tmp_path: Path) -> None:
    config = write(tmp_path, "[settlement.bonus]\nthree-of-a-kind = 2\n", game="stud")
    run = tablecert(["check", str(config), "--no-returns"])
    assert run.code == 2
    assert run.error_lines[0].startswith(
        f"error: {config}:2: submission.game: 'stud' names a game described by its rule file: "
        "give that file (--rules FILE)"
    )
    given = tablecert(["check", str(config), "--no-returns", "--rules", str(RULES)])
    assert given.code == 0, given.stderr


def test_a_rule_file_of_another_game_or_a_path_is_refused(tmp_path: Path) -> None:
    config = write(tmp_path, "[decision]\nraises = [1, 2, 3]\n")
    other = ROOT / "fixtures" / "rules" / "caribbean-stud.no-upcard.toml"
    run = tablecert(["check", str(config), "--rules", str(other)])
    assert run.code == 2
    assert "game.variant: the submission is for 'four-card-poker.standard'" in run.stderr
    by_path = write(tmp_path, "", game=str(RULES))
    refused = tablecert(["check", str(by_path)])
    assert refused.code == 2
    assert refused.error_lines[0].startswith(f"error: {by_path}:2: submission.game: '{RULES}'")


def test_the_side_bet_returns_are_the_submitted_tables() -> None:
    for config, edge in (
        # flush 6 -> 5 and two pair 2 -> 3: the edge moves by the two categories' shares
        (CONFORMING, ACES_UP + Fraction(FLUSHES - TWO_PAIRS, HANDS)),
        # four of a kind 50 -> 100
        (DEVIATING, ACES_UP - Fraction(50 * QUADS, HANDS)),
    ):
        game = describe(in_force(config))
        (bet,) = game.side_bets
        assert stud.side_bet_sheet(game, bet).house_edge == edge
    assert ACES_UP + Fraction(FLUSHES - TWO_PAIRS, HANDS) == Fraction(12_643, 324_870)


def test_the_returns_of_a_changed_game_are_computed_again(tmp_path: Path) -> None:
    """A variant's raise table changed: the engine runs on the configuration in force."""
    config = write(
        tmp_path, "[settlement.raise.win]\nroyal-flush = 50\n", game="caribbean-stud.no-upcard"
    )
    run = tablecert(["check", str(config), "--json"])
    assert run.code == 1, run.stderr
    data = json.loads(run.stdout)
    assert [k for k, v in lines(data).items() if v[0] == "deviates"] == [
        "settlement.raise.win.royal-flush"
    ]
    (ante,) = data["returns"]
    assert ante["article"] == "Rules: the raise"
    assert ante["house_edge_statute"] == "1605628741/30201864420"  # the variant's par sheet
    assert ante["house_edge_submitted"] == "2527121293/47460072660"
    difference = Fraction(2_527_121_293, 47_460_072_660) - Fraction(1_605_628_741, 30_201_864_420)
    assert ante["difference"] == str(difference)
    assert difference > 0


@pytest.mark.slow
@pytest.mark.skipif(not SLOW, reason="long run: set TABLECERT_SLOW=1")
def test_the_returns_of_every_bet_of_the_configured_game() -> None:
    report = check_configuration(CONFORMING)
    main, aces_up = bet_returns(report)
    assert (main.submitted, main.statute) == (FOUR_CARD_EDGE, FOUR_CARD_EDGE)
    assert (aces_up.bet, aces_up.article) == ("Aces Up (side bet, per unit)", "Rules: Aces Up")
    assert (aces_up.submitted, aces_up.statute) == (Fraction(12_643, 324_870), ACES_UP)
    run = tablecert(["check", str(CONFORMING)], env={"COLUMNS": "80"})
    assert run.code == 0
    assert (
        "Rules: Aces Up Aces Up (side bet, per unit): house edge 3.8917% (rule file 4.2355%, "
        "difference -0.3438 points)"
    ) in run.stdout.splitlines()


def test_a_certificate_judges_it_article_by_article(tmp_path: Path) -> None:
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n\n[[section]]\nkind = "configuration"\nreturns = false\n'
        f'file = "{DEVIATING}"\n',
    )
    (section,) = run_sections(load_plan(plan))
    assert section.title == (
        "four-card-poker.standard configuration four-card-poker.casino-e.toml (Casino E (example))"
    )
    prefix = "configuration.four-card-poker.casino-e."
    rows = {v.requirement.removeprefix(prefix): (v.outcome, v.values) for v in section.verdicts}
    assert rows["Rules: settlement"] == (Outcome.FAIL, ("settlement.ties = push",))
    assert rows["Rules: ante bonus"][0] is Outcome.FAIL
    assert rows["Rules: the play"] == (Outcome.PASS, ("decision.raises = 1, 2, 3",))
    assert rows["Aces Up: pay table (Live! Casino Philadelphia).house-choice"][0] is (
        Outcome.HOUSE_CHOICE
    )
    assert [p.name for p in section.rule_files] == ["four-card-poker.standard.toml"]


def test_a_negative_bonus_is_judged_with_its_reason(tmp_path: Path) -> None:
    report = check_configuration(write(tmp_path, "[settlement.bonus]\nflush = -1\n"))
    (line,) = report.deviations
    assert (line.key, line.article, line.note) == (
        "settlement.bonus.flush",
        "Rules: ante bonus",
        "-1 is negative",
    )


def test_a_side_bet_of_a_statute_games_file_is_judged_and_returned(tmp_path: Path) -> None:
    """A lab's Q Poker file with the 6 Card Bonus: the bet is judged, checked for its table
    and returned from its category counts (188 royal flushes of C(52, 6) six-card hands)."""
    config = write(tmp_path, "[side_bets.six-card-bonus.pays]\nroyal-flush = 500\n", "q-poker")
    run = tablecert(["check", str(config), "--rules", "q-poker.six-card-bonus", "--json"])
    assert run.code == 1, run.stderr
    data = json.loads(run.stdout)
    assert lines(data)["side_bets.six-card-bonus.pays.royal-flush"] == (
        "deviates",
        "6 Card Bonus: pay table",
        1000,
        500,
    )
    assert {
        "check": "side_bets.six-card-bonus.pays: payouts never fall as the hand rises",
        "article": "6 Card Bonus: pay table",
        "passed": True,
        "detail": "monotone",
    } in data["consistency"]
    bonus = data["returns"][-1]
    assert bonus["bet"] == "6 Card Bonus (side bet, per unit)"
    statute = Fraction(1_742_976, 20_358_520)
    assert bonus["house_edge_statute"] == str(statute)
    assert bonus["house_edge_submitted"] == str(statute + Fraction(500 * 188, 20_358_520))
