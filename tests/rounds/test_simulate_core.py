"""Round logs of clean play made in the core (``simulate rounds`` without planted errors):
every round re-settled by the audit (an independent settlement, rounds/audit.py) matches,
void rounds and rounds with several meter prizes included; the dealing follows the exact
category law; the bytes depend on the seed alone, not on the blocks asked for or the format."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tablecert.poker import ordering
from tablecert.rounds import simulate
from tablecert.rounds.audit import audit_rounds
from tablecert.rounds.hold import HoldParameters

GAMES = [
    ("q-poker", None),
    ("q-poker", "q-poker.standard"),
    ("caribbean-stud", None),
    ("caribbean-stud", "caribbean-stud.standard"),
]


@pytest.mark.parametrize(("game", "rules"), GAMES, ids=[f"{g}-{r or 'statute'}" for g, r in GAMES])
def test_every_round_the_core_writes_is_settled_by_the_rules(
    tmp_path: Path, game: str, rules: str | None
) -> None:
    order = ordering(game, rules)
    log = tmp_path / "clean.csv.gz"
    side = simulate.write_rounds(log, order, 6000, seed=3)
    assert '"planted": []' in side.read_text(encoding="utf-8")
    result = audit_rounds([log], order)
    assert (result.verdict, result.rounds, dict(result.counts)) == ("pass", 6000, {})
    assert result.paid == result.due
    assert 0 < result.void_rounds < 60  # 0.2% of the rounds, everything returned
    if game == "caribbean-stud":
        assert result.meter.rounds == 6000
        assert result.meter.several_winners > 0  # 0.2% dealt with several meter prizes


def test_many_meter_prizes_and_restarts_settle_by_the_statute(tmp_path: Path) -> None:
    order = ordering("caribbean-stud", None)
    log = tmp_path / "prizes.jsonl"
    simulate.write_rounds(log, order, 3000, seed=5, multi_share=0.3)
    result = audit_rounds([log], order)
    assert (result.verdict, dict(result.counts)) == ("pass", {})
    assert result.meter.several_winners > 300
    assert result.meter.restarts > 100
    assert result.meter.meter_prizes > 0


def test_csv_and_json_lines_hold_the_same_rounds(tmp_path: Path) -> None:
    order = ordering("caribbean-stud", None)
    csv, jsonl = tmp_path / "a.csv", tmp_path / "a.jsonl"
    simulate.write_rounds(csv, order, 2000, seed=9)
    simulate.write_rounds(jsonl, order, 2000, seed=9)
    a, b = audit_rounds([csv], order), audit_rounds([jsonl], order)
    assert (a.rounds, a.seats, a.bets, a.paid, a.void_rounds) == (
        b.rounds,
        b.seats,
        b.bets,
        b.paid,
        b.void_rounds,
    )
    assert len(csv.read_text().splitlines()) == a.seats + 1  # a row per seat, the header
    assert len(jsonl.read_text().splitlines()) == a.rounds  # a record per round


def test_the_bytes_depend_on_the_seed_alone() -> None:
    order = ordering("q-poker", None)
    whole = simulate.core_simulator(order, 11).block(5000)
    parts = simulate.core_simulator(order, 11)
    assert parts.block(1000) + parts.block(2500) + parts.block(1500) == whole
    assert parts.done == 5000
    members = simulate.core_simulator(order, 11).block(5000, 1)
    assert gzip.decompress(members) == whole
    assert members.count(b"\x1f\x8b\x08") >= 2  # one gzip member per 4,096 rounds
    assert simulate.core_simulator(order, 12).block(5000) != whole
    assert whole.startswith(b"table_id,round_id,timestamp,dealer,upcard,")


@pytest.mark.parametrize("game", ["q-poker", "caribbean-stud"])
def test_the_core_deals_hands_by_the_exact_category_law(tmp_path: Path, game: str) -> None:
    # The hold analysis' dealt test (exact category law of every seat's and the dealer's
    # hand, Bonferroni): without the deals of several meter prizes, which are not random by
    # design, the dealing is a fair deck's. Calibrated at 10^-4 (two seeds' false alarms).
    order = ordering(game, None)
    log = tmp_path / "dealt.csv.gz"
    simulate.write_rounds(log, order, 40_000, seed=21, multi_share=0.0)
    result = audit_rounds([log], order, hold=HoldParameters())
    assert result.hold is not None
    p = result.hold.dealt.check.p_value
    assert p is not None
    assert p > 1e-4, result.hold.dealt.check.detail


def test_planted_errors_are_still_the_python_simulators(tmp_path: Path) -> None:
    order = ordering("q-poker", None)
    log = tmp_path / "planted.csv"
    side = simulate.write_rounds(log, order, 1500, seed=5, share=0.01, kinds=("straight",))
    assert '"kind": "straight"' in side.read_text(encoding="utf-8")
    result = audit_rounds([log], order)
    assert result.verdict == "fail"
