"""Submitted configurations against the statutes: one test per constrained article."""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.conformance.configuration import (
    ConfigurationError,
    ConfigurationReport,
    bet_returns,
    check_configuration,
)
from tablecert.errors import TableCertError

CONFIGS = Path(__file__).resolve().parents[2] / "fixtures" / "configs"


def write(tmp_path: Path, game: str, body: str, name: str = "config.toml") -> Path:
    path = tmp_path / name
    path.write_text(f'[submission]\ngame = "{game}"\n{body}', encoding="utf-8")
    return path


def verdict(report: ConfigurationReport, key: str) -> tuple[str, str]:
    line = next(line for line in report.lines if line.key == key)
    return line.verdict, line.article


def test_q_poker_art10_pair_plus_paytable(tmp_path: Path) -> None:
    report = check_configuration(write(tmp_path, "q-poker", "[pair_plus]\nstraight = 5\n"))
    assert verdict(report, "pair_plus.straight") == ("deviates", "第十條(三)")
    assert verdict(report, "pair_plus.flush") == ("not submitted", "第十條(四)")
    assert not report.passed


def test_q_poker_art9_7_straight_pays_three_to_two(tmp_path: Path) -> None:
    good = check_configuration(write(tmp_path, "q-poker", '[play.win]\nstraight = "3/2"\n'))
    assert verdict(good, "play.win.straight") == ("conforms", "第九條(七)(3)")
    also_good = check_configuration(write(tmp_path, "q-poker", "[play.win]\nstraight = 1.5\n"))
    assert also_good.passed
    bad = check_configuration(write(tmp_path, "q-poker", "[play.win]\nstraight = 1\n"))
    assert verdict(bad, "play.win.straight") == ("deviates", "第九條(七)(3)")


def test_q_poker_art9_3_fold_loses_half(tmp_path: Path) -> None:
    bad = check_configuration(write(tmp_path, "q-poker", "[play]\nfold = -1\n"))
    assert verdict(bad, "play.fold") == ("deviates", "第九條(三)")


def test_q_poker_art2_eight_or_more_seats(tmp_path: Path) -> None:
    ok = check_configuration(write(tmp_path, "q-poker", "[table]\nseats = 10\n"))
    assert verdict(ok, "table.seats") == ("conforms", "第二條(一)")
    bad = check_configuration(write(tmp_path, "q-poker", "[table]\nseats = 7\n"))
    assert verdict(bad, "table.seats") == ("deviates", "第二條(一)")


def test_art3_dealing_method(tmp_path: Path) -> None:
    ok = check_configuration(write(tmp_path, "q-poker", '[table]\ndealing = "shuffler"\n'))
    assert verdict(ok, "table.dealing") == ("conforms", "第三條")
    bad = check_configuration(write(tmp_path, "q-poker", '[table]\ndealing = "by hand"\n'))
    assert verdict(bad, "table.dealing") == ("deviates", "第三條")


def test_caribbean_art9_5_9_royal_option_range_and_art13_duty(tmp_path: Path) -> None:
    report = check_configuration(CONFIGS / "caribbean-stud.casino-a.toml")
    line = next(line for line in report.lines if line.key == "play.raise_pays.royal-flush")
    assert (line.verdict, line.article, line.expected) == ("conforms", "第九条(五)(9)", "50..100")
    assert "第十三条" in line.note
    assert report.passed
    bad = check_configuration(
        write(tmp_path, "caribbean-stud", "[play.raise_pays]\nroyal-flush = 120\n")
    )
    assert verdict(bad, "play.raise_pays.royal-flush") == ("deviates", "第九条(五)(9)")


def test_caribbean_art9_5_raise_paytable(tmp_path: Path) -> None:
    bad = check_configuration(
        write(tmp_path, "caribbean-stud", "[play.raise_pays]\nfull-house = 6\n")
    )
    assert verdict(bad, "play.raise_pays.full-house") == ("deviates", "第九条(五)(6)")


