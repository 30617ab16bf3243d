"""Round logs: strict reading, hand-worked settlements, planted errors found and named."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tablecert import _core
from tablecert.cli import app
from tablecert.conformance.poker_crosscheck import expected_settlement
from tablecert.errors import RoundLogError
from tablecert.games.caribbean_stud import payouts
from tablecert.games.q_poker import play_values
from tablecert.games.settle import per_unit
from tablecert.poker import ordering
from tablecert.rounds.audit import audit_rounds
from tablecert.rounds.log import read_rounds
from tablecert.rounds.simulate import colex_indices, write_rounds

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "rounds"
CASINO_A = ROOT / "fixtures" / "configs" / "caribbean-stud.casino-a.toml"
runner = CliRunner()

Q_HEADER = (
    "table_id,round_id,timestamp,dealer,upcard,meter_before,meter_after,events,seat,cards,"
    "decision,pair_plus_bet,play_bet,pair_plus_paid,play_paid\n"
)
# Hand-worked against the statute (order 89/2004): dealer Q-7-3 qualifies (Art. 9(4)).
#  seat 1: pair of 9s beats Q-high: 多寶 pair 1 to 1 (+10), 與莊荷博彩 1 to 1 (+20).
#  seat 2: K-Q-J straight: 多寶 6 to 1 (+60), 與莊荷博彩 3 to 2 (+15).
#  seat 3: folds 7-5-2: loses half the bet (-5), 多寶 high card loses (-10).
Q_ROUND = (
    "T9,1,2026-03-01T10:00:00Z,Qs 7d 3c,,,,,1,9h 9d 4s,follow,10,20,10,20\n"
    "T9,1,2026-03-01T10:00:00Z,Qs 7d 3c,,,,,2,Ks Qh Jd,follow,10,10,60,15\n"
    "T9,1,2026-03-01T10:00:00Z,Qs 7d 3c,,,,,3,7s 5h 2c,fold,10,10,-10,-5\n"
)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _audit(path: Path, game: str, rules: object = None):  # type: ignore[no-untyped-def]
    return audit_rounds([path], ordering(game, rules))  # type: ignore[arg-type]


def test_hand_worked_q_poker_round_passes(tmp_path: Path) -> None:
    result = _audit(_write(tmp_path, "q.csv", Q_HEADER + Q_ROUND), "q-poker")
    assert (result.verdict, result.rounds, result.seats) == ("pass", 1, 3)
    assert result.paid == {"pair_plus": 60, "play": 30}
    assert result.due == {"pair_plus": 60, "play": 30}
    straight = result.by_article["第九條(七)(3) play"]
    assert (straight.spots, straight.paid, straight.differences) == (1, 15, 0)


def test_mis_settled_straight_is_named(tmp_path: Path) -> None:
    text = Q_HEADER + Q_ROUND.replace("Ks Qh Jd,follow,10,10,60,15", "Ks Qh Jd,follow,10,10,60,10")
    result = _audit(_write(tmp_path, "q.csv", text), "q-poker")
    assert result.verdict == "fail"
    (f,) = result.findings
    assert (f.round_id, f.seat, f.spot, f.article, f.paid, f.due) == (
        "1",
        2,
        "play",
        "第九條(七)(3)",
        10,
        15,
    )
    assert f.line == 3
    assert "win with straight" in f.detail


def test_suit_decided_showdown_named(tmp_path: Path) -> None:
    # equal ranks K-K-5; the kicker's suit decides (Art. 8(5)): 5s beats 5h, the player wins
    text = Q_HEADER + "T9,7,2026-03-01T10:00:00Z,Kd Kc 5h,,,,,1,Kh Ks 5s,follow,0,10,0,-10\n"
    result = _audit(_write(tmp_path, "q.csv", text), "q-poker")
    (f,) = result.findings
    assert (f.paid, f.due, f.article) == (-10, 10, "第九條(七)(4)")
    assert "decided by suit (第八條(五))" in f.detail


def test_duplicated_card_is_a_deck_finding(tmp_path: Path) -> None:
    text = Q_HEADER + Q_ROUND.replace("7s 5h 2c", "7d 5h 2c")
    result = _audit(_write(tmp_path, "q.csv", text), "q-poker")
    (f,) = result.findings
    assert (f.kind, f.seat, f.article) == ("deck", 0, "第七條")
    assert "7d dealt twice" in f.detail


def test_void_round_returns_every_bet(tmp_path: Path) -> None:
    """Art. 11(1): a misdealt round is void (here only 2 dealer cards were dealt): every spot
    must be paid 0; a stake taken is named with the article."""
    void = "T9,2,2026-03-01T10:00:00Z,Qs 7d,,,,misdeal,1,9h 9d,follow,10,20,0,0\n"
    assert _audit(_write(tmp_path, "v.csv", Q_HEADER + Q_ROUND + void), "q-poker").verdict == "pass"
    taken = void.replace(",0,0\n", ",0,-20\n")
    result = _audit(_write(tmp_path, "w.csv", Q_HEADER + Q_ROUND + taken), "q-poker")
    (f,) = result.findings
    assert (f.round_id, f.spot, f.article, f.paid, f.due) == (
        "2",
        "play",
        "第十一條(一)",
        -20,
        0,
    )
    assert result.void_rounds == 1
    short = Q_ROUND.replace("Qs 7d 3c", "Qs 7d")  # not void: the hand size is an input error
    with pytest.raises(RoundLogError, match="dealer: a q-poker hand has 3 cards, got 2"):
        _audit(_write(tmp_path, "x.csv", Q_HEADER + short), "q-poker")


def test_csv_and_jsonl_read_the_same_rounds(tmp_path: Path) -> None:
    csv_path = _write(tmp_path, "q.csv", Q_HEADER + Q_ROUND)
    record = {
        "table_id": "T9",
        "round_id": "1",
        "timestamp": "2026-03-01T10:00:00Z",
        "dealer": "Qs 7d 3c",
        "seats": [
            {"seat": 1, "cards": ["9h", "9d", "4s"], "decision": "follow",
             "bets": {"pair_plus": 10, "play": 20}, "paid": {"pair_plus": 10, "play": 20}},
            {"seat": 2, "cards": "Ks Qh Jd", "decision": "follow",
             "bets": {"pair_plus": 10, "play": 10}, "paid": {"pair_plus": 60, "play": 15.0}},
            {"seat": 3, "cards": "7s 5h 2c", "decision": "fold",
             "bets": {"pair_plus": "10", "play": "10"}, "paid": {"pair_plus": -10, "play": "-5"}},
        ],
    }  # fmt: skip
    jsonl = tmp_path / "q.jsonl.gz"
    jsonl.write_bytes(gzip.compress((json.dumps(record) + "\n").encode()))
    (a,), (b,) = list(read_rounds(csv_path, "q-poker")), list(read_rounds(jsonl, "q-poker"))
    for name in ("round_id", "dealer", "seat_number", "seat_cards", "decision", "bets", "paid"):
        assert getattr(a, name) == getattr(b, name), name
    assert _audit(jsonl, "q-poker").verdict == "pass"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (Q_HEADER + Q_ROUND.replace("9h 9d 4s", "9h 9x 4s"), "q.csv:2: cards: '9x' is not a card"),
        (Q_HEADER + Q_ROUND.replace("9h 9d 4s", "9h 9d"), "q.csv:2: cards: a q-poker hand has 3"),
        (Q_HEADER + Q_ROUND.replace(",10,20,10,20", ",10,20,10,2.00001"), "q.csv:2: play_paid:"),
        (Q_HEADER + Q_ROUND.replace(",10,20,10,20", ",10,20,10,NaN"), "q.csv:2: play_paid:"),
        (Q_HEADER + Q_ROUND.replace(",10,20,10,20", ",10,20,10,1e5"), "q.csv:2: play_paid:"),
        (
            Q_HEADER + Q_ROUND.replace("Qs 7d 3c,,,,,2", "Qs 7d 3d,,,,,2"),
            "q.csv:3: dealer: differs",
        ),
        (Q_HEADER + Q_ROUND.replace(",3,7s 5h 2c", ",2,7s 5h 2c"), "q.csv:4: seat: seat 2 appears"),
        (Q_HEADER + Q_ROUND.replace("fold", "stand"), "q.csv:4: decision: 'stand'"),
        (Q_HEADER + Q_ROUND.replace(",,,,,3,", ",,,,jam,3,"), "q.csv:4: events: differs"),
        (
            Q_HEADER + Q_ROUND + Q_ROUND.replace("T9,1,", "T9,2,") + Q_ROUND,
            "q.csv:8: round_id: round '1'",
        ),
        (Q_HEADER + Q_ROUND + Q_ROUND[: Q_ROUND.index("\n") + 1], "q.csv:5: seat: seat 1 appears"),
        (
            Q_HEADER.replace("play_paid", "play_won") + Q_ROUND,
            "q.csv:1: missing column 'play_paid'",
        ),
        (Q_HEADER, "q.csv: no rounds"),
        ("", "q.csv: empty file"),
    ],
)
def test_bad_csv_names_file_line_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, "q.csv", text)
    with pytest.raises(RoundLogError) as err:
        _audit(path, "q-poker")
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"table_id": "T", "table_id": "U"}', "q.jsonl:1: duplicate key"),
        ('{"table_id": "T", "round_id": 1, "timestamp": "t", "dealer": "Qs 7d 3c", "seats": []}',
         "q.jsonl:1: seats: expected a non-empty array"),
        ('{"table_id": "T", "round_id": 1, "timestamp": "t", "dealer": "Qs 7d 3c", "seats": '
         '[{"seat": 1, "cards": "9h 9d 4s", "bets": {"play": NaN}}]}', "q.jsonl:1"),
        ('{"table_id": "T", "round_id": 1, "timestamp": "t", "dealer": "Qs 7d 3c", "seats": '
         '[{"seat": 1, "cards": "9h 9d 4s", "bets": {"ante": 1}}]}', "seats[0].bets: expected"),
        ('{"table_id": "T", "round_id": 1, "timestamp": "t", "dealer": "Qs 7d 3c", "tip": 1}',
         "q.jsonl:1: tip: unknown field"),
    ],
)  # fmt: skip
def test_bad_jsonl_names_file_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    path = _write(tmp_path, "q.jsonl", line + "\n")
    with pytest.raises(RoundLogError) as err:
        _audit(path, "q-poker")
    assert message in str(err.value)


@pytest.mark.parametrize("number", ["1e1", "0.1e2", "1E1", "2.5e0", "1e-1", "-1e1", "0e0"])
def test_json_amounts_with_an_exponent_are_refused_as_written(tmp_path: Path, number: str) -> None:
    """An amount is a decimal as written: a JSON number with an exponent is refused like the
    text "1e5" is, naming the value as the log spells it (the same 10 written 10 is read)."""
    record = (
        '{"table_id": "T", "round_id": 1, "timestamp": "t", "dealer": "Qs 7d 3c", "seats": '
        '[{"seat": 1, "cards": "9h 9d 4s", "decision": "follow", '
        '"bets": {"pair_plus": 10, "play": AMOUNT}, "paid": {"pair_plus": 10, "play": 10}}]}\n'
    )
    path = _write(tmp_path, "q.jsonl", record.replace("AMOUNT", number))
    with pytest.raises(RoundLogError) as err:
        list(read_rounds(path, "q-poker"))
    assert str(err.value) == (
        f"{path}:1: seats[0].play_bet: {number!r} is not an amount (a decimal with at most 4 "
        "places)"
    )
    ((chunk,),) = [
        list(read_rounds(_write(tmp_path, "ok.jsonl", record.replace("AMOUNT", "10.0")), "q-poker"))
    ]
    assert chunk.arrays.bets.tolist() == [[100_000, 100_000]]


def test_truncated_gzip_is_an_error(tmp_path: Path) -> None:
    data = gzip.compress((Q_HEADER + Q_ROUND * 1).encode())
    path = tmp_path / "q.csv.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(RoundLogError, match="corrupt or truncated gzip"):
        _audit(path, "q-poker")


@pytest.mark.parametrize("game", ["q-poker", "caribbean-stud"])
def test_spot_values_agree_with_the_game_engines(game: str) -> None:
    """The one settlement source against the crosscheck's totals and Caribbean's Payouts."""
    order = ordering(game)
    if game == "caribbean-stud":
        p = payouts(order)
        rm = p.raise_multiple
        for cat, name in enumerate(order.categories):
            win = (
                per_unit(order, "ante", "win", name)[0]
                + rm * per_unit(order, "raise", "win", name)[0]
            )
            assert win == p.win[cat] == expected_settlement(order, f"win with {name}", name)
            nq = per_unit(order, "ante", "dealer does not qualify", name)[0]
            nq += rm * per_unit(order, "raise", "dealer does not qualify", name)[0]
            assert nq == p.not_qualifying
            loss = (
                per_unit(order, "ante", "loss", name)[0]
                + rm * per_unit(order, "raise", "loss", name)[0]
            )
            assert loss == p.loss == -3
            assert per_unit(order, "ante", "fold", name)[0] == p.fold == -1
    else:
        expected = {"straight flush": 3, "three of a kind": 2, "straight": Fraction(3, 2)}
        pair_plus = {
            "straight flush": 40,
            "three of a kind": 30,
            "straight": 6,
            "flush": 4,
            "pair": 1,
        }
        for name in order.categories:
            assert per_unit(order, "play", "win", name)[0] == expected.get(name, 1)
            assert per_unit(order, "pair_plus", "", name)[0] == pair_plus.get(name, -1)
            assert per_unit(order, "play", "fold", name)[0] == Fraction(-1, 2)
            assert per_unit(order, "play", "dealer does not qualify", name)[0] == Fraction(1, 2)


@pytest.mark.parametrize("rules", ["q-poker.macau", "q-poker.standard"])
def test_q_poker_follow_values_carry_the_play_bonus_like_the_game_analysis(rules: str) -> None:
    """A follow is worth its outcome plus the category's play bonus whatever the dealer holds
    (q-poker.standard: straight 1, trips 4, straight flush 5), as the game analysis values it;
    a fold never gets the bonus."""
    order = ordering("q-poker", rules)
    v = play_values(order)
    outcomes = {
        "win": None,
        "tie": v.tie,
        "dealer does not qualify": v.not_qualifying,
        "loss": v.loss,
    }
    for c, name in enumerate(order.categories):
        for outcome, base in outcomes.items():
            value = v.win[c] if base is None else base
            assert per_unit(order, "play", outcome, name)[0] == value + v.bonus[c], (outcome, name)
        assert per_unit(order, "play", "fold", name)[0] == v.fold
    if rules == "q-poker.standard":
        assert per_unit(order, "play", "loss", "straight")[0] == v.loss + 1
        assert per_unit(order, "play", "loss", "three of a kind")[0] == v.loss + 4


def test_colex_indices_match_the_core() -> None:
    rng = np.random.default_rng(3)
    hands = np.array([rng.choice(52, 5, replace=False) for _ in range(200)], dtype=np.int64)
    assert colex_indices(hands).tolist() == [_core.colex_index(sorted(h.tolist())) for h in hands]


def _planted(side: Path) -> list[dict[str, object]]:
    return list(json.loads(side.read_text(encoding="utf-8"))["planted"])


@pytest.mark.parametrize(
    ("game", "config", "name", "rounds"),
    [
        ("q-poker", None, "q.csv", 3000),
        ("q-poker", None, "q.jsonl.gz", 800),
        ("caribbean-stud", CASINO_A, "c.jsonl", 2500),
    ],
)
def test_every_planted_error_found_and_no_clean_round_flagged(
    tmp_path: Path, game: str, config: Path | None, name: str, rounds: int
) -> None:
    from tablecert.cli.round_options import round_ordering as _order

    order = _order(game, None, config)
    log = tmp_path / name
    side = write_rounds(log, order, rounds, seed=11, share=0.006)
    planted = _planted(side)
    kinds = {str(p["kind"]) for p in planted}
    assert kinds == set(json.loads(side.read_text())["kinds"]), "every kind planted at least once"
    result = audit_rounds([log], order)
    assert result.flagged == {(str(p["table_id"]), str(p["round_id"])) for p in planted}
    found = {(f.round_id, f.seat, f.spot) for f in result.findings}
    for p in planted:
        assert (p["round_id"], p["seat"], p["spot"]) in found, p
    by_round = {f.round_id: f for f in result.findings}
    for p in planted:
        f = by_round[str(p["round_id"])]
        assert f.article, p
        if p["kind"] == "suit-tie":
            assert "decided by suit" in f.detail
        if p["kind"] == "cap":
            assert f.due == 5000
            assert f.paid is not None
            assert f.paid > 5000
            assert f.article == "第九条(五)(7)"
    assert result.verdict == "fail"


@pytest.mark.parametrize("game", ["q-poker", "caribbean-stud"])
def test_clean_simulated_log_passes(tmp_path: Path, game: str) -> None:
    log = tmp_path / "clean.csv"
    write_rounds(log, ordering(game), 1500, seed=5)
    result = audit_rounds([log], ordering(game))
    assert (result.verdict, result.rounds, dict(result.counts)) == ("pass", 1500, {})
    assert result.paid == result.due


def test_cli_exit_codes(tmp_path: Path) -> None:
    clean = FIXTURES / "q-poker-clean.csv"
    planted = FIXTURES / "q-poker-planted.jsonl"
    ok = runner.invoke(app, ["audit", "rounds", str(clean), "--game", "q-poker", "--json"])
    assert ok.exit_code == 0, ok.output
    doc = json.loads(ok.stdout)
    assert (doc["verdict"], doc["rounds"], doc["schema"]) == (
        "pass",
        60,
        "tablecert.audit-rounds/1",
    )
    bad = runner.invoke(app, ["audit", "rounds", str(planted), "--game", "q-poker"])
    assert bad.exit_code == 1
    assert "verdict: fail" in bad.stdout
    unreadable = _write(tmp_path, "x.csv", "nonsense\n")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tablecert",
            "audit",
            "rounds",
            str(unreadable),
            "--game",
            "q-poker",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "x.csv:1: missing column 'table_id'" in proc.stderr
    assert proc.stdout == ""


def test_fixture_side_files_match_their_logs() -> None:
    for side in sorted(FIXTURES.glob("*.planted.json")):
        log = side.with_name(side.name.removesuffix(".planted.json"))
        doc = json.loads(side.read_text(encoding="utf-8"))
        config = CASINO_A if "casino-a" in log.name else None
        from tablecert.cli.round_options import round_ordering as _order

        result = audit_rounds([log], _order(doc["game"], None, config))
        assert result.flagged == {(p["table_id"], p["round_id"]) for p in doc["planted"]}, log
