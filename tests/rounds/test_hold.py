"""Hold analysis: exact expectation and variance against a slow enumeration of the dealer's
unseen cards, calibration on seeded clean logs, and detection of a systematic mis-settlement
and of a deal biased towards the dealer."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from fractions import Fraction
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from tablecert import _core
from tablecert.cli import app
from tablecert.games.settle import CATEGORY_SHIFT, SettlementTable, per_unit, settlement_table
from tablecert.hand_arrays import key_table
from tablecert.poker import Ordering, ordering
from tablecert.rounds import simulate
from tablecert.rounds.audit import RoundAudit, audit_rounds
from tablecert.rounds.hold import HoldAnalysis, HoldParameters, HoldResult
from tablecert.rounds.log import read_rounds

runner = CliRunner()
SLOW = bool(os.environ.get("TABLECERT_SLOW"))


def _cards(text: str) -> list[int]:
    return [int(c) for c in _core.parse_hand(text)]


# --- the slow, obviously correct reference ------------------------------------------------


_TABLES: dict[str, SettlementTable] = {}
_UNITS: dict[tuple[str, str, str, str], Fraction] = {}


def _table(order: Ordering) -> SettlementTable:
    key = order.rules.sha256
    if key not in _TABLES:
        _TABLES[key] = settlement_table(order)
    return _TABLES[key]


def _per_unit(order: Ordering, spot: str, outcome: str, category: str) -> Fraction:
    key = (order.rules.sha256, spot, outcome, category)
    if key not in _UNITS:
        _UNITS[key] = per_unit(order, spot, outcome, category)[0]
    return _UNITS[key]


def _outcome(order: Ordering, key: int, dealer_key: int, decision: str) -> str:
    if decision == "fold":
        return "fold"
    if dealer_key < _table(order).threshold:
        return "dealer does not qualify"
    return "win" if key > dealer_key else "loss" if key < dealer_key else "tie"


def _seat_net(
    order: Ordering, key: int, outcome: str, bets: dict[str, Fraction]
) -> dict[str, Fraction]:
    """One seat's net result per spot, straight from the statute's per-unit values."""
    t = _table(order)
    category = order.categories[key >> CATEGORY_SHIFT]
    out = {}
    for spot, bet in bets.items():
        if spot == "progressive":
            continue
        value = bet * _per_unit(order, spot, outcome, category)
        capped = t.maximum_payout > 0 and t.capped[key >> CATEGORY_SHIFT]
        if spot == "raise" and outcome == "win" and capped:
            value = min(value, t.maximum_payout)
        out[spot] = value
    return out


def _reference(
    order: Ordering, rounds: list[dict[str, Any]], decide: Callable[[list[int], int], str]
) -> tuple[dict[str, Fraction], Fraction, dict[str, Fraction], Fraction]:
    """Expected net per spot and the variance of the total, with decisions as logged and
    with ``decide``, by enumerating every completion of every round's dealer hand."""
    kt = key_table(order.game, order.rules)
    size = order.hand_size
    means: tuple[dict[str, Fraction], dict[str, Fraction]] = ({}, {})
    variances = [Fraction(0), Fraction(0)]
    for rnd in rounds:
        upcard = _cards(rnd["upcard"])[0] if rnd.get("upcard") else None
        seats = [(s, _cards(s["cards"])) for s in rnd["seats"]]
        dead = {c for _, hand in seats for c in hand} | ({upcard} if upcard is not None else set())
        rest = [c for c in range(52) if c not in dead]
        fixed = [upcard] if upcard is not None else []
        keys = [kt.key(hand) for _, hand in seats]
        dealer_keys = [
            kt.key([*fixed, *hidden]) for hidden in combinations(rest, size - len(fixed))
        ]
        for rule in (0, 1):
            plays = []
            for seat, hand in seats:
                bets = {k: Fraction(v) for k, v in seat["bets"].items()}
                decision = seat["decision"]
                if rule and decision:
                    decision = decide(hand, upcard if upcard is not None else 0)
                    if order.game == "caribbean-stud":
                        bets["raise"] = 2 * bets["ante"] if decision == "raise" else Fraction(0)
                plays.append((decision, bets))
            net: dict[tuple[int, str], dict[str, Fraction]] = {}
            sums: dict[str, Fraction] = {}
            totals = []
            for dk in dealer_keys:
                total = Fraction(0)
                for i, (key, (decision, bets)) in enumerate(zip(keys, plays, strict=True)):
                    outcome = _outcome(order, key, dk, decision)
                    if (i, outcome) not in net:
                        net[i, outcome] = _seat_net(order, key, outcome, bets)
                    for spot, v in net[i, outcome].items():
                        sums[spot] = sums.get(spot, Fraction(0)) + v
                        total += v
                totals.append(total)
            n = len(totals)
            for spot, v in sums.items():
                means[rule][spot] = means[rule].get(spot, Fraction(0)) + v / n
            m = sum(totals, Fraction(0)) / n
            variances[rule] += sum(((x - m) ** 2 for x in totals), Fraction(0)) / n
    return means[0], variances[0], means[1], variances[1]