def test_caribbean_art6_6_raise_is_twice_the_ante(tmp_path: Path) -> None:
    bad = check_configuration(write(tmp_path, "caribbean-stud", "[play]\nraise_multiple = 3\n"))
    assert verdict(bad, "play.raise_multiple") == ("deviates", "第六条(六)")


def test_caribbean_art2_exactly_eight_seats(tmp_path: Path) -> None:
    bad = check_configuration(write(tmp_path, "caribbean-stud", "[table]\nseats = 9\n"))
    assert verdict(bad, "table.seats") == ("deviates", "第二条(一)")


def test_caribbean_art9_1_dealer_qualifier(tmp_path: Path) -> None:
    bad = check_configuration(
        write(tmp_path, "caribbean-stud", '[play]\ndealer_qualifier = ["A"]\n')
    )
    assert verdict(bad, "play.dealer_qualifier") == ("deviates", "第九条(一)")


def test_caribbean_house_choices_are_not_constrained(tmp_path: Path) -> None:
    report = check_configuration(CONFIGS / "caribbean-stud.casino-a.toml")
    assert verdict(report, "play.cap.maximum_payout") == ("house choice", "第九条(五)(7)")
    assert verdict(report, "progressive.fixed.flush") == ("house choice", "第十条(二)(5)")
    assert verdict(report, "progressive.royal_meter_share") == ("conforms", "第十条(二)(1)")


def test_caribbean_art10_2_royal_takes_the_whole_meter(tmp_path: Path) -> None:
    bad = check_configuration(
        write(tmp_path, "caribbean-stud", '[progressive]\nroyal_meter_share = "1/2"\n')
    )
    assert verdict(bad, "progressive.royal_meter_share") == ("deviates", "第十条(二)(1)")


def test_mahjong_art8_commission_table(tmp_path: Path) -> None:
    body = "[payment]\nlimits = [[25, 50, 10], [50, 100, 25]]\n"
    bad = check_configuration(write(tmp_path, "mahjong-traditional", body))
    assert verdict(bad, "payment.limits") == ("deviates", "第八条(甲)")


def test_mahjong_art6_fan_cap(tmp_path: Path) -> None:
    bad = check_configuration(write(tmp_path, "mahjong-traditional", "[fan]\ncap = 3\n"))
    assert verdict(bad, "fan.cap") == ("deviates", "第六条(甲)(3)")
    good = check_configuration(write(tmp_path, "mahjong-simple", "[game]\n"))
    assert good.passed


def test_mahjong_art3_players(tmp_path: Path) -> None:
    bad = check_configuration(write(tmp_path, "mahjong-traditional", "[game]\nplayers = 3\n"))
    assert verdict(bad, "game.players") == ("deviates", "第三条(甲)")


def test_readings_are_not_deviations(tmp_path: Path) -> None:
    report = check_configuration(write(tmp_path, "mahjong-traditional", '[fan]\ncombine = "max"\n'))
    assert verdict(report, "fan.combine") == ("reading", "第六条(甲)")
    assert report.passed


def test_consistency_payouts_must_not_fall(tmp_path: Path) -> None:
    report = check_configuration(write(tmp_path, "q-poker", "[pair_plus]\nstraight = 3\n"))
    failed = [c for c in report.consistency if not c.passed]
    assert [c.name for c in failed] == ["pair_plus: payouts never fall as the hand rises"]
    assert "straight 3 < flush 4" in failed[0].detail


def test_consistency_of_the_statutes_themselves(tmp_path: Path) -> None:
    for game in ("q-poker", "caribbean-stud", "mahjong-traditional", "mahjong-simple"):
        report = check_configuration(write(tmp_path, game, "", name=f"{game}.toml"))
        assert all(c.passed for c in report.consistency), game
        assert not report.deviations


