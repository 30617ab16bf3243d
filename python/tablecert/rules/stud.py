"""The description of a player-against-dealer stud poker game, read from its rule file.

The generic stud engine (``_core.StudGame``) computes any game of the family from one deck:
the player and the dealer are dealt cards and each counts its best ``uses`` of them, none or
one dealer card is face up when the player decides, the player folds or raises one of the
allowed multiples of the ante, the dealer qualifies above a threshold (or always), and every
bet is settled by the outcome and the player's category. :func:`describe` reads that
description from a rule file, validates it completely and refuses, naming the key and its
line, what the engine cannot compute. Every value keeps the article it comes from.

A file describes its game in these tables (see ``docs/games/rule-files.md``):

- ``[game] hand_size``: how many cards make a hand (3, 4 or 5); ``[deal]``: ``player_cards``,
  ``dealer_cards``, ``upcards`` (0 or 1);
- ``[ranking]``: the ordering (``statute``: suits decide equal ranks; ``rank-only``: they
  tie), the suit order and the suit readings; ``[ranking.categories.*]``: one table per
  category, **highest first in the order they are written**, each naming the tie-break steps
  the engine compares (:data:`STEPS`);
- the dealer's qualification, the decision and the settlement, in one of three layouts:
  ``[qualifier]``, ``[decision]``, ``[settlement]`` (any game; ``[settlement.cap]`` a
  per-round maximum payout over the bets and categories it names), or the two layouts the
  statutes' files have always used: ``[play]`` with ``initial_bet`` and ``follow_bet`` (one
  decision whose values are written whole, by outcome) or ``[play]`` with
  ``raise_multiple`` (ante and raise, the raise paid by category, the royal option and the
  per-round cap);
- side bets: ``[side_bets.<id>]`` (any game) and ``[pair_plus]`` (the statutes' layout);
- the progressive: ``[progressive]`` with its meter rules and ``[progressive.fixed]`` (any
  layout; computed for a player's hand of five cards ranked by the five-card categories).

Within the description's own tables every key must be read by it: a key nothing reads is
refused, never ignored.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Generic, TypeVar

from tablecert.errors import RuleFileError
from tablecert.notation import written
from tablecert.rules.loader import RuleFile
from tablecert.rules.numbers import number

T = TypeVar("T")

#: The engine's category names for each hand size, highest first in the usual order (a game
#: may order them otherwise). ``royal-flush`` is optional in 5-card hands.
VOCABULARY: dict[int, tuple[str, ...]] = {
    3: ("straight-flush", "three-of-a-kind", "straight", "flush", "pair", "high-card"),
    4: (
        "four-of-a-kind",
        "straight-flush",
        "three-of-a-kind",
        "flush",
        "straight",
        "two-pair",
        "pair",
        "high-card",
    ),
    5: (
        "royal-flush",
        "straight-flush",
        "four-of-a-kind",
        "full-house",
        "flush",
        "straight",
        "three-of-a-kind",
        "two-pair",
        "one-pair",
        "high-card",
    ),
}
OPTIONAL: dict[int, frozenset[str]] = {
    3: frozenset(),
    4: frozenset(),
    5: frozenset({"royal-flush"}),
}

_CARD_STEPS = ("highest card", "second card", "third card", "fourth card", "fifth card")
_CARDS = {uses: _CARD_STEPS[:uses] for uses in (3, 4, 5)}
_NO_TIE = "(cannot tie in one deck)"

#: The tie-break steps the engine compares within each category, in order; the last step of
#: each is its suit step, taken only when suits decide (``ranking.ordering = "statute"``).
STEPS: dict[int, dict[str, tuple[str, ...]]] = {
    3: {
        "straight-flush": ("ranks", "suit"),
        "three-of-a-kind": ("rank of the three", _NO_TIE),
        "straight": ("ranks", "suit of the highest card"),
        "flush": (*_CARDS[3], "suit of the flush"),
        "pair": ("pair rank", "kicker rank", "the kicker's suit"),
        "high-card": (*_CARDS[3], "suit of the highest card"),
    },
    4: {
        "four-of-a-kind": ("rank of the four", _NO_TIE),
        "straight-flush": ("ranks", "suit"),
        "three-of-a-kind": ("rank of the three", _NO_TIE),
        "flush": (*_CARDS[4], "suit of the flush"),
        "straight": ("ranks", "suit of the highest card"),
        "two-pair": ("higher pair", "lower pair", "suit of the higher pair"),
        "pair": ("pair rank", "highest kicker", "second kicker", "suit of the pair"),
        "high-card": (*_CARDS[4], "suit of the highest card"),
    },
    5: {
        "royal-flush": ("suit",),
        "straight-flush": ("ranks", "suit"),
        "four-of-a-kind": ("rank of the four", _NO_TIE),
        "full-house": ("rank of the three", "rank of the pair", _NO_TIE),
        "flush": (*_CARDS[5], "suit of the flush"),
        "straight": ("ranks", "suit of the highest card"),
        "three-of-a-kind": ("rank of the three", _NO_TIE),
        "two-pair": ("higher pair", "lower pair", "kicker", "suit of the higher pair"),
        "one-pair": (
            "pair rank",
            "highest kicker",
            "second kicker",
            "third kicker",
            "suit of the pair",
        ),
        "high-card": (*_CARDS[5], "suit of the highest card"),
    },
}


def _rank_fields(steps: tuple[str, ...]) -> int:
    """How many rank fields a category's steps compare ("ranks" of a straight: its top)."""
    return sum(1 for step in steps if step != _NO_TIE and "suit" not in step)


#: How many leading rank fields a qualifier may name in each category.
RANK_FIELDS: dict[int, dict[str, int]] = {
    uses: {name: _rank_fields(steps) for name, steps in table.items()}
    for uses, table in STEPS.items()
}

RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
RANK_ORDER = " ".join(reversed(RANK_NAMES))
SUITS = ("spades", "hearts", "clubs", "diamonds")
#: The values that cannot matter when suits never decide: only these are accepted then.
SUIT_VALUES_UNUSED: dict[str, Any] = {
    "ranking.suit_order": list(SUITS),
    "ranking.ace_low_straight_suit": "top-of-sequence",
    "ranking.pair_suit": "higher",
}
MAX_UPCARDS = 1
#: The most cards the engine deals the player (its histogram has a row per set of them) and
#: the dealer (``rust/games/stud``: MAX_PLAYER_CARDS, MAX_CARDS).
MAX_PLAYER_CARDS = 5
MAX_DEALER_CARDS = 7
DECK = 52

#: Outcome indices of the engine's ``values[d][o][c]``.
NOT_QUALIFYING, WON, TIED, LOST = range(4)
TIES = ("player", "push", "dealer")
SIDE_BET_CARDS = ("player", "player-and-dealer")
#: The bets a per-round cap may cover: the ante, the raise, the ante bonus.
CAP_BETS = ("ante", "raise", "bonus")
DESCRIPTION_TABLES = (
    "deal",
    "ranking",
    "qualifier",
    "decision",
    "settlement",
    "side_bets",
    "play",
    "pair_plus",
    "progressive",
)
#: The progressive's readings of a round with several winners: the values each may take.
PAYMENT_ORDERS = ("ascending-seat", "descending-seat")
STRAIGHT_FLUSH_BASES = ("meter-before", "remaining")
CONTRIBUTION_TIMINGS = ("after-prizes", "before-prizes")
#: The categories a progressive's meter shares pay (their hands make the meter's law).
METER_CATEGORIES = ("royal-flush", "straight-flush")
#: The most progressive bets a round may hold (player seats), and the hand their law is for.
MAX_PROGRESSIVE_PLAYERS = 7
PROGRESSIVE_HAND = 5


@dataclass(frozen=True)
class Cited(Generic[T]):
    """A value of the description, the article it comes from, the key it was read at, and
    whether it is a reading of an open point (``reading = true`` in the file)."""

    value: T
    article: str
    key: str
    reading: bool = False


@dataclass(frozen=True)
class Deal:
    """Cards dealt to the player and to the dealer, how many make a hand, how many of the
    dealer's are face up when the player decides."""

    player_cards: Cited[int]
    dealer_cards: Cited[int]
    uses: Cited[int]
    upcards: Cited[int]


@dataclass(frozen=True)
class Category:
    """One category of the ranking: its name, the steps that compare it, its article."""

    name: str
    steps: tuple[str, ...]
    article: str
    key: str


@dataclass(frozen=True)
class Ranking:
    """The hand ranking: categories highest first and the tie-break options."""

    uses: int
    categories: tuple[Category, ...]
    suit_decides: Cited[bool]
    ace_low_straight_suit: Cited[str]
    pair_suit: Cited[str]
    suit_order: Cited[tuple[str, ...]]

    @property
    def names(self) -> tuple[str, ...]:
        """The category names, highest first (what ``_core.StudRanking`` takes)."""
        return tuple(c.name for c in self.categories)

    def position(self, name: str) -> int:
        """A category's position in the engine's keys: 0 the lowest."""
        return len(self.categories) - 1 - self.names.index(name)

    @property
    def tie_breaks(self) -> dict[str, Any]:
        """The arguments of ``_core.TieBreaks``."""
        return {
            "suit_decides": self.suit_decides.value,
            "ace_low_straight_suit": self.ace_low_straight_suit.value,
            "pair_suit": self.pair_suit.value,
            "suit_order": "".join(s[0] for s in self.suit_order.value),
        }


@dataclass(frozen=True)
class Qualifier:
    """The dealer qualifies with at least this category and these leading rank fields."""

    category: str
    ranks: tuple[int, ...]  # rank indices, 2 = 0 .. A = 12
    article: str
    key: str

    @property
    def engine(self) -> tuple[str, list[int]]:
        """The qualifier as ``_core.StudGame`` takes it."""
        return (self.category, list(self.ranks))


@dataclass(frozen=True)
class Part:
    """What one outcome does to the player: the ante's net result per ante and the raise's
    net result per unit raised."""

    ante: Cited[Fraction]
    per_raise: Cited[Fraction]

    def total(self, multiple: Fraction) -> Fraction:
        return self.ante.value + multiple * self.per_raise.value


@dataclass(frozen=True)
class Cap:
    """A per-round maximum payout: what the covered bets (``bets``, of :data:`CAP_BETS`) may
    pay together in one round when the player's hand is of one of ``categories``.

    ``maximum_payout`` is in currency units and judged against an ante of ``ante`` units (so
    the values, per unit ante, are capped at ``maximum_payout / ante``); 0 = no maximum. What
    the covered bets win in a round is summed (a covered bet that loses takes its stake, which
    the cap never touches) and paid at most up to the maximum.
    """

    maximum_payout: Cited[Fraction]
    ante: Cited[Fraction]
    categories: Cited[tuple[str, ...]]
    bets: Cited[tuple[str, ...]]

    @property
    def limit(self) -> Fraction | None:
        """The most the covered bets pay together per unit ante (None: no maximum)."""
        if self.maximum_payout.value == 0:
            return None
        return self.maximum_payout.value / self.ante.value


