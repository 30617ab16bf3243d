"""Caribbean Stud par sheet: ante/raise under optimal play knowing the dealer's upcard.

The core decides raise or fold for every one of the 2,598,960 x 47 situations from the exact
split of its 163,185 dealer completions (never enumerating them) and sums the outcomes by the
player's category. From those sums: house edge, element of risk, the full return table, the
share of showdowns decided only by suit, the royal option and the per-round cap as curves, the
progressive side bet, and the decision table for export. Results are cached on disk.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import numpy as np

from tablecert import _core
from tablecert.distributed import Executor
from tablecert.games.cache import AnalysisCache, Entry, Source
from tablecert.games.common import (
    AnalysisError,
    OutcomeRow,
    ParSheet,
    cache_key,
    common_denominator,
    expected_value,
    fraction_json,
    pay_text,
    per_category,
    qualifier_ranks,
    rational,
)
from tablecert.games.progressive import Progressive, progressive
from tablecert.games.stud import engine_game
from tablecert.io.outputs import atomic_text, output_folder, write_atomic
from tablecert.poker import (
    Ordering,
    RulesSource,
    format_hand,
    ordering,
    parse_hand,
)
from tablecert.rules.stud import StudDescription, describe

HANDS = comb(52, 5)
UPCARDS = 47
COMPLETIONS = comb(46, 4)
SITUATIONS = HANDS * UPCARDS
DEALS = SITUATIONS * COMPLETIONS  # 19,933,230,517,200
ProgressCallback = Callable[[int, int], None]
STRATEGY_FILES = (
    "caribbean-strategy.txt",
    "caribbean-decisions.u64le",
    "caribbean-upcard-dependent.csv",
)
if TYPE_CHECKING:  # numpy.typing costs 25 ms of import: for the checker only
    import numpy.typing as npt

    HighCardTables = tuple[
        npt.NDArray[np.uint32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.intp],
        npt.NDArray[np.uint64],
        npt.NDArray[np.uint64],
    ]

R = TypeVar("R")
SHARDS_PER_THREAD = 1  # parts of the hands, all upcards: one per worker thread, none idle


@dataclass(frozen=True)
class Payouts:
    """Every outcome's value per ante, exact, from the rule file (cap and royal applied)."""

    fold: Fraction
    not_qualifying: Fraction
    tie: Fraction
    loss: Fraction
    raise_multiple: Fraction
    ante_win: Fraction
    raise_pays: tuple[Fraction, ...]
    capped: tuple[bool, ...]
    maximum_payout: Fraction
    ante: Fraction
    royal_range: tuple[Fraction, Fraction]
    articles: dict[str, str] = field(compare=False)

    def raise_win(self, category: int, pay: Fraction | None = None) -> Fraction:
        """The raise's payout per ante when the player wins with this category."""
        won = self.raise_multiple * (self.raise_pays[category] if pay is None else pay)
        if self.capped[category] and self.maximum_payout > 0:
            won = min(won, self.maximum_payout / self.ante)
        return won

    def pays_on_win(self, category: int) -> str:
        """The pay of a win as par sheets state it: "ante 1 to 1, raise 100 to 1"."""
        stated = self.raise_pays[category]
        capped = " (capped)" if self.raise_win(category) < self.raise_multiple * stated else ""
        return f"ante {pay_text(self.ante_win)}, raise {pay_text(stated)}{capped}"

    @functools.cached_property
    def win(self) -> tuple[Fraction, ...]:
        """Each category's win per ante (kept: a curve's points read it for every category)."""
        return tuple(self.ante_win + self.raise_win(c) for c in range(len(self.raise_pays)))


