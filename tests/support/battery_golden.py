"""Golden results of the shuffler battery: every field of every CheckResult (as ``repr``, so a
float must be the same bits to match) on seeded simulated tallies, recorded once from the
battery before its per-batch constants were cached (commit 8096ef9) and kept as a fixture.

Cases: full 10,000-shuffle batches of fair and defective devices, partial and tiny batches
(tests skipped), mahjong decks (with the dealt-wall test), dealt poker hands, input orders that
leave the order tests without data, other levels, a tally with an impossible count, and the
second level over many batches. Each case is simulated by the core from its seed, so only the
results are stored.

Regenerate (only when a figure is meant to change, and say so in the commit):
``.venv/bin/python -m tests.support.battery_golden``
"""

from __future__ import annotations

import dataclasses
import json
import random
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tablecert import _core
from tablecert.audit.battery import BatteryResult, Repeats, Tally, run_battery, second_level
from tablecert.audit.dealing import tally_walls
from tablecert.audit.shuffler import audit_setup
from tablecert.audit.wall_dealing import mahjong_dealer
from tablecert.stats import CheckResult, DealtLaw, dealt_outcomes, gof, pool

GOLDEN = Path(__file__).resolve().parent.parent / "audit" / "data" / "battery_golden.json"


@dataclass(frozen=True)
class Case:
    name: str
    model: str
    decks: int
    seed: int
    batch_size: int = 0
    deck: str = "cards52"
    input_order: str = "logged"
    game: str | None = None
    seats: int = 3
    alpha: float = 0.01
    confidence: float = 0.99
    walls: bool = False  # mahjong: deal each wall and test the hands (as the audit does)
    impossible: bool = False  # add a count where the exact law has probability zero


CASES = (
    Case("fair full batches", "fair", 30_000, 42, batch_size=10_000),
    Case("riffle:7 full batches", "riffle:7", 20_000, 5, batch_size=10_000),
    Case("stuck:50 full batch", "stuck:50", 10_000, 6, batch_size=10_000),
    Case("modulo:8 full batch", "modulo:8", 10_000, 7, batch_size=10_000),
    Case("short-period:1000", "short-period:1000", 10_000, 8, batch_size=10_000),
    Case("shelf:10 partial batches", "shelf:10", 2_500, 9, batch_size=1_000),
    Case("overhand:100", "overhand:100", 3_000, 10, batch_size=3_000),
    Case("off-by-one", "off-by-one", 700, 11),
    Case("riffle:1 tiny", "riffle:1", 10, 12),
    Case("fair below the position floor", "fair", 259, 13),
    Case("fair at the position floor", "fair", 260, 13),
    Case("fair tiny batches", "fair", 12, 14, batch_size=3),
    Case("fair one shuffle", "fair", 1, 15),
    Case("fair two shuffles", "fair", 2, 16),
    Case("no shuffles", "fair", 0, 31),
    Case("fair, second level", "fair", 12_000, 17, batch_size=1_000),
    Case("stuck:150, second level", "stuck:150", 12_000, 18, batch_size=1_000),
    Case("fair, no input order", "fair", 5_000, 19, batch_size=2_500, input_order="none"),
    Case("fair, previous output", "fair", 4_000, 20, input_order="previous"),
    Case("fair at 95%, alpha 0.05", "fair", 3_000, 21, alpha=0.05, confidence=0.95),
    Case("q-poker hands", "fair", 10_000, 22, batch_size=5_000, game="q-poker"),
    Case("caribbean-stud hands", "riffle:4", 6_000, 23, batch_size=3_000, game="caribbean-stud"),
    Case("caribbean-stud few", "fair", 30, 24, game="caribbean-stud", seats=6),
    Case("impossible count", "fair", 2_000, 25, impossible=True),
    Case("mahjong136 fair", "fair", 10_000, 26, batch_size=5_000, deck="mahjong136", walls=True),
    Case("mahjong136 riffle:1", "riffle:1", 300, 27, deck="mahjong136", walls=True),
    Case("mahjong136 tiny", "fair", 169, 28, deck="mahjong136"),
    Case("mahjong112 fair", "fair", 10_000, 29, batch_size=10_000, deck="mahjong112", walls=True),
    Case("mahjong112 tiny", "fair", 5, 30, deck="mahjong112", walls=True),
)


