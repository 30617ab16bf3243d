"""Round audits of games described by their rule files: clean logs pass, every planted
mis-settlement is found with its round and its article, malformed logs are refused naming the
value, and the audit's settlement agrees with a slow reading of the rule text
(``tests/support/stud_rounds.py``) on every bet of thousands of rounds."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest

from tablecert.games.settle import per_unit
from tablecert.games.stud_settle import OUTCOMES, stud_settlement
from tablecert.poker import ordering
from tablecert.rules import load_rules
from tests.support.cli_support import tablecert
from tests.support.stud_rounds import KINDS, Rules, applicable, capped_rules, make_log

FOUR = "four-card-poker.standard"
GAMES = (
    FOUR,
    "caribbean-stud.no-upcard",
    "caribbean-stud.pair-qualifier",
    "q-poker.six-card-bonus",
)


def _audit(path: Path, game: str, *extra: str) -> tuple[int, dict[str, object]]:
    run = tablecert(["audit", "rounds", "--game", game, str(path), "--json", *extra])
    assert run.code in (0, 1), run.stderr
    return run.code, json.loads(run.stdout)


def _findings(result: dict[str, object]) -> list[dict[str, object]]:
    findings = result["findings"]
    assert isinstance(findings, list)
    return findings


def test_a_clean_four_card_poker_log_passes(tmp_path: Path) -> None:
    log = make_log(FOUR, 300, seed=3)
    code, result = _audit(log.write(tmp_path / "fcp.csv"), FOUR)
    assert code == 0
    assert result["verdict"] == "pass"
    assert result["rounds"] == 300
    assert result["findings_by_kind"] == {}
    spots = result["spots"]
    assert isinstance(spots, dict)
    assert set(spots) == {"ante", "raise", "aces-up"}
    for bet in ("ante", "raise", "aces-up"):
        paid = sum(seat.paid[bet] for seat in log.seats())
        assert spots[bet]["paid"]["exact"] == spots[bet]["due"]["exact"] == f"{paid}/1"


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
@pytest.mark.parametrize("game", GAMES)
def test_every_planted_mis_settlement_is_found_with_its_article(
    tmp_path: Path, game: str, suffix: str
) -> None:
    log = make_log(game, 400, seed=11, plant=KINDS, every=4)
    kinds = Counter(p.kind for p in log.planted)
    assert set(kinds) == set(applicable(log.rules)), kinds
    assert len(kinds) >= 2, kinds
    code, result = _audit(log.write(tmp_path / f"planted{suffix}"), game)
    assert code == 1
    assert result["verdict"] == "fail"
    found = {(f["round_id"], f["seat"], f["spot"]): f for f in _findings(result)}
    for planted in log.planted:
        finding = found.get((planted.round_id, planted.seat, planted.bet))
        assert finding is not None, planted
        assert finding["kind"] == "settlement"
        assert planted.article in str(finding["article"]), (planted, finding)
        assert finding["paid"] != finding["due"]
    planted_rounds = {p.round_id for p in log.planted}
    assert {f["round_id"] for f in _findings(result)} == planted_rounds
    assert result["rounds_flagged"] == len(planted_rounds)


@pytest.mark.parametrize("game", GAMES[1:])
def test_clean_logs_of_the_other_described_games_pass(tmp_path: Path, game: str) -> None:
    log = make_log(game, 300, seed=5)
    code, result = _audit(log.write(tmp_path / "clean.jsonl"), game)
    assert (code, result["findings_by_kind"], result["rounds"]) == (0, {}, 300)


@pytest.mark.parametrize(
    "game",
    [
        *GAMES,
        "q-poker.macau",
        "q-poker.standard",
        "caribbean-stud.macau",
        "caribbean-stud.standard",
    ],
)
def test_the_settlement_agrees_with_the_rule_text_on_every_kind_of_outcome(
    tmp_path: Path, game: str
) -> None:
    """Two thousand rounds of every bundled poker game, settled by the reference and
    re-settled by the audit: no difference, and the rounds include every outcome the game can
    have (a tie where suits do not decide, a dealer who does not qualify, an ante bonus, a
    winning and a losing side bet), so that no branch of either settlement goes unchecked."""
    rules = Rules.read(game)
    ties = not rules.ranking.tie_breaks.suit_decides
    log = make_log(game, 2000, seed=23, seats=4, plant=("tie",) if ties else (), every=500)
    want = {"win", "loss", "fold"} | ({"tie"} if ties else set())
    qualifier = rules.data.get("qualifier", {}).get("category", {}).get("value", "none")
    if qualifier != "none" or "play" in rules.data:
        want.add("dealer does not qualify")
    if "bonus-missed" in applicable(rules):
        want.add("ante bonus")
    if rules.sides:
        want |= {"side bet won", "side bet lost"}
    seen = log.outcomes()
    assert want <= seen, want - seen
    code, result = _audit(log.write(tmp_path / f"{game}.csv"), game)
    assert (code, result["findings_by_kind"], result["rounds"]) == (0, {}, 2000)


def test_the_statute_file_is_audited_by_its_description(tmp_path: Path) -> None:
    """The Q Poker statute's own file, given as the game, is a described game too: its logs
    carry 與莊荷博彩 as one bet (``play``, the whole result) and pair plus."""
    log = make_log("q-poker.macau", 400, seed=2, plant=KINDS, every=5)
    assert {p.kind for p in log.planted} == {"pay-line", "side-bet"}
    code, result = _audit(log.write(tmp_path / "q.csv"), "q-poker.macau")
    assert code == 1
    assert {(f["round_id"], f["spot"]) for f in _findings(result)} == {
        (p.round_id, p.bet) for p in log.planted
    }


def _csv(tmp_path: Path, game: str = FOUR, rounds: int = 20) -> tuple[Path, list[str]]:
    path = make_log(game, rounds, seed=1, seats=1).write(tmp_path / "log.csv")
    return path, path.read_text("utf-8").splitlines()


def _refused(path: Path, game: str = FOUR) -> str:
    run = tablecert(["audit", "rounds", "--game", game, str(path)])
    assert run.code == 2, (run.code, run.stdout, run.stderr)
    assert len(run.error_lines) == 1, run.stderr
    assert run.error_lines[0].startswith("error: ")
    return run.error_lines[0]


def _edit(path: Path, lines: list[str], row: int, column: str, value: str) -> Path:
    header = lines[0].split(",")
    cells = lines[row].split(",")
    cells[header.index(column)] = value
    lines = [*lines[:row], ",".join(cells), *lines[row + 1 :]]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    return path


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        ("cards", "Xx 2d 3d 4d 5d", "log.csv:2: cards: 'Xx' is not a card"),
        (
            "cards",
            "2d 3d 4d 5d",
            "log.csv:2: cards: a four-card-poker.standard hand has 5 cards, got 4",
        ),
        (
            "dealer",
            "2d 3d 4d 5d 6d",
            "log.csv:2: dealer: a four-card-poker.standard hand has 6 cards, got 5",
        ),
        (
            "decision",
            "raise 4x",
            "log.csv:2: decision: 'raise 4x' is not a decision "
            "(expected fold or raise 1x or raise 2x or raise 3x",
        ),
        ("decision", "raise", "log.csv:2: decision: 'raise' is not a decision"),
        ("meter_before", "100", "log.csv:2: meter_before: the game has no progressive meter"),
        ("upcard", "", "log.csv:2: upcard: missing"),
        ("ante_bet", "1e3", "log.csv:2: ante_bet: '1e3' is not an amount"),
    ],
)
def test_a_malformed_log_is_refused_naming_the_value(
    tmp_path: Path, column: str, value: str, message: str
) -> None:
    path, lines = _csv(tmp_path)
    assert message in _refused(_edit(path, lines, 1, column, value))


def test_an_unknown_bet_column_is_refused(tmp_path: Path) -> None:
    path, lines = _csv(tmp_path)
    lines = [lines[0] + ",bonus_bet", *(line + ",5" for line in lines[1:])]
    path.write_text("\n".join(lines) + "\n", "utf-8")
    assert "log.csv:1: unknown column 'bonus_bet'" in _refused(path)


def test_an_unknown_bet_in_json_lines_is_refused(tmp_path: Path) -> None:
    path = make_log(FOUR, 2, seed=1, seats=1).write(tmp_path / "log.jsonl")
    records = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    records[1]["seats"][0]["bets"]["pair_plus"] = "5"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), "utf-8")
    line = _refused(path)
    assert (
        "log.jsonl:2: seats[0].bets: expected an object with keys among ante, raise, aces-up"
        in line
    )


def test_a_raise_the_game_does_not_allow_is_refused(tmp_path: Path) -> None:
    path, lines = _csv(tmp_path, "caribbean-stud.no-upcard")
    line = _refused(_edit(path, lines, 1, "decision", "raise 3x"), "caribbean-stud.no-upcard")
    assert "log.csv:2: decision: 'raise 3x' is not a decision (expected fold or raise 2x" in line


def test_an_upcard_where_the_game_deals_none_is_refused(tmp_path: Path) -> None:
    game = "caribbean-stud.no-upcard"
    path, lines = _csv(tmp_path, game)
    header = lines[0].split(",")
    dealer = lines[1].split(",")[header.index("dealer")].split()[0]
    line = _refused(_edit(path, lines, 1, "upcard", dealer), game)
    assert f"log.csv:2: upcard: '{dealer}': the game deals no dealer card face up" in line


def test_a_card_dealt_twice_is_a_deck_finding(tmp_path: Path) -> None:
    path, lines = _csv(tmp_path)
    header = lines[0].split(",")
    dealer = lines[2].split(",")[header.index("dealer")].split()
    cards = lines[2].split(",")[header.index("cards")].split()
    _edit(path, lines, 2, "cards", " ".join([dealer[1], *cards[1:]]))
    code, result = _audit(path, FOUR)
    assert code == 1
    (finding,) = _findings(result)
    assert (finding["kind"], finding["round_id"], finding["article"]) == (
        "deck",
        "2",
        "Rules: the deal",
    )
    assert finding["detail"] == f"not one deck: {dealer[1]} dealt twice"


def test_a_raise_of_another_multiple_than_the_decision_is_a_bet_finding(tmp_path: Path) -> None:
    path, lines = _csv(tmp_path)
    header = lines[0].split(",")
    row = next(i for i, line in enumerate(lines) if "raise 1x" in line)
    ante = lines[row].split(",")[header.index("ante_bet")]
    _edit(path, lines, row, "raise_bet", str(2 * int(ante)))
    code, result = _audit(path, FOUR)
    assert code == 1
    (finding,) = _findings(result)
    assert finding["kind"] == "bet"
    assert finding["article"] == "Rules: the play"
    assert "a raise of the decision's multiple of the ante (1x, 2x, 3x)" in str(finding["detail"])


@pytest.mark.parametrize(
    ("option", "why"),
    [
        (["--hold"], "has no hold analysis yet"),
        (["--workers", "2"], "is audited locally"),
        (["--cluster", "tcp://127.0.0.1:1"], "is audited locally"),
        (["--config", "x.toml"], "settled by the values written in that file"),
    ],
)
def test_options_of_the_dedicated_audit_are_refused_for_a_described_game(
    tmp_path: Path, option: list[str], why: str
) -> None:
    path, _ = _csv(tmp_path)
    run = tablecert(["audit", "rounds", "--game", FOUR, str(path), *option])
    assert run.code == 2
    assert option[0] in run.stderr
    assert "described by its rule file" in run.stderr
    assert why in " ".join(run.stderr.split())  # the message may wrap


def test_the_game_is_named_by_its_file_path_too(tmp_path: Path) -> None:
    path, _ = _csv(tmp_path)
    rules = load_rules(FOUR).path
    code, result = _audit(path, str(rules))
    assert (code, result["game"], result["rules_sha256"]) == (0, FOUR, load_rules(FOUR).sha256)


def test_the_example_logs_are_the_generator_s_and_audit_as_documented(tmp_path: Path) -> None:
    """fixtures/rounds/four-card-poker-*: the generator's seeded logs, byte for byte; the
    planted one is flagged exactly at its planted rounds."""
    fixtures = Path(__file__).resolve().parents[2] / "fixtures" / "rounds"
    clean = make_log(FOUR, 40, seed=1).write(tmp_path / "clean.csv")
    planted = make_log(FOUR, 40, seed=2, plant=KINDS, every=10)
    written = planted.write(tmp_path / "planted.jsonl")
    assert (fixtures / "four-card-poker-clean.csv").read_bytes() == clean.read_bytes()
    assert (fixtures / "four-card-poker-planted.jsonl").read_bytes() == written.read_bytes()
    code, result = _audit(fixtures / "four-card-poker-planted.jsonl", FOUR)
    assert code == 1
    assert {f["round_id"] for f in _findings(result)} == {"10", "20", "30", "40"}
    assert {p.round_id for p in planted.planted} == {"10", "20", "30", "40"}


def test_a_cap_on_the_raise_is_applied_and_a_raise_paid_above_it_is_found(
    tmp_path: Path,
) -> None:
    rules = capped_rules(tmp_path)
    clean = make_log(rules, 1000, seed=4, seats=4)
    capped = [s for s in clean.seats() if s.stakes["raise"] and s.paid["raise"] == 150]
    assert len(capped) >= 5  # the cap binds on some seats of the clean log
    code, result = _audit(clean.write(tmp_path / "clean.csv"), str(rules))
    assert (code, result["findings_by_kind"]) == (0, {})
    planted = make_log(rules, 1000, seed=4, seats=4, plant=("cap",), every=50)
    assert len(planted.planted) == 20
    code, result = _audit(planted.write(tmp_path / "planted.csv"), str(rules))
    assert code == 1
    found = {(f["round_id"], f["spot"]): f for f in _findings(result)}
    assert set(found) == {(p.round_id, "raise") for p in planted.planted}
    for finding in found.values():
        assert finding["due"] == "150"
        assert "Lab variant: the cap" in str(finding["article"])


def test_a_cap_over_several_bets_together_is_refused_naming_the_key(tmp_path: Path) -> None:
    rules = capped_rules(tmp_path, '["ante", "raise"]')
    path, _ = _csv(tmp_path, "caribbean-stud.no-upcard")
    line = _refused(path, str(rules))
    assert "settlement.cap.bets" in line
    assert "a per-round cap over ante, raise together is not re-settled" in line


def test_a_void_round_is_due_nothing_on_every_bet(tmp_path: Path) -> None:
    path, lines = _csv(tmp_path)
    header = lines[0].split(",")
    _edit(path, lines, 3, "events", "misdeal")
    code, result = _audit(path, FOUR)
    row = lines[3].split(",")
    paid = {b: row[header.index(f"{b}_paid")] for b in ("ante", "raise", "aces-up")}
    flagged = {str(f["spot"]): f for f in _findings(result)}
    assert set(flagged) == {b for b, v in paid.items() if v != "0"}
    assert flagged
    for bet, finding in flagged.items():
        assert finding["round_id"] == row[header.index("round_id")]
        assert (finding["article"], finding["due"], finding["paid"]) == (
            "void round",
            "0",
            paid[bet],
        )
        assert finding["detail"] == "void round (misdeal): bets void, nothing paid"
    assert (code, result["void_rounds"]) == (1, 1)


@pytest.mark.parametrize(
    ("game", "bets"),
    [("q-poker", ("play", "pair_plus")), ("caribbean-stud", ("ante", "raise"))],
)
def test_a_statute_file_settles_as_its_own_engine_s_audit_settles_it(
    game: str, bets: tuple[str, ...]
) -> None:
    """The described settlement of a statute's file and the dedicated games' (games/settle.py)
    give every bet the same value for every outcome and category."""
    order = ordering(game)
    st = stud_settlement(order.rules)
    dedicated = {"dealer does not qualify": "dealer does not qualify", "win": "win"}
    dedicated |= {"tie": "tie", "loss": "loss"}
    compared = 0
    for bet in bets:
        table = st.tables[bet]
        for name in order.categories:
            column = st.categories.index(name.replace(" ", "-"))
            for o, outcome in enumerate(OUTCOMES):
                if bet == "pair_plus":
                    row = 0  # every first rank: pair plus has no minimum
                elif bet == "raise":
                    row = o
                else:
                    row = 1 + o
                want, _ = per_unit(order, bet, dedicated[outcome], name)
                got = Fraction(int(table.numerators[row, column]), table.denominator)
                assert (bet, outcome, name, got) == (bet, outcome, name, want)
                compared += 1
            if bet != "raise":
                fold, _ = per_unit(order, bet, "fold", name)
                if bet != "pair_plus":
                    assert Fraction(int(table.numerators[0, column]), table.denominator) == fold
    assert compared == len(bets) * len(order.categories) * len(OUTCOMES)


def test_a_log_of_another_game_or_an_unknown_game_is_refused(tmp_path: Path) -> None:
    path, _ = _csv(tmp_path)
    line = _refused(path, "caribbean-stud.no-upcard")
    assert "log.csv:1: unknown column 'aces-up_bet'; a caribbean-stud.no-upcard log has" in line
    line = _refused(path, "four-card-pokr")
    assert "unknown game 'four-card-pokr'" in line
    assert "Did you mean 'four-card-poker.standard'?" in line


def test_a_game_with_more_bets_than_a_log_holds_is_refused_before_reading(
    tmp_path: Path,
) -> None:
    source = Path(__file__).resolve().parents[2] / "fixtures" / "rules" / f"{FOUR}.toml"
    text = source.read_text("utf-8")
    bet = text[text.index("[side_bets.aces-up]") :]
    rules = tmp_path / "five-bets.toml"
    extra = "".join(bet.replace("aces-up", f"extra-{n}") for n in (1, 2))
    rules.write_text(text + "\n" + extra, "utf-8")
    line = _refused(tmp_path / "no-such-log.csv", str(rules))
    assert "five-bets.toml: 5 bets (ante, raise, aces-up, extra-1, extra-2)" in line
    assert "a round log holds at most 4 per seat" in line