def payouts(
    order: Ordering,
    royal: Fraction | None = None,
    cap: Fraction | None = None,
    *,
    royal_in_range: bool = True,
) -> Payouts:
    """Read the ante/raise values; ``royal`` and ``cap`` override the file's option values.
    ``royal_in_range=False`` computes a royal payout outside the statute's range too (a
    configuration check judges the range itself and reports the return of what was submitted)."""
    rules = order.rules
    cats = order.categories
    raise_multiple = rational(rules, "play.raise_multiple")
    pays = list(per_category(rules, "play.raise_pays", cats))
    low = rational(rules, "play.royal_option.minimum")
    high = rational(rules, "play.royal_option.maximum")
    if royal is not None:
        if royal_in_range and not low <= royal <= high:
            raise AnalysisError(f"royal payout {royal} is outside the statute's {low}..{high}")
        pays[-1] = Fraction(royal)
    elif royal_in_range and not low <= pays[-1] <= high:
        raise rules.error("play.raise_pays.royal-flush", f"must be within {low}..{high}")
    capped_names = rules.value_of("play.cap.categories", list)
    for name in capped_names:
        if str(name).replace("-", " ") not in cats:
            raise rules.error("play.cap.categories", f"unknown category {name!r}")
    rules.choice("play.cap.applies_to", ("raise",))
    if cap is None:
        maximum = rational(rules, "play.cap.maximum_payout")
        if maximum < 0:
            raise rules.error("play.cap.maximum_payout", "must be >= 0 (0 = no maximum)")
    elif cap < 0:
        raise AnalysisError(f"maximum payout {cap} is negative (0 = no maximum)")
    else:
        maximum = Fraction(cap)
    ante = rational(rules, "play.cap.ante")
    if ante <= 0:
        raise rules.error("play.cap.ante", "the ante must be > 0")
    keys = ("fold", "not_qualifying_ante", "ante_win", "tie", "loss", "raise_multiple")
    articles = {k: rules.require(f"play.{k}").article for k in keys}
    for c in cats:
        articles[f"win.{c}"] = rules.require(f"play.raise_pays.{c.replace(' ', '-')}").article
    return Payouts(
        fold=rational(rules, "play.fold"),
        not_qualifying=rational(rules, "play.not_qualifying_ante")
        + raise_multiple * rational(rules, "play.not_qualifying_raise"),
        tie=rational(rules, "play.tie"),
        loss=rational(rules, "play.loss") * (1 + raise_multiple),  # the ante and the raise
        raise_multiple=raise_multiple,
        ante_win=rational(rules, "play.ante_win"),
        raise_pays=tuple(pays),
        capped=tuple(c.replace(" ", "-") in capped_names for c in cats),
        maximum_payout=maximum,
        ante=ante,
        royal_range=(low, high),
        articles=articles,
    )


@dataclass(frozen=True)
class CategoryLine:
    """The optimal decision's outcomes over the situations of one player category."""

    category: str
    situations: int
    raised: int
    indifferent: int
    not_qualifying: int
    won: int
    tied: int
    lost: int
    equal_ranks: int
    won_on_suit: int
    min_margin_at_floor: int

    @property
    def decision(self) -> str:
        if self.raised == self.situations:
            return "raise always"
        return "fold always" if self.raised == 0 else "depends on the cards and upcard"


@dataclass(frozen=True)
class CurvePoint:
    """The house edge at one option value, and how it was obtained exactly."""

    value: Fraction
    house_edge: Fraction
    element_of_risk: Fraction
    method: str  # "same decisions" (proved unchanged) or "full analysis"


@dataclass(frozen=True)
class Situation:
    """One player hand against one upcard: the exact split of its 163,185 dealer completions
    (by direct enumeration), the values of raising and folding, and the table's decision."""

    hand: str
    upcard: str
    category: str
    not_qualifying: int
    won: int
    tied: int
    lost: int
    equal_ranks: int
    won_on_suit: int
    raise_value: Fraction
    fold_value: Fraction
    table_raises: bool

    @property
    def best(self) -> str:
        return "raise" if self.raise_value > self.fold_value else "fold"