def _write_jsonl(path: Path, rounds: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rounds), encoding="utf-8")
    return path


def _analyse(order: Ordering, path: Path, parameters: HoldParameters | None = None) -> HoldResult:
    analysis = HoldAnalysis(order, parameters)
    for chunk in read_rounds(path, order.game):
        everything = np.ones(len(chunk), dtype=bool)
        analysis.add(chunk, everything, np.ones(chunk.seats, dtype=bool))
    return analysis.result()


def _round(rid: int, dealer: str, upcard: str, seats: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "table_id": "T1",
        "round_id": str(rid),
        "timestamp": "2026-03-01T10:00:00Z",
        "dealer": dealer,
        "upcard": upcard,
        "seats": seats,
    }


def _seat(n: int, cards: str, decision: str, **bets: int) -> dict[str, Any]:
    return {"seat": n, "cards": cards, "decision": decision, "bets": bets, "paid": {}}


CARIBBEAN_ROUNDS = [
    # five seats: a raised pair, a fold, a raised flush, a raised junk hand (against the
    # optimal fold), an ace-king fold, against an upcard of 9s
    _round(
        1,
        "9s 2c 3c 4c 5h",
        "9s",
        [
            _seat(1, "7d 7c Kd 9d 4h", "raise", ante=10, raise_=0),
            _seat(2, "2d 5d 8c Jh Qs", "fold", ante=25),
            _seat(3, "Ad Td 6d 3d 2h", "raise", ante=10),
            _seat(4, "3h 4s 6c 8h Ts", "raise", ante=50),
            _seat(5, "As Kh 6h 5s 7c", "fold", ante=10),
        ],
    ),
    # six seats with two equal-rank pairs (a push under rank-only rules)
    _round(
        2,
        "Kh 2d 3d 4d 5d",
        "Kh",
        [
            _seat(1, "7d 7c Kd 9d 4h", "raise", ante=10),
            _seat(2, "7h 7s Kc 9c 4c", "raise", ante=10),
            _seat(3, "Qh Qs 2s 3s 5s", "raise", ante=20),
            _seat(4, "Ah Ac As 8d 8s", "raise", ante=10),
            _seat(5, "Jc Jd Js 6s 9s", "raise", ante=10),
            _seat(6, "Tc 9h 8s 6d 2c", "fold", ante=10),
        ],
    ),
]


def _fix_bets(rounds: list[dict[str, Any]], multiple: int = 2) -> list[dict[str, Any]]:
    for rnd in rounds:
        for seat in rnd["seats"]:
            bets = seat["bets"]
            bets.pop("raise_", None)
            if "ante" in bets:
                bets["raise"] = multiple * bets["ante"] if seat["decision"] == "raise" else 0
    return rounds


Q_ROUNDS = [
    _round(
        1,
        "Qs 7d 3c",
        "",
        [
            _seat(1, "9h 9d 4s", "follow", pair_plus=10, play=20),
            _seat(2, "Ks Qh Jd", "follow", pair_plus=10, play=10),
            _seat(3, "7s 5h 2c", "fold", pair_plus=10, play=10),
            _seat(4, "8s 6h 2d", "follow", play=40),  # follows against the optimal fold
        ],
    ),
    _round(
        2,
        "2s 2d 2h",
        "",
        [
            _seat(2, "Ah Kh Qh", "follow", pair_plus=5, play=10),
            _seat(5, "Qd 4c 3s", "fold", play=10),
            _seat(7, "Jc Tc 9c", "follow", play=10),
        ],
    ),
]