def _fields(r: CheckResult) -> list[str]:
    return [repr(getattr(r, f.name)) for f in dataclasses.fields(r)]


def _battery(b: BatteryResult) -> dict[str, Any]:
    return {
        "shuffles": b.shuffles,
        "alpha": repr(b.alpha),
        "rejected": list(b.rejected),
        "tests": [_fields(t) for t in b.tests],
    }


def _impossible(raw: dict[str, Any]) -> dict[str, Any]:
    """One shuffle with no rising sequence: a count where the Eulerian law is zero."""
    shape, data = raw["rising"]
    table = np.frombuffer(data, dtype="<u8").copy()
    table[0] += 1
    return {**raw, "rising": (shape, table.tobytes())}


def run_case(case: Case) -> dict[str, Any]:
    """Every battery of a case as the audit runs them: one per completed batch (dealt law,
    levels), then the whole tally with the repeats and the dealt walls, then the second level."""
    law: DealtLaw | None = None
    kwargs: dict[str, Any] = {}
    if case.game is not None:
        law, kwargs = audit_setup(
            ["-"], case.deck, "logged", case.game, case.seats, "packets", None
        )
    dealer = mahjong_dealer(case.deck) if case.walls else None
    core = _core.ShuffleAudit(
        case.deck,
        case.input_order,
        batch_size=case.batch_size,
        keep_orders=dealer is not None,
        **kwargs,
    )
    core.add_simulated(case.model, case.decks, case.seed)
    core.finish()
    alpha, confidence = case.alpha, case.confidence
    batches = [
        run_battery(
            Tally.from_core(case.deck, raw), dealt_law=law, alpha=alpha, confidence=confidence
        )
        for raw in core.take_batches()
    ]
    raw = core.tally()
    if case.impossible:
        raw = _impossible(raw)
    extra = []
    if dealer is not None:
        walls = np.zeros((len(dealer.law.hand_names), len(dealer.law.categories)), np.int64)
        tally_walls(dealer, core.take_orders(), case.deck, walls)
        extra.append(dealt_outcomes(walls, dealer.law))
    whole = run_battery(
        Tally.from_core(case.deck, raw),
        repeats=Repeats(*core.repeats()),
        dealt_law=law,
        extra=extra,
        alpha=alpha,
        confidence=confidence,
    )
    return {
        "batches": [_battery(b) for b in batches],
        "whole": _battery(whole),
        "second_level": _fields(second_level(batches)),
    }


def pool_inputs() -> list[tuple[list[int], list[float]]]:
    """Seeded cell laws and counts for :func:`pool` and :func:`gof`: every length to 300,
    totals from 0 to 10^7, cells of probability zero, counts in them too."""
    rng = random.Random(33)
    cases: list[tuple[list[int], list[float]]] = [([], []), ([7], [1.0]), ([0, 5], [1.0, 0.0])]
    for _ in range(300):
        cells = rng.randrange(1, 300)
        weights = [rng.random() ** rng.choice((1, 3, 8)) for _ in range(cells)]
        for _ in range(rng.randrange(0, cells // 4 + 1)):
            weights[rng.randrange(cells)] = 0.0
        if not any(weights):
            weights[0] = 1.0
        total = sum(weights)
        probs = [w / total for w in weights]
        n = rng.choice((0, 1, 4, 5, 6, 20, 100, 1_000, 10**5, 10**7))
        obs = [
            rng.randrange(0, int(2 * n * p) + 2) if p or rng.random() < 0.01 else 0 for p in probs
        ]
        cases.append((obs, probs))
    return cases


def pool_results() -> list[list[Any]]:
    """Each input's :func:`pool` (observed and expected counts) and :func:`gof`, as repr."""
    out = []
    for obs, probs in pool_inputs():
        o, e = pool(obs, probs)
        out.append([repr(o.tolist()), repr(e.tolist()), str(o.dtype), repr(gof(obs, probs))])
    return out


def record() -> dict[str, Any]:
    return {"pool": pool_results(), **{case.name: run_case(case) for case in CASES}}


if __name__ == "__main__":
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(record(), indent=0, ensure_ascii=False) + "\n")
    sys.stdout.write(f"wrote {GOLDEN}\n")