@dataclass(frozen=True, eq=False)
class CaribbeanAnalysis(ParSheet):
    """The full par sheet of one Caribbean Stud rule file."""

    payouts: Payouts
    categories: tuple[CategoryLine, ...]
    progressive: Progressive
    decisions: bytes = field(repr=False)
    #: Where the figures came from: computed in this run, or a cache entry proven to be this
    #: user's tablecert's own (``tablecert.games.cache``).
    figures: Source = field(default="computed", compare=False)
    _rules: Any = field(repr=False, default=None)

    # --- the ante/raise return --------------------------------------------------------
    # The figures below are kept once computed (the fields never change): every point of the
    # royal curve reads the house edge, the raise probability and the wins.
    @functools.cached_property
    def rows(self) -> tuple[OutcomeRow, ...]:
        """The return table: fold, dealer not qualifying, wins by category, push, loss."""
        p = self.payouts
        a = p.articles
        folds = sum(c.situations - c.raised for c in self.categories) * COMPLETIONS
        rows = [
            OutcomeRow("fold", a["fold"], p.fold, folds, DEALS),
            OutcomeRow(
                "dealer does not qualify",
                a["not_qualifying_ante"],
                p.not_qualifying,
                sum(c.not_qualifying for c in self.categories),
                DEALS,
            ),
        ]
        for i, c in reversed(list(enumerate(self.categories))):
            rows.append(
                OutcomeRow(
                    f"player wins with {c.category}",
                    a[f"win.{c.category}"],
                    p.win[i],
                    c.won,
                    DEALS,
                    p.pays_on_win(i),
                )
            )
        rows.append(
            OutcomeRow(
                "push (equal ranks)", a["tie"], p.tie, sum(c.tied for c in self.categories), DEALS
            )
        )
        rows.append(
            OutcomeRow(
                "dealer wins", a["loss"], p.loss, sum(c.lost for c in self.categories), DEALS
            )
        )
        return tuple(rows)

    @functools.cached_property
    def expected_value(self) -> Fraction:
        return expected_value(self.rows)

    @functools.cached_property
    def house_edge(self) -> Fraction:
        """Expected loss per ante."""
        return -self.expected_value

    @functools.cached_property
    def raise_probability(self) -> Fraction:
        return Fraction(sum(c.raised for c in self.categories), SITUATIONS)

    @property
    def element_of_risk(self) -> Fraction:
        """Expected loss per unit wagered (ante plus the raise when made)."""
        return self.house_edge / (1 + self.payouts.raise_multiple * self.raise_probability)

    @property
    def total_loss(self) -> Fraction:
        """Expected loss summed over all 19,933,230,517,200 deals (Wizard of Odds' figure)."""
        return self.house_edge * DEALS

    @property
    def showdowns(self) -> int:
        return sum(c.won + c.tied + c.lost for c in self.categories)

    @property
    def suit_decided(self) -> int:
        """Raised showdowns between equal ranks: decided by suit (statute) or pushed."""
        return sum(c.equal_ranks for c in self.categories)

    # --- the options as curves ---------------------------------------------------------
    def royal_curve(self, pays: Iterable[int | Fraction] | None = None) -> tuple[CurvePoint, ...]:
        """House edge for each royal payout (default: every integer in the statute's range)."""
        low, high = self.payouts.royal_range
        values = range(int(low), int(high) + 1) if pays is None else pays
        royal = len(self.categories) - 1
        points = []
        for v in values:
            pays_now = list(self.payouts.raise_pays)
            pays_now[royal] = Fraction(v)
            points.append(
                self._point(
                    Fraction(v),
                    replace(self.payouts, raise_pays=tuple(pays_now)),
                    royal=Fraction(v),
                )
            )
        return tuple(points)

    def cap_curve(self, maxima: Iterable[int | Fraction]) -> tuple[CurvePoint, ...]:
        """House edge for each per-round maximum payout (currency units, 0 = none)."""
        return tuple(
            self._point(
                Fraction(m), replace(self.payouts, maximum_payout=Fraction(m)), cap=Fraction(m)
            )
            for m in maxima
        )

    def _point(
        self,
        value: Fraction,
        new: Payouts,
        royal: Fraction | None = None,
        cap: Fraction | None = None,
    ) -> CurvePoint:
        """Exact house edge under changed payouts: from the same decisions when the change is
        proved not to move any decision, else by a full analysis."""
        old, now = self.payouts.win, new.win
        floor = min(old)
        unchanged = all(
            o == n or (c.raised == c.situations and c.min_margin_at_floor > 0 and n >= floor)
            for o, n, c in zip(old, now, self.categories, strict=True)
        )
        if unchanged:
            delta = sum(
                (
                    Fraction(c.won, DEALS) * (n - o)
                    for o, n, c in zip(old, now, self.categories, strict=True)
                    if n != o  # a curve changes one category's win: the others add 0
                ),
                Fraction(0),
            )
            edge = self.house_edge - delta
            risk = edge / (1 + new.raise_multiple * self.raise_probability)
            return CurvePoint(value, edge, risk, "same decisions")
        other = analyze(self._rules, royal=royal, cap=cap)
        return CurvePoint(value, other.house_edge, other.element_of_risk, "full analysis")

    # --- the strategy ------------------------------------------------------------------
    def raises(self, hand: str | list[int], upcard: str | int) -> bool:
        """The optimal decision for a player hand against a dealer upcard."""
        cards = sorted(parse_hand(hand, 5))
        up = parse_hand([upcard] if isinstance(upcard, int) else upcard, 1)[0]
        if up in cards:
            raise AnalysisError(f"the upcard {_core.card_code(up)} is in the player's hand")
        index = _core.colex_index(cards)
        bits = int.from_bytes(self.decisions[8 * index : 8 * index + 8], "little")
        return bool(bits >> up & 1)

    def situation(self, hand: str | list[int], upcard: str | int) -> Situation:
        """Explain one decision: enumerate the situation's dealer completions directly."""
        order = ordering("caribbean-stud", self._rules)
        cards = sorted(parse_hand(hand, 5))
        up = parse_hand([upcard] if isinstance(upcard, int) else upcard, 1)[0]
        if up in cards:
            raise AnalysisError(f"the upcard {_core.card_code(up)} is in the player's hand")
        n = _core.caribbean_situation(
            order.tie_breaks, qualifier_ranks(order.rules, "play.dealer_qualifier"), cards, up
        )
        cat = _core.key_fields(_core.strength_key(cards, order.tie_breaks))[0]
        p = self.payouts
        value = (
            n.not_qualifying * p.not_qualifying
            + n.won * p.win[cat]
            + n.tied * p.tie
            + n.lost * p.loss
        ) / COMPLETIONS
        return Situation(
            hand=format_hand(cards),
            upcard=_core.card_code(up),
            category=order.categories[cat],
            not_qualifying=n.not_qualifying,
            won=n.won,
            tied=n.tied,
            lost=n.lost,
            equal_ranks=n.equal_ranks,
            won_on_suit=n.won_on_suit,
            raise_value=Fraction(value),
            fold_value=p.fold,
            table_raises=self.raises(cards, up),
        )

    def strategy_summary(self) -> list[str]:
        """A compact, human-readable statement of the optimal strategy."""
        lines = []
        for c in reversed(self.categories):
            share = Fraction(c.raised, c.situations)
            lines.append(
                f"{c.category}: {c.decision}"
                + (
                    ""
                    if share in (0, 1)
                    else f" (raise in {c.raised:,} of {c.situations:,} situations)"
                )
            )
        lines.extend(self._high_card_lines())
        return lines

    def _high_card_lines(self) -> list[str]:
        # The table read where it lies (a copy of its 21 MB took 45 ms), the raised high-card
        # hands in one pass: the same indices, ascending, as the nonzero ones' high-card ones.
        masks = np.frombuffer(self.decisions, dtype="<u8")
        keys, high_card, ak, held, ranks = high_card_tables()
        high = np.flatnonzero((masks != 0) & high_card)
        if not len(high):
            return []
        weakest = int(high[np.argmin(keys[high])])
        lines = [
            f"weakest high-card hand ever raised: {format_hand(_core.hand_at(weakest, 5))}",
            f"high-card hands raised against some upcard: {len(high):,}",
        ]
        # A-K high: how often raising is right when the upcard pairs one of the player's ranks.
        raised = masks[ak]
        matches = ranks & ~held
        open_ = ~held & np.uint64((1 << 52) - 1)
        for label, where in (
            ("pairs one of your ranks", matches),
            ("pairs none of your ranks", open_ & ~matches),
        ):
            situations = int(np.bitwise_count(where).sum())
            share = Fraction(int(np.bitwise_count(raised & where).sum()), situations)
            lines.append(f"A-K high, upcard {label}: raise in {float(share):.2%} of situations")
        return lines

    def export_strategy(self, directory: str | Path, *, force: bool = False) -> list[Path]:
        """Write the strategy: a summary, the full decision table (binary) and the hands whose
        decision depends on the upcard (CSV), for checking a dealer-assist system's advice.
        Each file is written atomically; an existing one is replaced only with ``force``."""
        out = output_folder(directory, STRATEGY_FILES, force=force)
        summary, table, mixed = (out / name for name in STRATEGY_FILES)
        with atomic_text(summary) as f:
            f.write(self._strategy_text(table, mixed))
        write_atomic(table, self.decisions)
        masks = np.frombuffer(self.decisions, dtype="<u8")
        with atomic_text(mixed) as f:
            f.write("hand,raise_against\n")
            for i in np.flatnonzero(masks != 0):
                hand = _core.hand_at(int(i), 5)
                held = sum(1 << c for c in hand)
                bits = int(masks[i])
                if bits == (2**52 - 1) & ~held:
                    continue
                ups = " ".join(_core.card_code(u) for u in range(52) if bits >> u & 1)
                f.write(f"{format_hand(hand)},{ups}\n")
        return [summary, table, mixed]

    def _strategy_text(self, table: Path, mixed: Path) -> str:
        return (
            "\n".join(
                [
                    f"# {self.title} ({self.rules_path}, sha256 {self.rules_sha256})",
                    f"# house edge {float(self.house_edge):.6%}, "
                    f"raise probability {float(self.raise_probability):.6%}",
                    *self.strategy_summary(),
                    "",
                    f"{table.name}: {HANDS:,} little-endian uint64, one per player hand in colex "
                    "order (tablecert._core.hand_at(i, 5)); bit u set = raise when the dealer's "
                    "upcard is card u (id = rank*4 + suit, 2d = 0 .. As = 51).",
                    f"{mixed.name}: hand,raise against (upcard codes) for every hand whose "
                    "decision depends on the upcard.",
                ]
            )
            + "\n"
        )

    def as_json(self) -> dict[str, Any]:
        return {
            **self.header_json("caribbean-stud"),
            "deals": DEALS,
            "house_edge": fraction_json(self.house_edge),
            "element_of_risk": fraction_json(self.element_of_risk),
            "raise_probability": fraction_json(self.raise_probability),
            "rows": [r.as_json() for r in self.rows],
            "categories": [
                {
                    "category": c.category,
                    "situations": c.situations,
                    "raised": c.raised,
                    "indifferent": c.indifferent,
                    "decision": c.decision,
                }
                for c in reversed(self.categories)
            ],
            "suit_tie_break": {
                "showdowns": self.showdowns,
                "equal_ranks": self.suit_decided,
                "share": fraction_json(Fraction(self.suit_decided, self.showdowns)),
                "won_by_player": sum(c.won_on_suit for c in self.categories),
            },
            "strategy": self.strategy_summary(),
            "royal_curve": [
                {
                    "royal_pays": int(p.value),
                    "house_edge": fraction_json(p.house_edge),
                    "method": p.method,
                }
                for p in self.royal_curve()
            ],
            "progressive": self.progressive.as_json(),
        }


