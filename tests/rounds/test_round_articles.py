"""Round-audit findings cite the article that decides them, in each statute's own numbering,
and Q Poker's table may have eight seats or more (Art. 2(1))."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tablecert.poker import ordering
from tablecert.rounds.audit import RoundAudit, audit_rounds
from tablecert.rounds.log import void_article

C_HEADER = (
    "table_id,round_id,timestamp,dealer,upcard,meter_before,meter_after,events,seat,cards,"
    "decision,ante_bet,raise_bet,progressive_bet,ante_paid,raise_paid,progressive_paid\n"
)
Q_HEADER = (
    "table_id,round_id,timestamp,dealer,upcard,meter_before,meter_after,events,seat,cards,"
    "decision,pair_plus_bet,play_bet,pair_plus_paid,play_paid\n"
)
# The dealer's A-K-Q-J-9 qualifies (Art. 9(1)) and beats the player's A-K-Q-J-8: Art. 9(4),
# the dealer takes the ante and the raise.
C_LOSS = "T,1,2026-03-01T10:00:00Z,As Kd Qd Jc 9h,As,,,,1,Ah Kc Qh Jd 8c,raise,10,20,0,-10,-20,0\n"


def _audit(tmp_path: Path, name: str, text: str, game: str) -> RoundAudit:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return audit_rounds([path], ordering(game))


def test_a_caribbean_loss_cites_article_9_4(tmp_path: Path) -> None:
    good = _audit(tmp_path, "c.csv", C_HEADER + C_LOSS, "caribbean-stud")
    assert good.verdict == "pass"
    assert {k for k in good.by_article if "ante" in k or "raise" in k} == {
        "第九条(四) ante",
        "第九条(四) raise",
    }
    wrong = C_LOSS.replace(",-10,-20,0\n", ",-10,-10,0\n")  # half the raise taken
    (f,) = _audit(tmp_path, "w.csv", C_HEADER + wrong, "caribbean-stud").findings
    assert (f.spot, f.article, f.rule, f.paid, f.due) == (
        "raise",
        "第九条(四)",
        "play.loss",
        Fraction(-10),
        Fraction(-20),
    )


@pytest.mark.parametrize(
    ("game", "events", "article"),
    [
        ("q-poker", "misdeal", "第十一條(一)"),
        ("q-poker", "void", "第十一條(一)(三)"),
        ("q-poker", "shuffler-failure", "第十一條(五)"),
        ("q-poker", "shuffler-failure;misdeal;exposed-card", "第十一條(一)(五)"),
        ("caribbean-stud", "misdeal", "第十一条(一)"),
        ("caribbean-stud", "void", "第十一条(一)"),
        ("caribbean-stud", "shuffler-failure", "第十一条(四)"),
    ],
)
def test_a_void_round_cites_the_article_of_its_event(
    tmp_path: Path, game: str, events: str, article: str
) -> None:
    """Q Poker's Art. 11 numbers its items differently from Caribbean Stud's: (4) there is a
    seat dealt without a bet, (5) the shuffler."""
    if game == "q-poker":
        text = Q_HEADER + f"T,2,2026-03-01T10:00:00Z,Qs 7d,,,,{events},1,9h 9d,follow,10,20,0,-20\n"
    else:
        text = (
            C_HEADER + f"T,2,2026-03-01T10:00:00Z,As Kd,As,,,{events},1,Ah,raise,10,20,0,0,-20,0\n"
        )
    result = _audit(tmp_path, "v.csv", text, game)
    (f,) = result.findings
    assert (f.kind, f.article, f.paid, f.due) == ("settlement", article, Fraction(-20), Fraction(0))
    spot = "play" if game == "q-poker" else "raise"
    assert result.by_article[f"{article} {spot}"].differences == 1
    assert void_article(game, events.split(";")) == article


def _q_round(seats: int) -> str:
    """One Q Poker round dealt from one deck: the dealer 2c 2d 2h, then three cards a seat."""
    cards = [f"{r}{s}" for r in "3456789TJQKA" for s in "cdhs"] + ["2s"]
    rows = []
    for seat in range(1, seats + 1):
        hand = " ".join(cards[3 * (seat - 1) : 3 * seat])
        rows.append(f"T,1,2026-03-01T10:00:00Z,2c 2d 2h,,,,,{seat},{hand},fold,0,10,0,-5\n")
    return Q_HEADER + "".join(rows)


def test_q_poker_tables_may_have_eight_seats_or_more(tmp_path: Path) -> None:
    """Art. 2(1): eight seats or more, the dealer's included: 8 (or 16) player seats dealt from
    one deck are a round like any other; only a deal the deck cannot hold is a deck finding."""
    for seats in (7, 8, 16):
        result = _audit(tmp_path, f"q{seats}.csv", _q_round(seats), "q-poker")
        assert (result.verdict, result.seats, result.findings) == ("pass", seats, [])
    over = _q_round(16) + "T,1,2026-03-01T10:00:00Z,2c 2d 2h,,,,,17,3c 3d 3h,fold,0,10,0,-5\n"
    (f,) = _audit(tmp_path, "q17.csv", over, "q-poker").findings
    assert (f.kind, f.rule, f.article) == ("deck", "game.hand_size", "第七條")
    assert f.detail == "not one deck: 3c, 3d, 3h dealt twice"


def _c_round(seats: int) -> dict[str, Any]:
    cards = [f"{r}{s}" for r in "3456789TJQKA" for s in "cdhs"]
    return {
        "table_id": "T",
        "round_id": "1",
        "timestamp": "2026-03-01T10:00:00Z",
        "dealer": "2c 2d 2h 2s Ac",
        "upcard": "2c",
        "events": [],
        "seats": [
            {
                "seat": seat,
                "cards": " ".join(cards[5 * (seat - 1) : 5 * seat]),
                "decision": "fold",
                "bets": {"ante": 10},
                "paid": {"ante": -10},
            }
            for seat in range(1, seats + 1)
        ],
    }


def test_caribbean_stud_tables_have_exactly_eight_seats(tmp_path: Path) -> None:
    """Art. 2(1) of Caribbean Stud: 八门, the dealer's included: an eighth player seat is a
    finding."""
    seven = _audit(tmp_path, "c7.jsonl", json.dumps(_c_round(7)) + "\n", "caribbean-stud")
    assert seven.verdict == "pass"
    (f,) = _audit(tmp_path, "c8.jsonl", json.dumps(_c_round(8)) + "\n", "caribbean-stud").findings
    assert (f.kind, f.rule, f.article) == ("deck", "table.seats", "第二条(一)")
    assert f.detail == "8 player seats; the table has 7 (table.seats)"