@dataclass(frozen=True)
class Settlement:
    """Every bet's settlement per unit ante, by outcome and the player's category.

    ``win``, ``bonus`` are by category position (0 the lowest). ``tie`` None: ties go to the
    player (paid as a win). The bonus (none when empty) is paid whenever the player raises,
    whatever the dealer holds. ``stake`` is the unit the values are counted in (the ante, or the
    statutes' initial bet). ``cap`` (with ``capped``, by position: the categories it covers)
    limits what the covered bets win together in a round (:meth:`capped_by`).
    """

    stake: Cited[Fraction]
    fold: Cited[Fraction]
    not_qualifying: Part
    win: tuple[Part, ...]
    tie: Part | None
    loss: Part
    bonus: tuple[Cited[Fraction], ...]
    raises: tuple[Cited[Fraction], ...]
    cap: Cap | None
    capped: tuple[bool, ...]
    #: What the player does other than fold: "follow" (the statutes' one decision, whose
    #: stake may be nothing) or "raise" a multiple of the ante.
    action: str = "raise"

    @property
    def decisions(self) -> tuple[str, ...]:
        """The decisions' names in the engine's order: "fold", then "follow" or each raise
        ("raise 2x")."""
        if self.action == "follow":
            return ("fold", "follow")
        return ("fold", *(f"raise {_multiple(r.value)}x" for r in self.raises))

    def parts(self, multiple: Fraction, outcome: int, position: int) -> dict[str, Fraction]:
        """Each bet's net result per ante (before any cap) when the player raises
        ``multiple`` antes, ``outcome`` happens and their hand is in category ``position``."""
        part = {
            NOT_QUALIFYING: self.not_qualifying,
            WON: self.win[position],
            TIED: self.win[position] if self.tie is None else self.tie,
            LOST: self.loss,
        }[outcome]
        bonus = self.bonus[position].value if self.bonus else Fraction(0)
        return {"ante": part.ante.value, "raise": multiple * part.per_raise.value, "bonus": bonus}

    def capped_by(self, parts: Mapping[str, Fraction], position: int) -> Fraction:
        """How much the per-round cap takes off a round's bets (0 when it does not bind)."""
        cap = self.cap
        if cap is None or cap.limit is None or not self.capped[position]:
            return Fraction(0)
        won = sum((max(parts[bet], Fraction(0)) for bet in cap.bets.value), Fraction(0))
        return max(won - cap.limit, Fraction(0))

    def fractions(self) -> list[list[list[Fraction]]]:
        """``values[d][o][c]`` as exact fractions: d = 0 fold, then the raises in order, the
        per-round cap applied."""
        cats = range(len(self.win))
        table = [[[self.fold.value for _ in cats] for _ in range(4)]]
        for raised in self.raises:
            rows = []
            for outcome in (NOT_QUALIFYING, WON, TIED, LOST):
                row = []
                for c in cats:
                    parts = self.parts(raised.value, outcome, c)
                    row.append(sum(parts.values(), Fraction(0)) - self.capped_by(parts, c))
                rows.append(row)
            table.append(rows)
        return table

    def binds(self) -> list[list[list[bool]]]:
        """``binds[d][o][c]``: whether the per-round cap lowers that value."""
        cats = range(len(self.win))
        table = [[[False for _ in cats] for _ in range(4)]]
        for raised in self.raises:
            table.append(
                [
                    [self.capped_by(self.parts(raised.value, o, c), c) > 0 for c in cats]
                    for o in (NOT_QUALIFYING, WON, TIED, LOST)
                ]
            )
        return table

    def with_maximum_payout(self, maximum: Fraction) -> Settlement:
        """The same settlement under another per-round maximum payout (0 = none), in the
        cap's currency units: the house's choice the cap curve varies."""
        if self.cap is None:
            raise ValueError("the settlement has no per-round cap")
        if maximum < 0:
            raise ValueError(f"maximum payout {maximum} is negative (0 = no maximum)")
        given = self.cap.maximum_payout
        cap = replace(self.cap, maximum_payout=replace(given, value=Fraction(maximum)))
        return replace(self, cap=cap)

    def values(self) -> tuple[int, list[list[list[int]]]]:
        """(common denominator, ``values[d][o][c]`` numerators over it), as the engine takes
        them (``_core.stud_analyze``)."""
        table = self.fractions()
        den = math.lcm(*(v.denominator for d in table for o in d for v in o))
        return den, [[[int(v * den) for v in o] for o in d] for d in table]


@dataclass(frozen=True)
class SideBet:
    """A bet on the player's own hand, or on the player's and the dealer's cards together,
    paid by its category (net per unit: -1 loses). ``categories`` is its own ranking,
    highest first; ``pays`` and ``minimum_rank`` are by its category position (0 lowest):
    a hand of a category with a minimum first rank below it loses."""

    id: str
    name: Cited[str]
    cards: Cited[str]
    uses: Cited[int]
    categories: tuple[str, ...]
    pays: tuple[Cited[Fraction], ...]
    minimum_rank: Mapping[int, Cited[int]]

    def card_count(self, deal: Deal) -> int:
        """How many cards the bet's hand is made from (``stud_category_counts``' ``cards``)."""
        own = deal.player_cards.value
        return own + deal.dealer_cards.value if self.cards.value == "player-and-dealer" else own

    def pay(self, position: int, rank: int) -> Fraction:
        """The net result per unit of a hand in category ``position`` with first rank
        ``rank`` (0 = 2 .. 12 = A)."""
        minimum = self.minimum_rank.get(position)
        if minimum is not None and rank < minimum.value:
            return Fraction(-1)
        return self.pays[position].value

    def return_per_unit(self, counts: Sequence[Sequence[int]]) -> Fraction:
        """The bet's exact expected net result per unit from ``_core.stud_category_counts``'
        ``counts[position][rank]``."""
        if len(counts) != len(self.pays):
            raise ValueError(f"expected counts of {len(self.pays)} categories, got {len(counts)}")
        total = sum(sum(row) for row in counts)
        won = sum(self.pay(p, r) * n for p, row in enumerate(counts) for r, n in enumerate(row))
        return Fraction(won) / total