@functools.lru_cache(maxsize=1)
def high_card_tables() -> HighCardTables:
    """What the strategy summary reads besides the decisions, the same in every analysis:
    every hand's ranks-only strength key (colex order), which hands are high cards, the A-K
    high hands' indices, and for each of those the mask of its cards and of its ranks' cards
    (13 MB, kept: see :func:`analyze`, which makes it while the sweep runs)."""
    keys = np.frombuffer(
        _core.all_strength_keys(5, _core.TieBreaks(suit_decides=False)), dtype="<u4"
    )
    high_card = (keys >> 22) == 0
    # A-K high: high card, first rank field A (12), second K (11).
    ak = np.flatnonzero(high_card & (((keys >> 14) & 0xFF) == 12 << 4 | 11))
    cards = colex_hands(ak, 5)  # only these hands' cards: not all 2,598,960 (13 MB, 20 ms)
    one = np.uint64(1)
    held = np.zeros(len(ak), dtype=np.uint64)
    ranks = np.zeros(len(ak), dtype=np.uint64)
    for column in cards.T.astype(np.uint64):
        held |= one << column
        ranks |= np.uint64(0xF) << (column >> np.uint64(2) << np.uint64(2))
    return keys, high_card, ak, held, ranks


def colex_hands(index: Any, size: int) -> Any:
    """The cards, ascending, of the ``size``-card hands at the colex ranks ``index`` (an
    integer array; ``_core.hand_at``'s order: rank = sum of C(card_j, j), j = 1..size), one
    row a hand, as ``uint8``."""
    rest = np.asarray(index, dtype=np.int64).copy()
    cards = np.empty((len(rest), size), dtype=np.uint8)
    for j in range(size, 0, -1):
        table = np.array([comb(c, j) for c in range(52)], dtype=np.int64)  # non-decreasing
        card = np.searchsorted(table, rest, side="right") - 1  # the largest C(card, j) <= rest
        cards[:, j - 1] = card
        rest -= table[card]
    return cards