def test_exact_returns_of_a_deviating_q_poker_configuration() -> None:
    report = check_configuration(CONFIGS / "q-poker.casino-b.toml")
    assert [line.key for line in report.deviations] == ["play.win.straight", "pair_plus.straight"]
    pair_plus, play = bet_returns(report)
    assert pair_plus.statute == Fraction(512, 22100)
    # One unit less on each of the 720 straights: 720/22100 more house edge.
    assert pair_plus.difference == Fraction(720, 22100)
    assert play.statute == Fraction(11234169, 407170400)
    assert play.submitted > play.statute


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[play]\nfold = "half"\n', r"config.toml:4: play.fold: expected a value like '-1/2'"),
        ("[play.win]\nstraight = true\n", r"config.toml:4: play.win.straight: expected a value"),
        ("[pair_plus]\nfive-of-a-kind = 100\n", r"config.toml:4: pair_plus.five-of-a-kind: not a"),
        ("[play\n", r"invalid TOML"),
    ],
)
def test_bad_configurations_name_file_line_key(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        check_configuration(write(tmp_path, "q-poker", body))


def test_bad_submission_tables(tmp_path: Path) -> None:
    missing = tmp_path / "missing.toml"
    missing.write_text("[pair_plus]\nflush = 4\n")
    with pytest.raises(ConfigurationError, match=r"missing \[submission\] table"):
        check_configuration(missing)
    with pytest.raises(ConfigurationError, match="'blackjack' is not one of"):
        check_configuration(write(tmp_path, "blackjack", ""))


def test_json_configuration_and_duplicate_keys(tmp_path: Path) -> None:
    good = tmp_path / "c.json"
    good.write_text(json.dumps({"submission": {"game": "q-poker"}, "pair_plus": {"flush": 4}}))
    assert check_configuration(good).passed
    dup = tmp_path / "d.json"
    dup.write_text('{"submission": {"game": "q-poker"}, "pair_plus": {"flush": 4, "flush": 5}}')
    with pytest.raises(ConfigurationError, match="duplicate key 'flush'"):
        check_configuration(dup)


def test_cli_check_exit_codes() -> None:
    runner = CliRunner()
    bad = runner.invoke(app, ["check", str(CONFIGS / "q-poker.casino-b.toml"), "--json"])
    assert bad.exit_code == 1
    data = json.loads(bad.stdout)
    assert data["verdict"] == "deviates"
    assert {r["bet"][:2] for r in data["returns"]} == {"多寶", "與莊"}
    good = runner.invoke(
        app, ["check", str(CONFIGS / "caribbean-stud.casino-a.toml"), "--no-returns"]
    )
    assert good.exit_code == 0, good.output
    assert "verdict: CONFORMS" in good.stdout


def test_exact_returns_of_a_caribbean_configuration_with_the_royal_option() -> None:
    report = check_configuration(CONFIGS / "caribbean-stud.casino-a.toml")
    ante, jackpot = bet_returns(report)
    assert ante.statute == Fraction(3337606931, 63888559350)  # 5.2241% per ante
    assert ante.submitted > ante.statute  # royal 80 and a cap of 50 antes cost the player
    # The progressive at a 250,000 meter against the statute file's 200,000 example meter.
    assert jackpot.submitted < jackpot.statute


def test_an_error_in_a_submitted_value_names_the_submission_and_its_line(tmp_path: Path) -> None:
    text = (CONFIGS / "caribbean-stud.casino-a.toml").read_text(encoding="utf-8")
    path = tmp_path / "cs_ante0.toml"
    path.write_text(text.replace("ante = 100", "ante = 0"), encoding="utf-8")
    line = text.splitlines().index("ante = 100") + 1
    report = check_configuration(path)
    with pytest.raises(TableCertError, match=rf"^{re.escape(str(path))}:{line}: play.cap.ante: "):
        bet_returns(report)
    # A statute value the submission leaves alone is blamed on the statute's rule file.
    assert report.effective_rules.locate("play.fold")[0].startswith(
        f"{report.statute.path}:{report.statute.line_of('play.fold')}"
    )
