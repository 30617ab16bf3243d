"""``simulate rounds --game FILE`` of a described game with a ``[progressive]``: every seat bets
the progressive or not at random, the table's meter runs on round by round by the file's terms,
every prize is paid as they say, and ``audit rounds --game FILE`` finds nothing in the log, for
every seed tried; rounds dealt meter hands (royal and straight flushes, several together) pay
the meter's prizes and restart it from the seed. The game is the generic-layout copy of the
Caribbean Stud statute's file (``tests/support/generic_caribbean.py``): the statute's
progressive, described by data alone."""

from __future__ import annotations

import csv
import io
import itertools
import json
from collections import defaultdict
from fractions import Fraction
from pathlib import Path

import pytest

from tablecert.games.stud_settle import StudSettlement
from tablecert.rounds import stud_simulate
from tablecert.rounds.progressive_round import disjoint_meter_hands
from tablecert.rounds.stud_audit import audit_stud_rounds
from tablecert.rounds.stud_simulate import StudPlay, StudSeat, write_stud_rounds
from tablecert.rules import load_rules
from tests.support.cli_support import tablecert
from tests.support.generic_caribbean import generic_caribbean

#: The statute's terms the generic copy keeps (fixtures/rules/caribbean-stud.macau.toml).
METER, SEED, CONTRIBUTION = Fraction(200000), Fraction(50000), Fraction(7, 10)
FIXED = {"four-of-a-kind": 100, "full-house": 75, "flush": 50}
#: Every EVERY-th round of MeterPlay is dealt these meter hands in turn.
EVERY = 25
FORCED = (
    ("royal flush",),
    ("straight flush",),
    ("straight flush", "royal flush"),
    ("straight flush", "straight flush"),
    ("royal flush", "royal flush"),
    ("straight flush", "straight flush", "royal flush"),
)


