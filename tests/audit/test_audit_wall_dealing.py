"""Dealt outcomes of automatic mahjong tables: the exact laws of the hand statistics, the
deal of Art. 3 through the mahjong engine, and the audit catching clumpy walls."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from math import comb
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from tablecert import _core, mahjong
from tablecert.audit import audit_shuffler
from tablecert.audit.options import STATISTICS
from tablecert.audit.simulate import HEADER, write_log
from tablecert.audit.wall_dealing import hand_counts, mahjong_dealer, statistic_of
from tablecert.cli import app
from tablecert.errors import AuditError
from tests.reference import wall_dealing_reference as ref

TRAD_TILES = _core.tile_types("traditional")
SIMPLE_TILES = _core.tile_types("simple")
FULL = {
    "mahjong136": [t for t in TRAD_TILES for _ in range(4)],
    "mahjong112": [t for t in SIMPLE_TILES for _ in range(4)],
}


@pytest.mark.parametrize("which", STATISTICS)
@pytest.mark.parametrize("size", [4, 5, 6])
def test_law_matches_brute_force_on_a_tiny_deck(which: str, size: int) -> None:
    """Five tile types (two honours) x 4 copies: every hand listed by the reference."""
    names = ["1m", "2m", "9s", "E", "Gd"]
    tiles = [_core.parse_tiles(n)[0] for n in names]
    assert hand_counts(tiles, size, which) == ref.brute_counts(names, size, which)


def test_laws_of_the_full_sets_are_exact() -> None:
    for tiles in (TRAD_TILES, SIMPLE_TILES):
        for size in (4, 5, 13, 14):
            for which in STATISTICS:
                assert sum(hand_counts(tiles, size, which).values()) == comb(4 * len(tiles), size)
    # Honours are hypergeometric: 28 honour tiles of 136, 13 drawn.
    honours = hand_counts(TRAD_TILES, 13, "honours")
    assert len(honours) == 14
    for k, ways in honours.items():
        assert ways == comb(28, k) * comb(108, 13 - k)
    # The simple game's only honour is 發: at most 4 of the 112 tiles.
    assert hand_counts(SIMPLE_TILES, 5, "honours") == {
        k: comb(4, k) * comb(108, 5 - k) for k in range(5)
    }
    types = hand_counts(TRAD_TILES, 13, "types")
    assert (min(types), max(types)) == (4, 13)
    assert types[13] == comb(34, 13) * 4**13  # all distinct: 13 types, any copy of each
    # 13 tiles of 4 types: 4+4+4+1, 4+4+3+2 or 4+3+3+3 copies.
    assert types[4] == (
        comb(34, 3) * 31 * 4 + comb(34, 2) * 32 * 4 * 31 * 6 + 34 * comb(33, 3) * 4**3
    )
    pairs = hand_counts(TRAD_TILES, 14, "pairs")
    assert (min(pairs), max(pairs)) == (0, 7)
    assert pairs[0] == comb(34, 14) * 4**14


def test_law_agrees_with_simulation() -> None:
    """Loose check: 20,000 random 13-tile hands against the exact law (chi-square)."""
    rng = random.Random(11)
    exact = hand_counts(TRAD_TILES, 13, "pairs")
    seen = np.zeros(max(exact) + 1, dtype=np.int64)
    for _ in range(20_000):
        seen[statistic_of(rng.sample(FULL["mahjong136"], 13), "pairs")] += 1
    probs = np.array([exact.get(v, 0) for v in range(len(seen))]) / comb(136, 13)
    keep = probs * 20_000 >= 5
    expected = probs[keep] * 20_000
    x2 = float(np.sum((seen[keep] - expected) ** 2 / expected))
    assert stats.chi2.sf(x2, int(keep.sum()) - 1) > 1e-4
    assert seen[~keep].sum() < 10


@pytest.mark.parametrize(
    ("deck", "game", "sizes"),
    [
        ("mahjong136", "mahjong-traditional", [14, 13, 13, 13]),
        ("mahjong112", "mahjong-simple", [5, 4, 4, 4]),
    ],
)
def test_dealer_deals_as_the_engine(deck: str, game: str, sizes: list[int]) -> None:
    dealer = mahjong_dealer(deck)
    assert dealer.seats == ("E", "S", "W", "N")
    assert [len(p) for p in dealer.positions] == sizes
    assert dealer.law.hand_names[0].startswith("East (dealer)")
    rng = random.Random(5)
    wall = rng.sample(FULL[deck], len(FULL[deck]))
    engine = mahjong.deal(game, wall, dealer.dice)
    assert [list(h) for h in dealer.deal(wall)] == [list(engine.hands[s]) for s in dealer.seats]
    # Each hand's law adds up to one; the dealer's (one tile more) differs from the others'.
    for h in range(4):
        assert sum(dealer.law.of_hand(h)) == 1
    assert dealer.law.of_hand(0) != dealer.law.of_hand(1) == dealer.law.of_hand(3)
    assert len(dealer.law.categories) == len(dealer.law.of_hand(0))
    hand = dealer.deal(wall)[1]
    assert dealer.law.categories[dealer.category(hand)] == f"{len(set(hand))} tile types"
    # Other dice move the break, not the law; fewer players deal fewer hands.
    other = mahjong_dealer(deck, "pairs", dice=[1] * len(dealer.dice), players=["E", "W"])
    assert other.seats == ("E", "W")
    assert other.positions[0] != dealer.positions[0]
    with pytest.raises(AuditError, match="wall statistic 'colours'"):
        mahjong_dealer(deck, "colours")
    with pytest.raises(AuditError, match="not a mahjong wall"):
        mahjong_dealer("cards52")


def _write_walls(
    path: Path, deck: str, walls: int, shuffle: Callable[[list[int]], list[int]]
) -> Path:
    """A log of ``walls`` walls, each ``shuffle`` applied to the sorted set (a table whose
    input is always the same order)."""
    sorted_wall = FULL[deck]
    with path.open("w", encoding="utf-8") as f:
        f.write(HEADER)
        for i in range(walls):
            out = shuffle(list(sorted_wall))
            codes = " ".join(_core.tile_code(t) for t in out)
            f.write(f"T-1,{i},{i + 1},{codes},\n")
    return path


def _riffle(rng: random.Random) -> Callable[[list[int]], list[int]]:
    """One Gilbert-Shannon-Reeds riffle."""

    def shuffle(wall: list[int]) -> list[int]:
        cut = sum(rng.random() < 0.5 for _ in wall)
        left, right, out = wall[:cut], wall[cut:], []
        while left or right:
            if rng.random() < len(left) / (len(left) + len(right)):
                out.append(left.pop(0))
            else:
                out.append(right.pop(0))
        return out

    return shuffle


def _dealt(result: object) -> tuple[str, float]:
    tests = result.battery.tests  # type: ignore[attr-defined]
    dealt = next(t for t in tests if t.key == "dealt")
    return dealt.verdict, dealt.p_value


@pytest.mark.parametrize("deck", ["mahjong136", "mahjong112"])
def test_audit_deals_walls_and_catches_clumps(tmp_path: Path, deck: str) -> None:
    fair = write_log(tmp_path / "fair.csv.gz", "fair", 2_000, deck=deck, seed=8)
    result = audit_shuffler([fair], deck)
    verdict, p = _dealt(result)
    assert verdict == "pass"
    assert p > 0.01
    assert "4 hands tested" in next(t.detail for t in result.battery.tests if t.key == "dealt")
    assert result.passed
    # No dealt test when asked not to.
    keys = [t.key for t in audit_shuffler([fair], deck, wall_statistic=None).battery.tests]
    assert "dealt" not in keys
    # A table that riffles the same sorted wall once: the walls are no longer uniform, and the
    # hands hold too few tile types. The dealt test alone rejects it.
    rng = random.Random(21)
    riffled = _write_walls(tmp_path / "riffle1.csv", deck, 300, _riffle(rng))
    result = audit_shuffler([riffled], deck, input_order="none")
    verdict, p = _dealt(result)
    assert verdict == "fail"
    assert p < 1e-10
    assert "dealt" in result.battery.rejected
    # An unshuffled (sorted) wall: every hand is a few full types.
    sorted_log = _write_walls(tmp_path / "sorted.csv", deck, 50, lambda w: w)
    assert _dealt(audit_shuffler([sorted_log], deck, input_order="none"))[0] == "fail"


def test_cli_runs_the_dealt_test_for_walls(tmp_path: Path) -> None:
    log = write_log(tmp_path / "walls.csv", "fair", 500, deck="mahjong112", seed=2)
    runner = CliRunner()
    command = ["audit", "shuffler", str(log), "--deck", "mahjong112", "--wall-statistic"]
    out = runner.invoke(app, [*command, "pairs", "--json"])
    assert out.exit_code == 0, out.output
    dealt = next(t for t in json.loads(out.stdout)["tests"] if t["key"] == "dealt")
    assert dealt["verdict"] == "pass"
    out = runner.invoke(app, [*command, "none", "--json"])
    assert out.exit_code == 0, out.output
    assert "dealt" not in [t["key"] for t in json.loads(out.stdout)["tests"]]
    out = runner.invoke(app, [*command, "odd"])
    assert out.exit_code == 2
    assert "wall-statistic" in out.output