@dataclass(frozen=True)
class ProgressiveTerms:
    """The progressive side bet as ``[progressive]`` sets it: prizes in currency units for a
    bet of ``bet`` units, paid on the player's own five cards by their category.

    ``fixed`` holds the paying categories (slugs of the game's ranking, highest first) with
    their fixed prizes (0 = none); the royal flush and the straight flush also take
    ``royal_meter_share`` / ``straight_flush_meter_share`` of the meter when that is more.
    ``players`` bets a round, the meter's ``seed`` and ``contribution``, and the readings of
    a round with several winners (``payment_order``, ``straight_flush_base``, ``meter_pays``,
    ``contribution_timing``, ``prize_unit``) drive the round's payment and the long run.
    """

    bet: Cited[Fraction]
    meter: Cited[Fraction]
    seed: Cited[Fraction]
    contribution: Cited[Fraction]
    royal_meter_share: Cited[Fraction]
    straight_flush_meter_share: Cited[Fraction]
    players: Cited[int]
    payment_order: Cited[str]
    straight_flush_base: Cited[str]
    meter_pays: Cited[tuple[str, ...]]
    contribution_timing: Cited[str]
    prize_unit: Cited[Fraction]
    fixed: tuple[tuple[str, Cited[Fraction]], ...]

    @property
    def articles(self) -> tuple[tuple[str, str], ...]:
        """(key, article) of every value but the meter shown and the players: the bet, the
        meter's rules and readings, then the fixed prizes highest first."""
        cited: tuple[Cited[Any], ...] = (
            self.bet,
            self.seed,
            self.contribution,
            self.royal_meter_share,
            self.straight_flush_meter_share,
            self.payment_order,
            self.straight_flush_base,
            self.meter_pays,
            self.contribution_timing,
            self.prize_unit,
            *(prize for _, prize in self.fixed),
        )
        return tuple((c.key, c.article) for c in cited)


@dataclass(frozen=True)
class StudDescription:
    """A stud poker game as its rule file describes it, everything the engine is fed, and
    its progressive (None: the file has none), which depends on the player's cards alone."""

    deal: Deal
    ranking: Ranking
    qualifier: Qualifier | None
    settlement: Settlement
    side_bets: tuple[SideBet, ...]
    progressive: ProgressiveTerms | None = None

    @property
    def raises(self) -> tuple[Cited[Fraction], ...]:
        """The allowed raise multiples of the ante, in the engine's decision order (d = 1..)."""
        return self.settlement.raises

    def values(self) -> tuple[int, list[list[list[int]]]]:
        return self.settlement.values()

    def with_maximum_payout(self, maximum: Fraction) -> StudDescription:
        """The same game under another per-round maximum payout (``Settlement``'s)."""
        return replace(self, settlement=self.settlement.with_maximum_payout(maximum))