class _Beside(threading.Thread, Generic[R]):
    """Work that does not need the sweep, done on a thread while the sweep runs (the core
    runs without the GIL; on a cluster this process only waits for the shards); its error,
    if any, is raised by :meth:`result`, where the work used to be done."""

    def __init__(self, work: Callable[[], R]) -> None:
        super().__init__(name="tablecert-beside-the-sweep", daemon=True)
        self._work = work
        self._value: R | None = None
        self._error: BaseException | None = None
        self.start()

    def run(self) -> None:
        try:
            self._value = self._work()
        except BaseException as exc:  # raised again by result(), in the caller's thread
            self._error = exc

    def result(self) -> R:
        self.join()
        if self._error is not None:
            raise self._error
        return self._value  # type: ignore[return-value]


@dataclass(frozen=True)
class HandShard:
    """One shard of the analysis: part ``part`` (k, n) of the generic engine's cut of the
    player hands, every upcard, of the game the rule file describes, under ``values`` (and
    the ``floor`` values that prove a payout change moves no decision). Picklable values
    only, so it travels to any worker."""

    description: StudDescription
    values: tuple[tuple[tuple[int, ...], ...], ...]
    floor: tuple[tuple[tuple[int, ...], ...], ...]
    part: tuple[int, int] = (0, 1)


