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
    good = check_configuration(write(tmp_path, "mahjong-simple", "[fan]\ncap = 2\n"))
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
    assert play.submitted is not None
    assert play.submitted > play.statute


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[pair_plus]\nfive-of-a-kind = 100\n", r"config.toml:4: pair_plus.five-of-a-kind: not a"),
        ("[play\n", r"config.toml:3: invalid TOML"),
    ],
)
def test_bad_configurations_name_file_line_key(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        check_configuration(write(tmp_path, "q-poker", body))


@pytest.mark.parametrize(
    ("body", "key", "why"),
    [
        ('[play]\nfold = "half"\n', "play.fold", "'half' is not a number"),
        ("[play.win]\nstraight = true\n", "play.win.straight", "true is not a number"),
        ("[pair_plus]\nstraight = [6]\n", "pair_plus.straight", "a list is not a number"),
        ("[play.win.straight]\nvalue = 1\n", "play.win.straight", "a table is not a number"),
        ("[table]\nseats = 8.5\n", "table.seats", "17/2 is not a whole number"),
        ("[table]\nseats = 8.0000000000000001\n", "table.seats", "is not a whole number"),
        ("[table]\nseats = -9\n", "table.seats", "-9 is not positive"),
        ('[table]\ndealing = ["shoe"]\n', "table.dealing", "expected one name"),
        ("[ranking]\nordering = 3\n", "ranking.ordering", "expected a name like 'statute'"),
    ],
)
def test_invalid_values_are_deviations_saying_why(
    tmp_path: Path, body: str, key: str, why: str
) -> None:
    """A value the setting cannot have is judged (a deviation with its article and the
    reason), never turned into an input error or read as something else."""
    report = check_configuration(write(tmp_path, "q-poker", body))
    line = next(line for line in report.lines if line.key == key)
    assert line.verdict == "deviates"
    assert why in line.note
    assert report.verdict == "deviates"


def test_a_non_numeric_payout_says_why_no_house_edge(tmp_path: Path) -> None:
    report = check_configuration(write(tmp_path, "q-poker", '[pair_plus]\nstraight = "five"\n'))
    assert verdict(report, "pair_plus.straight") == ("deviates", "第十條(三)")
    pair_plus, play = bet_returns(report)
    assert pair_plus.submitted is None
    assert play.submitted is None
    assert pair_plus.statute == Fraction(512, 22100)
    assert "config.toml:4: pair_plus.straight" in pair_plus.why_not
    assert pair_plus.as_json()["house_edge_submitted"] is None
    failed = [c for c in report.consistency if not c.passed]
    assert [(c.name, c.detail) for c in failed] == [
        (
            "pair_plus: payouts never fall as the hand rises",
            "cannot be compared: pair_plus.straight is not a number",
        )
    ]


def test_decimals_are_read_exactly(tmp_path: Path) -> None:
    near = check_configuration(
        write(tmp_path, "q-poker", "[pair_plus]\nstraight = 6.0000000000000001\n")
    )
    line = next(line for line in near.lines if line.key == "pair_plus.straight")
    assert line.verdict == "deviates"
    assert line.as_json()["submitted"] == "6.0000000000000001"
    exact = check_configuration(write(tmp_path, "q-poker", "[pair_plus]\nstraight = 6.0\n"))
    assert exact.passed


def test_q_poker_pair_plus_exact_return_of_a_decimal_payout(tmp_path: Path) -> None:
    """6.5 on each of the 720 straights: 360/22100 less house edge, exactly."""
    report = check_configuration(write(tmp_path, "q-poker", "[pair_plus]\nstraight = 6.5\n"))
    pair_plus, _ = bet_returns(report)
    assert pair_plus.difference == Fraction(-360, 22100)


@pytest.mark.parametrize(
    ("body", "key", "why"),
    [
        ("[progressive]\nmeter = -5\n", "progressive.meter", "-5 is negative"),
        ("[progressive]\ncontribution = 5\n", "progressive.contribution", "must be below 1"),
        ('[progressive]\ncontribution = "1/1"\n', "progressive.contribution", "below 1"),
        ("[progressive.fixed]\nflush = -50\n", "progressive.fixed.flush", "negative"),
        ("[play.cap]\nante = 0\n", "play.cap.ante", "0 is not positive"),
    ],
)
def test_house_choices_outside_what_they_can_be_deviate(
    tmp_path: Path, body: str, key: str, why: str
) -> None:
    report = check_configuration(write(tmp_path, "caribbean-stud", body))
    line = next(line for line in report.lines if line.key == key)
    assert (line.verdict, why in line.note) == ("deviates", True), line


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("[payment]\nlimits = [[25, 50]]\n", "row 1 is not a list of 3 values"),
        ('[payment]\nlimits = "25/50/10"\n', "expected a list like"),
        ('[payment]\nlimits = [[25, "a", 10]]\n', "row 1 has a value that is not a number"),
        ("[payment]\nlimits = [25, 50, 10]\n", "row 1 is not a list of 3 values"),
    ],
)
def test_malformed_mahjong_limits_deviate(tmp_path: Path, body: str, why: str) -> None:
    report = check_configuration(write(tmp_path, "mahjong-traditional", body))
    line = next(line for line in report.lines if line.key == "payment.limits")
    assert (line.verdict, why in line.note) == ("deviates", True), line
    failed = [c for c in report.consistency if not c.passed]
    assert failed
    assert why in failed[0].detail
    assert report.verdict == "deviates"