def _multiple(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else str(value)


def is_stud(rules: RuleFile) -> bool:
    """Whether a rule file describes a stud poker game (it has a ``[deal]`` table)."""
    return "deal" in rules.data


def deal_and_ranking(rules: RuleFile) -> tuple[Deal, Ranking]:
    """The deal and the hand ranking alone (what ranks hands, without any bet)."""
    read = _Reader(rules)
    deal = _deal(read)
    return deal, _ranking(read, deal.uses)


def describe(rules: RuleFile) -> StudDescription:
    """The game a rule file describes, validated completely: a value the engine cannot
    compute is a :class:`RuleFileError` naming its key and line."""
    read = _Reader(rules)
    qualifier: Qualifier | None
    deal = _deal(read)
    ranking = _ranking(read, deal.uses)
    if "play" in rules.data and "initial_bet" in rules.table("play"):
        qualifier = _high_card_qualifier(read, "play.dealer_qualifier", ranking)
        settlement = _follow_settlement(read, ranking)
    elif "play" in rules.data:
        qualifier = _high_card_qualifier(read, "play.dealer_qualifier", ranking)
        settlement = _ante_raise_settlement(read, ranking)
    else:
        qualifier = _qualifier(read, ranking)
        settlement = _settlement(read, ranking, qualifier)
    bets = []
    if "pair_plus" in rules.data:
        bets.append(_pair_plus(read, ranking, deal))
    if "side_bets" in rules.data:
        bets += [_side_bet(read, name, deal) for name in rules.table("side_bets")]
    jackpot = _progressive(read, deal, ranking) if "progressive" in rules.data else None
    read.check_all_read()
    return StudDescription(deal, ranking, qualifier, settlement, tuple(bets), jackpot)


def progressive_terms(rules: RuleFile) -> tuple[Ranking, ProgressiveTerms]:
    """The progressive of a rule file alone and the ranking it is paid by, validated as
    :func:`describe` validates them: what the statutes' own engines read."""
    read = _Reader(rules)
    deal = _deal(read)
    ranking = _ranking(read, deal.uses)
    read.table("progressive")
    return ranking, _progressive(read, deal, ranking)


class _Reader:
    """Reads a rule file's values, remembering every key it read, so that a key of the
    description's tables that nothing read can be refused."""

    def __init__(self, rules: RuleFile) -> None:
        self.rules = rules
        self.read: set[str] = set()

    def error(self, dotted: str, message: str) -> RuleFileError:
        return self.rules.error(dotted, message)

    def get(self, dotted: str, kind: type | tuple[type, ...]) -> Cited[Any]:
        self.read.add(dotted)
        value = self.rules.value_of(dotted, kind)
        found = self.rules.require(dotted)
        return Cited(value, found.article, dotted, found.reading)

    def count(self, dotted: str, allowed: Sequence[int]) -> Cited[int]:
        found: Cited[int] = self.get(dotted, int)
        if found.value not in allowed:
            shown = ", ".join(map(str, allowed))
            raise self.error(dotted, f"{found.value} is not one the engine computes ({shown})")
        return found

    def number(self, dotted: str) -> Cited[Fraction]:
        self.read.add(dotted)
        found = self.rules.require(dotted)
        value = number(found.value)
        if value is None or isinstance(found.value, float):
            raise self.error(
                dotted, f"expected an integer or a fraction like '3/2', got {written(found.value)}"
            )
        return Cited(value, found.article, dotted, found.reading)

    def choice(self, dotted: str, allowed: tuple[str, ...]) -> Cited[str]:
        self.read.add(dotted)
        found = self.rules.require(dotted)
        return Cited(self.rules.choice(dotted, allowed), found.article, dotted, found.reading)

    def table(self, dotted: str) -> Mapping[str, Any]:
        return self.rules.table(dotted)

    def check_all_read(self) -> None:
        for table in DESCRIPTION_TABLES:
            if table in self.rules.data:
                for dotted in _value_keys(self.rules.table(table), table):
                    if dotted not in self.read:
                        raise self.error(dotted, "unknown key (nothing in the game reads it)")


def _is_value(node: Any) -> bool:
    """A rule value (``{ value = ... }``), not a table of them."""
    return not isinstance(node, Mapping) or "value" in node


def _value_keys(node: Mapping[str, Any], prefix: str) -> list[str]:
    out = []
    for key, child in node.items():
        dotted = f"{prefix}.{key}"
        if not _is_value(child):
            out += _value_keys(child, dotted)
        else:
            out.append(dotted)
    return out


def _deal(read: _Reader) -> Deal:
    uses = read.count("game.hand_size", sorted(VOCABULARY))
    player = read.get("deal.player_cards", int)
    dealer = read.get("deal.dealer_cards", int)
    for cards in (player, dealer):
        if cards.value < uses.value:
            raise read.error(
                cards.key,
                f"{cards.value} cards cannot make a hand of game.hand_size = {uses.value} cards",
            )
    if player.value + dealer.value > DECK:
        raise read.error(
            dealer.key, f"{player.value} + {dealer.value} cards are more than one deck of {DECK}"
        )
    if player.value > MAX_PLAYER_CARDS:
        raise read.error(
            player.key, f"{player.value}: the engine deals the player at most {MAX_PLAYER_CARDS}"
        )
    if dealer.value > MAX_DEALER_CARDS:
        raise read.error(
            dealer.key, f"{dealer.value}: the engine deals the dealer at most {MAX_DEALER_CARDS}"
        )
    upcards = read.get("deal.upcards", int)
    if not 0 <= upcards.value <= MAX_UPCARDS:
        raise read.error(
            "deal.upcards",
            f"{upcards.value}: the engine computes 0 or {MAX_UPCARDS} dealer card(s) face up",
        )
    return Deal(player, dealer, uses, upcards)


def _ranking(read: _Reader, uses: Cited[int]) -> Ranking:
    kind = read.choice("ranking.ordering", ("statute", "rank-only"))
    read.choice("ranking.ace_low_straight", ("lowest",))
    order = read.get("ranking.rank_order", str)
    if " ".join(order.value.split()) != RANK_ORDER:
        raise read.error(
            "ranking.rank_order",
            f"{written(order.value)}: the engine implements only {RANK_ORDER!r} (highest first)",
        )
    suits = read.get("ranking.suit_order", list)
    if sorted(map(str, suits.value)) != sorted(SUITS) or len(suits.value) != len(SUITS):
        raise read.error(
            "ranking.suit_order",
            f"expected the four suits {', '.join(SUITS)}, each once, highest first; "
            f"got {written(suits.value)}",
        )
    ace_low = read.choice("ranking.ace_low_straight_suit", ("top-of-sequence", "ace"))
    pair = read.choice("ranking.pair_suit", ("higher", "lower"))
    if kind.value == "rank-only":
        for dotted, unused in SUIT_VALUES_UNUSED.items():
            if read.rules.require(dotted).value != unused:
                raise read.error(
                    dotted,
                    'has no effect when ranking.ordering is "rank-only" (suits never decide): '
                    f"only {unused!r} is accepted",
                )
    if uses.value == 3 and pair.value != "higher":
        raise read.error(
            "ranking.pair_suit",
            "has no effect on 3-card hands (the kicker's suit decides between equal pairs): "
            "only 'higher' is accepted",
        )
    categories = _categories(read, "ranking.categories", uses, steps=True)
    return Ranking(
        uses=uses.value,
        categories=tuple(
            Category(name, tuple(value), article, key) for name, value, article, key in categories
        ),
        suit_decides=Cited(kind.value == "statute", kind.article, kind.key, kind.reading),
        ace_low_straight_suit=ace_low,
        pair_suit=pair,
        suit_order=Cited(tuple(map(str, suits.value)), suits.article, suits.key, suits.reading),
    )


def _categories(
    read: _Reader, table: str, uses: Cited[int], *, steps: bool
) -> list[tuple[str, Any, str, str]]:
    """The categories of a table, in the order written (highest first): exactly the
    engine's vocabulary for ``uses`` (``royal-flush`` optional in 5-card hands). With
    ``steps``, each value must be the steps the engine compares."""
    names = list(read.table(table))
    size = f"{uses.value}-card hands (as {uses.key} says)"
    vocabulary = VOCABULARY[uses.value]
    for name in names:
        if name not in vocabulary:
            raise read.error(
                f"{table}.{name}",
                f"unknown category for {size}; the engine's: {', '.join(vocabulary)}",
            )
    missing = [n for n in vocabulary if n not in names and n not in OPTIONAL[uses.value]]
    if missing:
        raise read.error(f"{table}.{missing[0]}", f"missing: {size} have this category")
    out = []
    for name in names:
        dotted = f"{table}.{name}"
        if steps:
            found = read.get(dotted, list)
            implemented = STEPS[uses.value][name]
            if tuple(found.value) != implemented:
                raise read.error(
                    dotted,
                    f"the engine compares {name} hands by {list(implemented)!r} in that "
                    f"order; other tie-break steps ({found.value!r}) are not implemented",
                )
            out.append((name, found.value, found.article, dotted))
        else:
            number_ = read.number(dotted)
            out.append((name, number_.value, number_.article, dotted))
    return out


def _rank_index(read: _Reader, dotted: str, value: Any) -> int:
    code = str(value).upper()
    names = [n.upper() for n in RANK_NAMES]
    if isinstance(value, bool) or code not in names:
        raise read.error(dotted, f"{written(value)} is not a rank ({', '.join(RANK_NAMES)})")
    return names.index(code)


def _ranks(read: _Reader, dotted: str, category: str, uses: int) -> Cited[tuple[int, ...]]:
    found = read.get(dotted, list)
    ranks = tuple(_rank_index(read, dotted, v) for v in found.value)
    fields = RANK_FIELDS[uses][category]
    if not 1 <= len(ranks) <= fields:
        raise read.error(
            dotted, f"a {category} threshold names 1 to {fields} ranks, got {written(found.value)}"
        )
    # Ranks compared card by card fall from the first; a pair's kickers fall after it.
    falling = ranks[:2] if category == "two-pair" else ranks
    if category in ("pair", "one-pair"):
        falling = ranks[1:]
    if len(set(ranks)) != len(ranks) or any(b >= a for a, b in itertools.pairwise(falling)):
        raise read.error(dotted, f"no {category} has these ranks: {written(found.value)}")
    return Cited(ranks, found.article, dotted, found.reading)


def _high_card_qualifier(read: _Reader, dotted: str, ranking: Ranking) -> Qualifier:
    ranks = _ranks(read, dotted, "high-card", ranking.uses)
    return Qualifier("high-card", ranks.value, ranks.article, dotted)


def _qualifier(read: _Reader, ranking: Ranking) -> Qualifier | None:
    allowed = ("none", *ranking.names)
    category = read.choice("qualifier.category", allowed)
    if category.value == "none":
        return None
    ranks = _ranks(read, "qualifier.ranks", category.value, ranking.uses)
    return Qualifier(category.value, ranks.value, category.article, category.key)


def _zero(article: str, key: str) -> Cited[Fraction]:
    return Cited(Fraction(0), article, key)


def _follow_settlement(read: _Reader, ranking: Ranking) -> Settlement:
    """The statutes' one-decision layout: ``[play]`` values are the player's whole net
    result per unit of the initial bet, by outcome; ``play.win`` by category; the bonus
    ``play.bonus`` paid whenever the player follows."""
    stake = read.number("play.initial_bet")
    if stake.value <= 0:
        raise read.error("play.initial_bet", f"{stake.value}: the initial bet must be > 0")
    follow = read.number("play.follow_bet")
    if follow.value < 0:
        raise read.error("play.follow_bet", f"{follow.value}: a stake cannot be negative")

    def whole(key: str) -> Part:
        found = read.number(key)
        return Part(found, _zero(found.article, key))

    win = _by_position(read, "play.win", ranking)
    return Settlement(
        stake=stake,
        fold=read.number("play.fold"),
        not_qualifying=whole("play.dealer_not_qualifying"),
        win=tuple(Part(w, _zero(w.article, w.key)) for w in win),
        tie=whole("play.tie"),
        loss=whole("play.loss"),
        bonus=_by_position(read, "play.bonus", ranking),
        raises=(follow,),
        cap=None,
        capped=tuple(False for _ in win),
        action="follow",
    )


def _ante_raise_settlement(read: _Reader, ranking: Ranking) -> Settlement:
    """The statutes' ante/raise layout: one raise of ``raise_multiple`` antes, the raise paid
    by category (``play.raise_pays``, the royal within ``play.royal_option``), the cap."""
    multiple = read.number("play.raise_multiple")
    if multiple.value <= 0:
        raise read.error("play.raise_multiple", f"{multiple.value}: a raise must be positive")
    pays = _by_position(read, "play.raise_pays", ranking)
    low = read.number("play.royal_option.minimum")
    high = read.number("play.royal_option.maximum")
    if "royal-flush" in ranking.names:
        royal = pays[ranking.position("royal-flush")]
        if not low.value <= royal.value <= high.value:
            raise read.error(royal.key, f"must be within {low.value}..{high.value}")
    applies = read.choice("play.cap.applies_to", ("raise",))
    cap = _cap(read, "play.cap", ranking, Cited(("raise",), applies.article, applies.key))
    loss = read.number("play.loss")
    tie = read.number("play.tie")
    ante_win = read.number("play.ante_win")
    names = tuple(reversed(ranking.names))
    return Settlement(
        stake=Cited(Fraction(1), multiple.article, "play.raise_multiple"),
        fold=read.number("play.fold"),
        not_qualifying=Part(
            read.number("play.not_qualifying_ante"), read.number("play.not_qualifying_raise")
        ),
        win=tuple(Part(ante_win, pay) for pay in pays),
        tie=Part(tie, _zero(tie.article, tie.key)),
        loss=Part(loss, loss),
        bonus=(),
        raises=(multiple,),
        cap=cap,
        capped=tuple(name in cap.categories.value for name in names),
    )


def _by_position(read: _Reader, table: str, ranking: Ranking) -> tuple[Cited[Fraction], ...]:
    """One value per category of the ranking from a table, by position (0 the lowest)."""
    return tuple(read.number(f"{table}.{name}") for name in reversed(ranking.names))


def _wins(
    read: _Reader, ranking: Ranking, qualifier: Qualifier | None
) -> tuple[Cited[Fraction], ...]:
    """The raise's win by category, by position. A category below the qualifier's never beats
    a dealer who qualifies: a value for it could never be paid and is refused (it reads 0)."""
    table = "settlement.raise.win"
    floor = 0 if qualifier is None else ranking.position(qualifier.category)
    wins = []
    for position, name in enumerate(reversed(ranking.names)):
        key = f"{table}.{name}"
        if position >= floor:
            wins.append(read.number(key))
        elif name in read.table(table):
            raise read.error(
                key,
                f"is never paid: a {name} never beats a dealer who qualifies with "
                f"{qualifier.category if qualifier else ''} or better (qualifier.category)",
            )
        else:
            wins.append(_zero(qualifier.article if qualifier else "", key))
    return tuple(wins)


def _settlement(read: _Reader, ranking: Ranking, qualifier: Qualifier | None) -> Settlement:
    """The generic layout: ``[decision] raises``, ``[settlement]`` with the ante's and the
    raise's net results by outcome (``ante``, ``raise``), ties, the ante bonus by category.
    Without a qualifier the dealer always plays: a value for a dealer who does not qualify
    cannot matter and is refused."""
    raises = read.get("decision.raises", list)
    multiples: list[Cited[Fraction]] = []
    for i, value in enumerate(raises.value):
        multiple = number(value)
        if multiple is None or multiple <= 0 or isinstance(value, float):
            raise read.error(
                "decision.raises", f"item {i + 1}: {written(value)} is not a positive multiple"
            )
        if multiples and multiple <= multiples[-1].value:
            raise read.error(
                "decision.raises", "the multiples are written smallest first, each once"
            )
        multiples.append(Cited(multiple, raises.article, "decision.raises"))
    if not multiples:
        raise read.error("decision.raises", "no raise: the player must be able to play")
    ties = read.choice("settlement.ties", TIES)

    def part(outcome: str) -> Part:
        return Part(
            read.number(f"settlement.ante.{outcome}"), read.number(f"settlement.raise.{outcome}")
        )

    ante_win = read.number("settlement.ante.win")
    raise_wins = _wins(read, ranking, qualifier)
    if "bonus" in read.table("settlement"):
        bonus = _by_position(read, "settlement.bonus", ranking)
    else:
        bonus = ()
    loss = part("loss")
    if qualifier is not None:
        not_qualifying = part("not_qualifying")
    else:
        for bet in ("ante", "raise"):
            if "not_qualifying" in read.table(f"settlement.{bet}"):
                raise read.error(
                    f"settlement.{bet}.not_qualifying",
                    "has no effect: the dealer always qualifies (qualifier.category = 'none')",
                )
        not_qualifying = Part(_zero(ties.article, "qualifier"), _zero(ties.article, "qualifier"))
    tie = {"player": None, "dealer": loss}.get(
        ties.value, Part(_zero(ties.article, ties.key), _zero(ties.article, ties.key))
    )
    cap = None
    if "cap" in read.table("settlement"):
        cap = _cap(read, "settlement.cap", ranking, _cap_bets(read, bool(bonus)))
    names = tuple(reversed(ranking.names))
    return Settlement(
        stake=Cited(Fraction(1), raises.article, "decision.raises"),
        fold=read.number("settlement.fold"),
        not_qualifying=not_qualifying,
        win=tuple(Part(ante_win, w) for w in raise_wins),
        tie=tie,
        loss=loss,
        bonus=bonus,
        raises=tuple(multiples),
        cap=cap,
        capped=tuple(cap is not None and name in cap.categories.value for name in names),
    )


def _cap(read: _Reader, table: str, ranking: Ranking, bets: Cited[tuple[str, ...]]) -> Cap:
    """A per-round cap's table: the maximum payout (currency units, 0 = none), the ante it is
    judged against, and the categories it covers (the ranking's, each once)."""
    maximum = read.number(f"{table}.maximum_payout")
    if maximum.value < 0:
        raise read.error(maximum.key, "must be >= 0 (0 = no maximum)")
    ante = read.number(f"{table}.ante")
    if ante.value <= 0:
        raise read.error(ante.key, "the ante must be > 0")
    capped = read.get(f"{table}.categories", list)
    for name in capped.value:
        if name not in ranking.names:
            raise read.error(capped.key, f"unknown category {written(name)}")
    names = tuple(map(str, capped.value))
    if len(set(names)) != len(names):
        raise read.error(capped.key, "each category is named once")
    if not names:
        raise read.error(capped.key, "no category: name the categories the cap covers")
    return Cap(maximum, ante, Cited(names, capped.article, capped.key, capped.reading), bets)


def _cap_bets(read: _Reader, has_bonus: bool) -> Cited[tuple[str, ...]]:
    """The bets a generic layout's cap covers (``settlement.cap.bets``), each once."""
    found = read.get("settlement.cap.bets", list)
    bets = tuple(map(str, found.value))
    for bet in bets:
        if bet not in CAP_BETS:
            raise read.error(
                found.key, f"unknown bet {written(bet)}; a cap covers {', '.join(CAP_BETS)}"
            )
    if len(set(bets)) != len(bets):
        raise read.error(found.key, "each bet is named once")
    if not bets:
        raise read.error(found.key, "no bet: name the bets the cap covers")
    if "bonus" in bets and not has_bonus:
        raise read.error(found.key, "covers the bonus, but the settlement has no bonus")
    return Cited(bets, found.article, found.key, found.reading)


def _check_side_pay(read: _Reader, key: str, value: Fraction) -> None:
    if value < -1:
        raise read.error(key, f"{value}: a side bet loses at most its stake (-1)")


def _pair_plus(read: _Reader, ranking: Ranking, deal: Deal) -> SideBet:
    """The statutes' ``[pair_plus]`` (多寶): the player's own hand, the game's ranking."""
    pays = _by_position(read, "pair_plus", ranking)
    for pay in pays:
        _check_side_pay(read, pay.key, pay.value)
    first = read.rules.require(f"pair_plus.{ranking.names[0]}")
    return SideBet(
        id="pair_plus",
        name=Cited("pair plus", first.article, "pair_plus"),
        cards=Cited("player", first.article, "pair_plus"),
        uses=deal.uses,
        categories=ranking.names,
        pays=pays,
        minimum_rank={},
    )


def _side_bet(read: _Reader, bet: str, deal: Deal) -> SideBet:
    prefix = f"side_bets.{bet}"
    name = read.get(f"{prefix}.name", str)
    cards = read.choice(f"{prefix}.cards", SIDE_BET_CARDS)
    uses = read.count(f"{prefix}.hand_size", sorted(VOCABULARY))
    made_of = deal.player_cards.value + (
        deal.dealer_cards.value if cards.value == "player-and-dealer" else 0
    )
    if uses.value > made_of:
        raise read.error(
            uses.key, f"{uses.value} cards cannot be made from the {made_of} cards of the bet"
        )
    pays = _categories(read, f"{prefix}.pays", uses, steps=False)
    for _, value, _, key in pays:
        _check_side_pay(read, key, value)
    categories = tuple(name_ for name_, *_ in pays)
    positions = {n: len(categories) - 1 - i for i, n in enumerate(categories)}
    minimum: dict[int, Cited[int]] = {}
    if "minimum_rank" in read.table(prefix):
        for category in read.table(f"{prefix}.minimum_rank"):
            dotted = f"{prefix}.minimum_rank.{category}"
            if category not in positions:
                raise read.error(dotted, f"unknown category: the bet pays {', '.join(categories)}")
            found = read.get(dotted, (str, int))
            minimum[positions[category]] = Cited(
                _rank_index(read, dotted, found.value), found.article, dotted
            )
    return SideBet(
        id=bet,
        name=name,
        cards=cards,
        uses=uses,
        categories=categories,
        pays=tuple(
            Cited(Fraction(value), article, key) for _, value, article, key in reversed(pays)
        ),
        minimum_rank=minimum,
    )


def _progressive(read: _Reader, deal: Deal, ranking: Ranking) -> ProgressiveTerms:
    """``[progressive]``: the bet, the meter and its rules, the fixed prizes by category.

    Its law (a seat's five cards, and the royals and straight flushes of several seats dealt
    from one deck) is computed for a player's hand of five cards ranked by the five-card
    categories with the royal flush apart: another game's progressive is refused."""
    if (deal.player_cards.value, deal.uses.value) != (PROGRESSIVE_HAND, PROGRESSIVE_HAND):
        raise read.error(
            "progressive",
            f"is computed for a player's hand of {PROGRESSIVE_HAND} cards ranked by the "
            f"{PROGRESSIVE_HAND}-card categories (its law: one seat's five cards and several "
            "seats' royals and straight flushes from one deck); this game deals the player "
            f"{deal.player_cards.value} cards ({deal.player_cards.key}) making hands of "
            f"{deal.uses.value} ({deal.uses.key})",
        )
    missing = [name for name in METER_CATEGORIES if name not in ranking.names]
    if missing:
        raise read.error(
            "progressive",
            f"the meter pays the royal flush and the straight flush, but the ranking has no "
            f"{missing[0]} category (ranking.categories)",
        )
    fixed_table = read.table("progressive.fixed")
    for name in fixed_table:
        if name not in ranking.names:
            raise read.error(
                f"progressive.fixed.{name}",
                f"unknown category; the game's ranking: {', '.join(ranking.names)}",
            )
    fixed = []
    for name in ranking.names:
        if name in fixed_table or name in METER_CATEGORIES:
            prize = read.number(f"progressive.fixed.{name}")
            if prize.value < 0:
                raise read.error(prize.key, f"{prize.value}: a prize cannot be negative")
            fixed.append((name, prize))
    shares = []
    for key in ("royal_meter_share", "straight_flush_meter_share"):
        share = read.number(f"progressive.{key}")
        if not 0 <= share.value <= 1:
            raise read.error(share.key, f"{share.value}: a share of the meter is within 0..1")
        shares.append(share)
    bet = read.number("progressive.bet")
    if bet.value <= 0:
        raise read.error("progressive.bet", "the bet must be positive")
    players = read.get("progressive.players", int)
    if not 1 <= players.value <= MAX_PROGRESSIVE_PLAYERS:
        raise read.error(
            "progressive.players", f"between 1 and {MAX_PROGRESSIVE_PLAYERS} player seats"
        )
    paying = [name for name, _ in fixed]
    listed = read.get("progressive.meter_pays", list)
    if any(not isinstance(s, str) or s not in paying for s in listed.value) or len(
        set(listed.value)
    ) != len(listed.value):
        raise read.error(
            "progressive.meter_pays",
            f"expected distinct paying categories among {', '.join(paying)}, got {listed.value!r}",
        )
    unit = read.number("progressive.prize_unit")
    if unit.value <= 0:
        raise read.error("progressive.prize_unit", "the prize unit must be positive")
    return ProgressiveTerms(
        bet=bet,
        meter=read.number("progressive.meter"),
        seed=read.number("progressive.seed"),
        contribution=read.number("progressive.contribution"),
        royal_meter_share=shares[0],
        straight_flush_meter_share=shares[1],
        players=players,
        payment_order=read.choice("progressive.payment_order", PAYMENT_ORDERS),
        straight_flush_base=read.choice("progressive.straight_flush_base", STRAIGHT_FLUSH_BASES),
        meter_pays=Cited(tuple(map(str, listed.value)), listed.article, listed.key, listed.reading),
        contribution_timing=read.choice("progressive.contribution_timing", CONTRIBUTION_TIMINGS),
        prize_unit=unit,
        fixed=tuple(fixed),
    )