@dataclass(frozen=True)
class ShardAnswer:
    """What a shard sends back: its category rows (``CategoryLine``'s counts, lowest
    category first) and its compact decisions (about 1 MB for half the hands instead of the
    21 MB table)."""

    rows: tuple[tuple[int, ...], ...]
    decisions: _core.CompactDecisions


Rows = list[tuple[int, ...]]
"""Category rows as the cache stores them: each ``CategoryLine``'s counts in field order."""


def engine_values(p: Payouts) -> tuple[list[list[list[int]]], list[list[list[int]]]]:
    """The generic engine's values of fold and raise (numerators over one denominator) by
    outcome (dealer does not qualify, player higher, equal, dealer higher) and category, and
    the same with every win at the smallest win: the floor under which a category's margin
    of raising is kept."""
    den = common_denominator([p.fold, p.not_qualifying, p.tie, p.loss, *p.win])

    def table(win: Sequence[Fraction]) -> list[list[list[int]]]:
        fold = [[int(p.fold * den)] * len(win) for _ in range(4)]
        raise_ = [
            [int(p.not_qualifying * den)] * len(win),
            [int(w * den) for w in win],
            [int(p.tie * den)] * len(win),
            [int(p.loss * den)] * len(win),
        ]
        return [fold, raise_]

    return table(p.win), table([min(p.win)] * len(p.win))