def test_dictionary_valued_statute_keys_can_be_submitted(tmp_path: Path) -> None:
    same = check_configuration(
        write(
            tmp_path,
            "mahjong-traditional",
            '[payment.share]\n"0" = "lower"\n"1" = "lower"\n"2" = "upper"\n'
            "[liability]\nfalse_win_dealer = { to_others = 2 }\n"
            "false_win_non_dealer = { to_dealer = 2, to_others = 1 }\n",
        )
    )
    assert verdict(same, "payment.share") == ("reading", "第七条")
    assert verdict(same, "liability.false_win_dealer")[0] == "conforms"
    assert verdict(same, "liability.false_win_non_dealer")[0] == "conforms"
    assert same.passed
    other = tmp_path / "other.json"
    other.write_text(
        json.dumps(
            {
                "submission": {"game": "mahjong-simple"},
                "liability": {"false_win_dealer": {"to_others": 3}},
                "payment": {"share": {"0": "lower", "1": "upper", "2": "upper"}},
            }
        )
    )
    report = check_configuration(other)
    assert verdict(report, "liability.false_win_dealer")[0] == "deviates"
    line = next(line for line in report.lines if line.key == "payment.share")
    assert "a different reading" in line.note
    extra = check_configuration(
        write(tmp_path, "mahjong-simple", "[liability]\nfalse_win_dealer = { to_all = 1 }\n")
    )
    line = next(line for line in extra.lines if line.key == "liability.false_win_dealer")
    assert (line.verdict, "unknown entry to_all" in line.note) == ("deviates", True)