def _decider(order: Ordering) -> Callable[[list[int], int], str]:
    decide = simulate.optimal_decider(order)
    yes, no = ("raise", "fold") if order.game == "caribbean-stud" else ("follow", "fold")

    def one(hand: list[int], upcard: int) -> str:
        hit = decide(np.array([hand], dtype=np.int64), np.array([upcard], dtype=np.int64))[0]
        return yes if hit else no

    return one


@pytest.mark.parametrize(
    ("game", "rules", "rounds"),
    [
        ("caribbean-stud", None, CARIBBEAN_ROUNDS),
        ("caribbean-stud", "caribbean-stud.standard", CARIBBEAN_ROUNDS),
        ("q-poker", None, Q_ROUNDS),
        ("q-poker", "q-poker.standard", Q_ROUNDS),
    ],
)
def test_expectation_and_variance_match_slow_enumeration(
    tmp_path: Path, game: str, rules: str | None, rounds: list[dict[str, Any]]
) -> None:
    order = ordering(game, rules)
    rounds = _fix_bets(json.loads(json.dumps(rounds)))
    result = _analyse(order, _write_jsonl(tmp_path / "r.jsonl", rounds))
    mean, var, mean_opt, var_opt = _reference(order, rounds, _decider(order))
    assert {s.spot: s.expected_net for s in result.spots} == mean
    assert {s.spot: s.optimal_net for s in result.spots} == mean_opt
    assert result.given_decisions.variance == var
    assert result.optimal.variance == var_opt
    assert result.given_decisions.expected == -sum(mean.values())
    assert result.decision_hold == sum(mean_opt.values()) - sum(mean.values())
    assert result.decision_hold > 0  # one seat plays against the optimal decision
    assert result.decisions_off_optimal >= 1
    assert (result.rounds, result.seats) == (2, sum(len(r["seats"]) for r in rounds))


def test_dealer_splits_refuses_bad_input() -> None:
    kt = key_table("caribbean-stud", None)
    out = np.zeros(1, dtype=np.uint64)
    equal = np.zeros(1, dtype=np.uint64)
    ok: dict[str, Any] = {
        "fixed": np.array([0], dtype=np.uint8),
        "dead": np.array([1], dtype=np.uint64),
        "offsets": np.array([0, 1], dtype=np.uint64),
        "thresholds": np.array([5], dtype=np.uint32),
        "below": out,
        "equal": equal,
    }
    kt.dealer_splits(**ok)
    assert int(out[0]) + int(equal[0]) == 0  # no hand is below key 5 (or equal)
    with pytest.raises(ValueError, match="not one of its dealt cards"):
        kt.dealer_splits(**{**ok, "dead": np.array([2], dtype=np.uint64)})
    with pytest.raises(ValueError, match="offsets"):
        kt.dealer_splits(**{**ok, "offsets": np.array([0, 2], dtype=np.uint64)})
    with pytest.raises(ValueError, match="distinct"):
        kt.dealer_splits(**{**ok, "equal": out})


# --- calibration ---------------------------------------------------------------------------


def _z_scores(tmp_path: Path, game: str, logs: int, rounds: int) -> list[float]:
    order = ordering(game, None)
    out = []
    for seed in range(logs):
        path = tmp_path / f"{game}-{seed}.jsonl"
        simulate.write_rounds(path, order, rounds, seed=1000 + seed)
        result = audit_rounds([path], order, hold=HoldParameters())
        assert result.hold is not None
        assert result.hold.decisions_off_optimal == 0
        assert result.hold.decision_hold == 0
        z = result.hold.given_decisions.z
        assert z is not None
        out.append(z)
    return out


def _within_binomial(rejections: int, trials: int, alpha: float) -> bool:
    low, high = stats.binom.interval(0.999, trials, alpha)
    return bool(low <= rejections <= high)