def hand_shards(order: Ordering, p: Payouts, shards: int) -> list[HandShard]:
    """The whole analysis cut into ``shards`` parts of the player hands (every upcard): the
    way to split it over workers. Every sweep visits all hands, so a cut by upcards repeats
    most of the work in each shard; a part of the hands costs only its hands (BENCHMARKS.md)."""
    d = describe(order.rules)
    values, floor = (_frozen(t) for t in engine_values(p))
    count = max(1, min(shards, HANDS))
    return [HandShard(d, values, floor, (k, count)) for k in range(count)]


def _frozen(table: list[list[list[int]]]) -> tuple[tuple[tuple[int, ...], ...], ...]:
    return tuple(tuple(tuple(row) for row in by_outcome) for by_outcome in table)


def _listed(table: tuple[tuple[tuple[int, ...], ...], ...]) -> list[list[list[int]]]:
    return [[list(row) for row in by_outcome] for by_outcome in table]


def _engine_run(
    shard: HandShard,
    progress: _core.Progress | None = None,
    game: _core.StudGame | None = None,
) -> _core.StudRun:
    return _core.stud_analyze(
        engine_game(shard.description) if game is None else game,
        _listed(shard.values),
        masks=True,
        floor=_listed(shard.floor),
        progress=progress,
        shard=shard.part,
    )


def _rows(run: _core.StudRun) -> Rows:
    """The engine's rows by (category, decision) as the sheet's rows by category: the
    situations of both decisions, the outcomes of the raised ones."""
    margins = run.min_margins or []
    by_decision: list[list[_core.StudRow | None]] = [[None] * len(margins) for _ in range(2)]
    for row in run.rows:
        by_decision[min(row.decision, 1)][row.category] = row
    rows: Rows = []
    for fold, raised, margin in zip(*by_decision, margins, strict=True):
        both = [x for x in (fold, raised) if x is not None]
        counts = (
            (0,) * 6
            if raised is None
            else (
                raised.not_qualifying,
                raised.won,
                raised.tied,
                raised.lost,
                raised.equal_ranks,
                raised.won_on_suit,
            )
        )
        rows.append(
            (
                sum(x.situations for x in both),
                0 if raised is None else raised.situations,
                sum(x.indifferent for x in both),
                *counts,
                margin,
            )
        )
    return rows


@functools.lru_cache(maxsize=1)
def kept_game(description: StudDescription) -> _core.StudGame:
    """The engine's game of a shard's description, kept in this process for the next shard
    of the same game: the game keeps the tables every run builds before its sweep (its hands
    in key order, the not-qualifying histogram: about 0.4 s of CPU a shard; RSS +87 MB), so a
    cluster worker builds them once, not once a shard. One game is kept."""
    return engine_game(description)


def run_hand_shard(shard: HandShard) -> ShardAnswer:
    """Run one shard on this machine: its category rows and its compact decisions (the
    game's tables kept for the next shard: :func:`kept_game`)."""
    run = _engine_run(shard, game=kept_game(shard.description))
    assert run.raise_masks is not None
    return ShardAnswer(tuple(_rows(run)), _core.compact_decisions(run.raise_masks))