def test_caribbean_royal_outside_the_range_is_judged_with_its_house_edge(tmp_path: Path) -> None:
    """A royal payout of 120 is a deviation under 第九条(五)(9) with the statute's range, and
    its exact house edge is computed (not an input error blaming the statute's rule file)."""
    from tablecert.games import caribbean_stud

    report = check_configuration(
        write(tmp_path, "caribbean-stud", "[play.raise_pays]\nroyal-flush = 120\n")
    )
    line = next(line for line in report.lines if line.key == "play.raise_pays.royal-flush")
    assert (line.verdict, line.article, line.expected) == ("deviates", "第九条(五)(9)", "50..100")
    assert "120 is above the statute's maximum 100" in line.note
    ante, _ = bet_returns(report)
    at_100 = caribbean_stud.analyze(royal=100)
    at_120 = caribbean_stud.analyze(royal=120, royal_in_range=False)
    assert ante.statute == at_100.house_edge
    assert ante.submitted == at_120.house_edge
    assert ante.submitted is not None
    assert ante.submitted < ante.statute
    # Every royal is raised at both payouts: 20 more to 1 on the raise (2 antes) for each of
    # the 16,759,770 deals a royal wins against a qualifying dealer, exactly.
    royal = at_100.categories[-1]
    assert (royal.raised, royal.won) == (royal.situations, 16_759_770)
    assert ante.statute - ante.submitted == Fraction(2 * 20 * 16_759_770, caribbean_stud.DEALS)


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ("[submission]\npair_plus.straight = 5\n", "config.toml:3: submission.pair_plus"),
        (
            "[pair_plus]\nstraight = 6\n[pair_plus.bonus]\nx = 1\n",
            "config.toml:6: pair_plus.bonus.x",
        ),
        ('[game]\ntitle = "mine"\n', "config.toml:4: game.title: the statute's own text"),
        ('[ranking.categories]\npair = ["suit"]\n', "config.toml:4: ranking.categories.pair"),
    ],
)
def test_unknown_keys_anywhere_name_file_line_key(tmp_path: Path, body: str, where: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[submission]\ngame = "q-poker"\n' + body.replace("[submission]\n", ""))
    if body.startswith("[submission]"):
        path.write_text('[submission]\ngame = "q-poker"\n' + body.split("\n", 1)[1])
    with pytest.raises(ConfigurationError, match=re.escape(where)):
        check_configuration(path)


def test_a_key_given_dotted_and_as_a_table_is_a_duplicate(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '"pair_plus.straight" = 5\n[submission]\ngame = "q-poker"\n[pair_plus]\nstraight = 6\n'
    )
    with pytest.raises(ConfigurationError, match=r"c.toml:5: pair_plus.straight: given twice "):
        check_configuration(path)
    path.write_text('[submission]\ngame = "q-poker"\n[pair_plus]\nstraight = 6\n')
    assert check_configuration(path).passed


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("[pair_plus]\nstraight = nan\n", "c.toml:4: pair_plus.straight: NaN is not a finite"),
        ("[pair_plus]\nstraight = inf\n", "c.toml:4: pair_plus.straight: Infinity is not"),
        ("[pair_plus]\nstraight = -inf\n", "c.toml:4: pair_plus.straight: -Infinity is not"),
        ("[pair_plus]\nstraight = 1e400\n", "c.toml:4: pair_plus.straight: the number 1E+400"),
        ('[pair_plus]\nstraight = "6/0"\n', "c.toml:4: pair_plus.straight: '6/0' has a zero"),
        ("[pair_plus]\nstraight = " + "9" * 5001 + "\n", "c.toml:4: a number of 5001 digits"),
        ("[pair_plus]\nstraight = " + "9" * 40 + "\n", "c.toml:4: pair_plus.straight: the number"),
        (
            "[pair_plus]\nstraight = 5\nstraight = 6\n",
            "c.toml:5: pair_plus.straight: given twice (also at line 4)",
        ),
        (
            "[table]\nseats = 8\n[table]\nseats = 9\n",
            "c.toml:5: table: given twice (also at line 3)",
        ),
        ("x = " + "[" * 3000 + "]" * 3000 + "\n", "c.toml: nested too deeply"),
        (
            "[pair_plus]\nstraight = [[[[[[[[[6]]]]]]]]]\n",
            "c.toml:4: pair_plus.straight: nested too deeply",
        ),
    ],
)
def test_unreadable_toml_values_name_file_line_key(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[submission]\ngame = "q-poker"\n' + text)
    with pytest.raises(ConfigurationError, match=re.escape(where)):
        check_configuration(path)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('{"submission": {"game": ["q-poker"]}}', "c.json:1: submission.game: ['q-poker'] is not"),
        (
            '{"submission": {"game": "q-poker"},\n "pair_plus": {"straight": NaN}}',
            "c.json:2: pair_plus.straight: NaN is not a number JSON allows",
        ),
        (
            '{"submission": {"game": "q-poker"},\n "pair_plus": {"straight": 1e400}}',
            "c.json:2: pair_plus.straight: the number 1E+400",
        ),
        (
            '{"submission": {"game": "q-poker"},\n "pair_plus": {"straight": ' + "9" * 5001 + "}}",
            "c.json:2: pair_plus.straight: number 99999",
        ),
        (
            '{"submission": {"game": "q-poker"},\n "progressive": {"contribution": "7/0"}}',
            "c.json:2: progressive.contribution: '7/0' has a zero denominator",
        ),
        (
            '{"submission": {"game": "q-poker"},\n"pair_plus.straight": 5,\n'
            ' "pair_plus": {"straight": 6}}',
            "c.json:3: pair_plus.straight: given twice (also at line 2)",
        ),
        (
            '{"submission": {"game": "q-poker"},\n "pair_plus": {"flush": 4,\n "flush": 5}}',
            "c.json:3: pair_plus.flush: duplicate key 'flush'",
        ),
        (
            '{"submission": {"game": "q-poker"}, "x": ' + "[" * 5000 + "]" * 5000 + "}",
            "c.json:1: x: nested deeper than 32 levels",
        ),
        (
            '{"submission": {"game": "q-poker", "note": "x"}}',
            "c.json:1: submission.note: unknown key",
        ),
        ('["q-poker"]', "c.json: expected a table of settings"),
    ],
)
def test_unreadable_json_values_name_file_line_key(tmp_path: Path, text: str, where: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(text)
    with pytest.raises(ConfigurationError, match=re.escape(where)):
        check_configuration(path)


def test_the_contribution_zero_denominator_in_a_caribbean_submission(tmp_path: Path) -> None:
    path = write(tmp_path, "caribbean-stud", '[progressive]\ncontribution = "7/0"\n')
    with pytest.raises(ConfigurationError, match=r"config.toml:4: progressive.contribution"):
        check_configuration(path)


def test_a_submission_that_submits_nothing_judged_is_inconclusive(tmp_path: Path) -> None:
    empty = check_configuration(write(tmp_path, "q-poker", ""))
    assert (empty.verdict, empty.passed, empty.judged) == ("inconclusive", False, ())
    assert empty.as_json()["verdict"] == "inconclusive"
    choices = check_configuration(
        write(tmp_path, "caribbean-stud", "[play.cap]\nmaximum_payout = 5000\n", "c2.toml")
    )
    assert choices.verdict == "inconclusive"
    assert verdict(choices, "play.cap.maximum_payout")[0] == "house choice"


def _cited_lines_exist(output: str) -> None:
    """Every ``file:line`` an output cites is a line of that file (not of another file)."""
    for name, number in re.findall(r"(/\S+?\.(?:toml|json)):(\d+)", output):
        lines = Path(name).read_text(encoding="utf-8").splitlines()
        assert int(number) <= len(lines), (name, number)


def test_errors_cite_lines_of_the_file_they_belong_to(tmp_path: Path) -> None:
    """A Caribbean submission with a zero ante (4 lines long): the return that cannot be
    computed is blamed on the submission's own line, never a line of the statute's file."""
    path = write(tmp_path, "caribbean-stud", "[play.cap]\nante = 0\n")
    report = check_configuration(path)
    assert verdict(report, "play.cap.ante") == ("deviates", "第六条(二)")
    ante, _ = bet_returns(report)
    assert ante.submitted is None
    assert f"{path}:4: play.cap.ante: the ante must be > 0" in ante.why_not
    _cited_lines_exist(ante.why_not)


def test_cli_check_exit_codes_for_every_outcome(tmp_path: Path) -> None:
    runner = CliRunner()
    cases = {
        0: write(tmp_path, "q-poker", "[pair_plus]\nflush = 4\n", "ok.toml"),
        1: write(tmp_path, "q-poker", "[pair_plus]\nflush = 3\n", "bad.toml"),
        3: write(tmp_path, "q-poker", "", "empty.toml"),
    }
    words = {0: "conforms", 1: "deviates", 3: "inconclusive"}
    for code, path in cases.items():
        result = runner.invoke(app, ["check", str(path), "--json", "--no-returns"])
        assert result.exit_code == code, (code, result.output)
        if code in words:
            assert json.loads(result.stdout)["verdict"] == words[code]
    missing = runner.invoke(app, ["check", str(tmp_path / "none.toml")])
    assert isinstance(missing.exception, ConfigurationError)  # run_app: exit 2, one line
    text = runner.invoke(app, ["check", str(cases[3]), "--no-returns"])
    assert "verdict: INCONCLUSIVE" in text.stdout
    help_text = runner.invoke(app, ["check", "--help"]).stdout
    assert all(f"{n} " in help_text for n in ("0", "1", "2", "3", "4"))


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
    with pytest.raises(
        ConfigurationError, match=r"d.json:1: pair_plus.flush: duplicate key 'flush'"
    ):
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
    assert ante.submitted is not None
    assert ante.submitted > ante.statute  # royal 80 and a cap of 50 antes cost the player
    # The meter is the house's: both at the submitted 250,000, the prizes being the statute's.
    assert jackpot.submitted is not None
    assert jackpot.submitted == jackpot.statute == Fraction(193, 4998)


def test_an_error_in_a_submitted_value_names_the_submission_and_its_line(tmp_path: Path) -> None:
    text = (CONFIGS / "caribbean-stud.casino-a.toml").read_text(encoding="utf-8")
    path = tmp_path / "cs_ante0.toml"
    path.write_text(text.replace("ante = 100", "ante = 0"), encoding="utf-8")
    line = text.splitlines().index("ante = 100") + 1
    report = check_configuration(path)
    ante, _ = bet_returns(report)  # judged: no house edge, and the reason names the line
    assert ante.submitted is None
    assert re.search(rf"{re.escape(str(path))}:{line}: play.cap.ante: ", ante.why_not)
    # A statute value the submission leaves alone is blamed on the statute's rule file.
    assert report.effective_rules.locate("play.fold")[0].startswith(
        f"{report.statute.path}:{report.statute.line_of('play.fold')}"
    )