@pytest.mark.parametrize(
    ("game", "logs", "rounds"), [("q-poker", 30, 300), ("caribbean-stud", 16, 300)]
)
def test_clean_logs_are_calibrated(tmp_path: Path, game: str, logs: int, rounds: int) -> None:
    zs = np.array(_z_scores(tmp_path, game, logs, rounds))
    for alpha in (0.1, 0.3):
        rejections = int((2 * stats.norm.sf(np.abs(zs)) < alpha).sum())
        assert _within_binomial(rejections, logs, alpha), (alpha, rejections, zs)


@pytest.mark.slow
@pytest.mark.skipif(not SLOW, reason="long run: set TABLECERT_SLOW=1 (and -m slow)")
@pytest.mark.parametrize("game", ["q-poker", "caribbean-stud"])
def test_clean_logs_are_calibrated_many(tmp_path: Path, game: str) -> None:
    logs = 200
    zs = np.array(_z_scores(tmp_path, game, logs, 500))
    for alpha in (0.01, 0.05, 0.1):
        rejections = int((2 * stats.norm.sf(np.abs(zs)) < alpha).sum())
        assert _within_binomial(rejections, logs, alpha), (alpha, rejections)
    assert stats.kstest(zs, "norm").pvalue > 0.001


# --- detection -----------------------------------------------------------------------------


def test_systematic_mis_settlement_is_detected(tmp_path: Path) -> None:
    """Every winning 與莊荷博彩 paid 20% short: the hold is off its expectation."""
    order = ordering("q-poker", None)
    path = tmp_path / "clean.jsonl"
    simulate.write_rounds(path, order, 2000, seed=7)
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for seat in record["seats"]:
            paid = Fraction(seat["paid"]["play"])
            if paid > 0:
                seat["paid"]["play"] = str(float(paid * Fraction(4, 5)))
        lines.append(json.dumps(record))
    short = tmp_path / "short.jsonl"
    short.write_text("\n".join(lines) + "\n", encoding="utf-8")
    clean = audit_rounds([path], order, hold=HoldParameters())
    result = audit_rounds([short], order, hold=HoldParameters())
    assert clean.hold is not None
    assert result.hold is not None
    assert "hold" not in clean.hold.rejected
    assert result.hold.rejected == ("hold",)
    z = result.hold.given_decisions.z
    assert z is not None
    assert z > 3
    assert result.verdict == "fail"


class _BiasedSimulator(simulate._Simulator):
    """Deals a fresh deck, but deals again with probability 1/2 when the dealer does not
    qualify (``against="qualify"``: the dealer's hands are not random hands) or does not beat
    the first seat (``against="beat"``: the house wins showdowns too often); the settlement
    stays right."""

    against = "qualify"

    def deal(self, kind: str) -> tuple[Any, Any, int] | None:
        while True:
            dealt = super().deal(kind)
            assert dealt is not None
            dealer, hands = int(self.keys(dealt[0][None, :])[0]), self.keys(dealt[1])
            good = dealer >= self.table.threshold
            if self.against == "beat":
                good = good and dealer > int(hands[0])
            if good or self.rng.random() < 0.5:
                return dealt


@pytest.mark.parametrize(("against", "rejected"), [("qualify", "dealt"), ("beat", "hold")])
def test_deal_biased_towards_the_dealer_is_detected(
    tmp_path: Path, against: str, rejected: str
) -> None:
    order = ordering("q-poker", None)
    sim = _BiasedSimulator(order, 11, 0.0, ())
    sim.against = against
    buffer = io.StringIO()
    simulate._write(buffer, sim, 1500, "T1", True, [], None)
    path = tmp_path / "biased.jsonl"
    path.write_text(buffer.getvalue(), encoding="utf-8")
    result = audit_rounds([path], order, hold=HoldParameters())
    assert result.counts == {}  # every round settled as the statute says
    assert result.hold is not None
    assert rejected in result.hold.rejected
    assert result.verdict == "fail"
    if rejected == "hold":
        z = result.hold.given_decisions.z
        assert z is not None
        assert z > 3  # the house held more than the cards say


# --- verdicts and the command line ---------------------------------------------------------