def merge_hand_shards(parts: Sequence[ShardAnswer]) -> tuple[Rows, bytes]:
    """Put shards' answers together, in shard order: counts add, the smallest margin wins,
    the decision tables of disjoint shards combine by OR. Equal to one whole run."""
    if not parts:
        raise AnalysisError("no shards to merge")
    rows = [list(r) for r in parts[0].rows]
    for part in parts[1:]:
        for row, other in zip(rows, part.rows, strict=True):
            row[:-1] = [a + b for a, b in zip(row[:-1], other[:-1], strict=True)]
            row[-1] = min(row[-1], other[-1])
    table = _core.caribbean_decision_table([p.decisions for p in parts])
    return [tuple(r) for r in rows], table


def _run_core(
    order: Ordering,
    p: Payouts,
    progress: ProgressCallback | None,
    executor: Executor | None = None,
    shards: int | None = None,
) -> tuple[Rows, bytes]:
    if executor is not None:
        plan = hand_shards(order, p, shards or SHARDS_PER_THREAD * executor.parallelism)
        return merge_hand_shards(executor.map(run_hand_shard, plan, progress))
    (whole,) = hand_shards(order, p, 1)
    counter = _core.Progress()
    result: list[_core.StudRun] = []
    if progress is None:
        result.append(_engine_run(whole))
    else:
        worker = threading.Thread(target=lambda: result.append(_engine_run(whole, counter)))
        worker.start()
        while worker.is_alive():
            progress(counter.done, HANDS)
            worker.join(0.1)
        progress(HANDS, HANDS)
        if not result:  # pragma: no cover - the core raised; rerun to surface its error
            result.append(_engine_run(whole))
    run = result[0]
    assert run.raise_masks is not None
    return _rows(run), run.raise_masks


def analyze(
    rules: RulesSource = None,
    *,
    royal: Fraction | int | None = None,
    cap: Fraction | int | None = None,
    use_cache: bool = True,
    progress: ProgressCallback | None = None,
    executor: Executor | None = None,
    shards: int | None = None,
    royal_in_range: bool = True,
) -> CaribbeanAnalysis:
    """The exact par sheet of Caribbean Stud under ``rules`` (default: the Macau statute);
    ``royal`` / ``cap`` override the royal payout and the per-round maximum payout
    (``royal_in_range=False``: a royal payout outside the statute's range is computed, not
    refused). With an
    ``executor`` the sweep runs there as ``shards`` shards (default: one per worker
    thread, each a part of the player hands); the answer is the same."""
    order = ordering("caribbean-stud", rules)
    rf = order.rules
    p = payouts(
        order,
        None if royal is None else Fraction(royal),
        None if cap is None else Fraction(cap),
        royal_in_range=royal_in_range,
    )
    key = cache_key(
        "caribbean-stud", rf, [str(x) for x in (*p.win, p.fold, p.not_qualifying, p.tie, p.loss)]
    )
    # The progressive and the strategy summary's hand tables do not need the sweep: made on
    # a thread from here (0.1-0.15 s of CPU that followed the sweep). With an executor that
    # connects when first used (the CLI's), that is while this thread imports Dask and
    # connects, before the shards are submitted: not on the cores the shards run on. One
    # thread, not one each: two threads beside the import took the GIL from it 2-3 times as
    # long (BENCHMARKS.md).
    beside = _Beside(lambda: (progressive(rf, order.tie_breaks), high_card_tables()))
    try:
        entry, source = AnalysisCache().get_or_compute(
            f"caribbean-{key}",
            use_cache,
            lambda: Entry(*_run_core(order, p, progress, executor, shards)),
        )
    finally:
        # Its end awaited even when the sweep failed (a cluster not reached): a thread left
        # in the core at the interpreter's exit would abort the process.
        beside.join()
    paying, _ = beside.result()
    rows, bits = entry.rows, entry.table
    cats = order.categories
    lines = tuple(CategoryLine(name, *row) for name, row in zip(cats, rows, strict=True))
    return CaribbeanAnalysis(
        title=str(rf.require("game.title").value),
        rules_path=rf.path.name,
        rules_sha256=rf.sha256,
        suit_decides=order.suit_decides,
        payouts=p,
        categories=lines,
        progressive=paying,
        decisions=bits,
        figures=source,
        _rules=rf,
    )