class MeterPlay(StudPlay):
    """The simulator's play with meter hands forced: every EVERY-th round deals FORCED's next
    hands to random seats (the rest of the deck shuffled to the dealer and the other seats),
    and those seats bet the progressive; every other draw is the simulator's own."""

    def __init__(self, st: StudSettlement, seed: int) -> None:
        super().__init__(st, seed)
        self.dealt = 0
        self.forced: set[int] = set()

    def deal(self, seats: int) -> tuple[list[int], list[list[int]]]:
        dealer, hands = super().deal(seats)
        self.dealt += 1
        self.forced = set()
        if self.dealt % EVERY:
            return dealer, hands
        wanted = FORCED[(self.dealt // EVERY - 1) % len(FORCED)]
        used, chosen = disjoint_meter_hands(wanted, self.rng.randrange)
        n = max(seats, len(chosen))
        rest = [c for c in range(52) if not used >> c & 1]
        self.rng.shuffle(rest)
        dealer = rest[: self.dealer_cards]
        others = iter(
            rest[self.dealer_cards + i * self.player_cards :][: self.player_cards] for i in range(n)
        )
        rows = self.rng.sample(range(n), len(chosen))
        self.forced = {row + 1 for row in rows}
        at = dict(zip(rows, chosen, strict=True))
        return dealer, [at[i] if i in at else next(others) for i in range(n)]

    def progressive_bet(self, seat: StudSeat) -> None:
        super().progressive_bet(seat)
        if seat.number in self.forced:
            assert self.st.progressive is not None
            seat.stakes["progressive"] = self.st.progressive.bet


def _rows(log: Path) -> dict[str, list[dict[str, str]]]:
    """A CSV log's seat rows by round id, in the log's order."""
    rounds: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in csv.DictReader(io.StringIO(log.read_text(encoding="utf-8"))):
        rounds[row["round_id"]].append(row)
    return rounds


def _meter_by_the_terms(rounds: dict[str, list[dict[str, str]]]) -> tuple[int, int]:
    """The log's meter read against the statute's terms without the package: every round
    starts where the previous one ended (the first at the file's meter), with the same meter
    on every seat row; a round without a royal or straight flush grows by 7/10 of its
    progressive bets and pays the fixed prizes less the bet; a royal takes the whole meter
    (shared, in cents, after the straight flushes' 10% each of the meter before) and the meter
    restarts from the seed plus the round's contributions. Returns the rounds with a royal and
    with a straight flush."""
    previous, royal_rounds, flush_rounds = METER, 0, 0
    for round_id, rows in rounds.items():
        before = {Fraction(r["meter_before"]) for r in rows}
        after = {Fraction(r["meter_after"]) for r in rows}
        assert before == {previous}, round_id
        assert len(after) == 1, round_id
        meter = previous
        (after_round,) = after
        bets = sum((Fraction(r["progressive_bet"]) for r in rows), Fraction(0))
        cat = {r["seat"]: _category(r["cards"]) for r in rows if Fraction(r["progressive_bet"])}
        flushes = [s for s, c in cat.items() if c == "straight flush"]
        royals = [s for s, c in cat.items() if c == "royal flush"]
        flush_prize = int(meter / 10 * 100) / Fraction(100)
        left = meter - flush_prize * len(flushes)
        royal_prize = int(left / max(len(royals), 1) * 100) / Fraction(100)
        for r in rows:
            stake, paid = Fraction(r["progressive_bet"]), Fraction(r["progressive_paid"])
            if not stake:
                assert paid == 0, round_id
                continue
            category = cat[r["seat"]]
            prize = {"straight flush": flush_prize, "royal flush": royal_prize}.get(
                category, Fraction(FIXED.get(category.replace(" ", "-"), 0))
            )
            assert paid == prize - stake, (round_id, r["seat"], category)
        if royals:
            assert after_round == SEED + CONTRIBUTION * bets, round_id
        else:
            assert after_round == left + CONTRIBUTION * bets, round_id
        royal_rounds += bool(royals)
        flush_rounds += bool(flushes)
        previous = after_round
    return royal_rounds, flush_rounds


SUITS = "cdhs"
RANKS = "23456789TJQKA"


def _category(cards: str) -> str:
    """A five-card hand's category as far as the progressive pays it (the reference reading,
    by the cards' text)."""
    ranks = sorted((RANKS.index(c[0]) for c in cards.split()), reverse=True)
    suited = len({c[1] for c in cards.split()}) == 1
    wheel = ranks == [12, 3, 2, 1, 0]
    straight = wheel or all(ranks[i] - ranks[i + 1] == 1 for i in range(4))
    counts = sorted((ranks.count(r) for r in set(ranks)), reverse=True)
    if straight and suited:
        return "royal flush" if ranks[0] == 12 and not wheel else "straight flush"
    if counts[0] == 4:
        return "four of a kind"
    if counts[:2] == [3, 2]:
        return "full house"
    return "flush" if suited else "other"


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_a_simulated_log_with_the_progressive_is_audited_clean_for_every_seed(
    tmp_path: Path, seed: int
) -> None:
    """Random play, the progressive bet at random: the meter runs on by the file's terms, some
    fixed prizes are paid, and the audit finds nothing, accounting for every round's meter."""
    game = load_rules(generic_caribbean(tmp_path))
    log = write_stud_rounds(tmp_path / "sim.csv", game, 1500, seed=seed)
    rounds = _rows(log)
    assert len(rounds) == 1500
    _meter_by_the_terms(rounds)
    rows = [r for rs in rounds.values() for r in rs]
    betting = [r for r in rows if Fraction(r["progressive_bet"])]
    assert 0.4 < len(betting) / len(rows) < 0.6  # each seat bets or not, equally likely
    assert any(Fraction(r["progressive_paid"]) > 0 for r in betting)  # a prize paid
    result = audit_stud_rounds([log], game)
    assert (result.verdict, dict(result.counts), result.rounds) == ("pass", {}, 1500)
    assert result.meter.rounds == 1500
    assert result.meter.not_logged == 0
    assert result.meter.contributions == CONTRIBUTION * len(betting)


@pytest.mark.parametrize("name", ["sim.csv", "sim.jsonl"])
def test_meter_prizes_are_paid_and_the_meter_restarts_as_the_file_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Rounds dealt royal and straight flushes (alone, together, several of each): each paid
    by the file's terms, the meter falling by what it paid and restarting from the seed after
    a royal, running on across every round; the audit finds nothing and accounts for every
    meter prize, several winners and restart."""
    monkeypatch.setattr(stud_simulate, "StudPlay", MeterPlay)
    game = load_rules(generic_caribbean(tmp_path))
    log = write_stud_rounds(tmp_path / name, game, 600, seed=8)
    result = audit_stud_rounds([log], game)
    assert (result.verdict, dict(result.counts), result.rounds) == ("pass", {}, 600)
    forced = 600 // EVERY
    assert result.meter.rounds == 600
    assert result.meter.rounds_with_meter_prizes >= forced
    assert result.meter.several_winners >= forced // 2
    assert result.meter.restarts >= forced * 4 // 6  # FORCED: four in six deal a royal
    if name.endswith(".csv"):
        royal_rounds, flush_rounds = _meter_by_the_terms(_rows(log))
        assert royal_rounds >= forced * 4 // 6
        assert flush_rounds >= forced * 4 // 6
    else:
        records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
        assert records[0]["meter_before"] == "200000"
        for one, two in itertools.pairwise(records):
            assert two["meter_before"] == one["meter_after"]


def test_the_same_seed_gives_the_same_bytes_and_the_cli_log_audits_clean(tmp_path: Path) -> None:
    game = generic_caribbean(tmp_path)
    paths = {}
    for folder, seed in (("a", "5"), ("b", "5"), ("c", "6")):
        path = tmp_path / folder / "log.csv.gz"
        path.parent.mkdir()
        run = tablecert(
            [
                "simulate",
                "rounds",
                "--game",
                str(game),
                "--rounds",
                "1000",
                "--seed",
                seed,
                "-o",
                str(path),
            ]
        )
        assert run.code == 0, run.stderr
        paths[folder] = path.read_bytes()
    assert paths["a"] == paths["b"] != paths["c"]
    run = tablecert(
        ["audit", "rounds", "--game", str(game), str(tmp_path / "a" / "log.csv.gz"), "--json"]
    )
    assert run.code == 0, run.stdout + run.stderr
    result = json.loads(run.stdout)
    assert (result["verdict"], result["rounds"], result["findings_by_kind"]) == ("pass", 1000, {})
    assert result["progressive"]["meter"]["rounds_checked"] == 1000