def test_verdicts_follow_power(tmp_path: Path) -> None:
    order = ordering("q-poker", None)
    path = tmp_path / "clean.jsonl"
    simulate.write_rounds(path, order, 1500, seed=3)
    small = _analyse(order, path)
    assert small.verdict == "inconclusive"
    assert any("too few rounds" in r for r in small.reasons)
    coarse = _analyse(order, path, HoldParameters(shift=Fraction(1, 5), effect=0.3))
    assert coarse.given_decisions.power is not None
    assert coarse.given_decisions.power > 0.8
    assert coarse.dealt.conclusive
    assert (coarse.verdict, coarse.rejected) == ("pass", ())


def test_audit_rounds_hold_option(tmp_path: Path) -> None:
    order = ordering("caribbean-stud", None)
    path = tmp_path / "c.jsonl"
    simulate.write_rounds(path, order, 200, seed=5)
    plain = runner.invoke(app, ["audit", "rounds", str(path), "--game", "caribbean-stud"])
    assert plain.exit_code == 0, plain.output
    assert "hold analysis" not in plain.output
    text = runner.invoke(app, ["audit", "rounds", str(path), "--game", "caribbean-stud", "--hold"])
    assert text.exit_code == 3, text.output
    assert "hold analysis: 200 rounds" in text.output or "hold analysis: 19" in text.output
    assert "hold verdict: inconclusive" in text.output
    js = runner.invoke(
        app, ["audit", "rounds", str(path), "--game", "caribbean-stud", "--hold", "--json"]
    )
    assert js.exit_code == 3
    doc = json.loads(js.output)
    assert doc["hold"]["verdict"] == "inconclusive"
    assert doc["hold"]["given_decisions"]["p_value_method"].startswith("normal")
    assert set(doc["hold"]["dealt"]["power"]) >= {"dealer"}
    assert (
        json.loads(
            runner.invoke(
                app, ["audit", "rounds", str(path), "--game", "caribbean-stud", "--json"]
            ).output
        )["hold"]
        is None
    )


def test_audit_rounds_hold_parameters(tmp_path: Path) -> None:
    """--hold-alpha/--hold-power/--hold-shift/--hold-effect reach the analysis (and its JSON);
    out of range, NaN, or given without --hold: usage errors naming the option (exit 2)."""
    order = ordering("q-poker", None)
    path = tmp_path / "q.jsonl"
    simulate.write_rounds(path, order, 200, seed=5)
    base = ["audit", "rounds", str(path), "--game", "q-poker", "--json", "--hold"]
    default = json.loads(runner.invoke(app, base).output)["hold"]
    given = ["--hold-alpha", "0.05", "--hold-power", "0.5", "--hold-shift", "0.3"]
    result = runner.invoke(app, [*base, *given, "--hold-effect", "0.9"])
    assert result.exit_code in (0, 3), result.output
    hold = json.loads(result.output)["hold"]
    shifts = (default["detectable_shift"]["exact"], hold["detectable_shift"]["exact"])
    assert shifts == ("1/100", "3/10")
    assert (hold["power_target"], hold["dealt_effect"]) == ("0.5", "0.9")
    assert hold["alpha"] == "0.05" != default["alpha"]
    # a coarser target needs less power: the required power is reached where it was not
    assert hold["given_decisions"]["power"] > default["given_decisions"]["power"]
    for option, value in (
        ("--hold-alpha", "nan"),
        ("--hold-power", "1"),
        ("--hold-shift", "0"),
        ("--hold-effect", "-0.1"),
    ):
        bad = runner.invoke(app, [*base, option, value])
        assert bad.exit_code == 2, (option, bad.output)
        assert option in bad.output
    alone = runner.invoke(app, [*base[:-1], "--hold-shift", "0.3"])
    assert alone.exit_code == 2
    assert "--hold-shift" in alone.output
    assert "needs --hold" in alone.output


def test_audit_verdict_joins_the_hold(tmp_path: Path) -> None:
    audit = RoundAudit("q-poker", "r", "s", rounds=10)
    assert audit.verdict == "pass"
    order = ordering("q-poker", None)
    path = tmp_path / "q.jsonl"
    simulate.write_rounds(path, order, 50, seed=1)
    audit.hold = _analyse(order, path)
    assert audit.verdict == "inconclusive"
