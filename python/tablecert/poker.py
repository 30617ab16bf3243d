"""The statutes' poker orderings: evaluate a hand, compare two, and say which rule decided.

Q Poker hands have 3 cards, Caribbean Stud hands 5. The ordering (statute with suit
tie-breaks, or standard rank-only) and every ambiguous reading come from the rule file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tablecert import _core
from tablecert.errors import CardError, RuleFileError
from tablecert.rules import RuleFile, load_rules

GAMES: dict[str, int] = {"q-poker": 3, "caribbean-stud": 5}
DEFAULT_RULES: dict[str, str] = {
    "q-poker": "q-poker.macau",
    "caribbean-stud": "caribbean-stud.macau",
}
SUIT_NAMES = ("diamonds", "clubs", "hearts", "spades")
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

Hand = str | Sequence[str] | Sequence[int]
RulesSource = str | Path | RuleFile | None


@dataclass(frozen=True)
class Ordering:
    """One game's hand ordering as a rule file defines it."""

    game: str
    hand_size: int
    tie_breaks: _core.TieBreaks
    categories: tuple[str, ...]
    steps: tuple[tuple[str, ...], ...]
    articles: tuple[str, ...]
    rules: RuleFile

    @property
    def suit_decides(self) -> bool:
        return self.tie_breaks.suit_decides


def check_game(game: str) -> int:
    """The hand size of a poker game id; a clear error for an unknown one."""
    if game not in GAMES:
        raise RuleFileError(f"unknown poker game {game!r}; expected one of {', '.join(GAMES)}")
    return GAMES[game]


def _rule_file(game: str, rules: RulesSource) -> RuleFile:
    if isinstance(rules, RuleFile):
        loaded = rules
    else:
        loaded = load_rules(rules if rules is not None else DEFAULT_RULES[game])
    if loaded.game != game:
        raise RuleFileError(f"{loaded.path}: rule file is for {loaded.game!r}, not {game!r}")
    return loaded


def ordering(game: str, rules: RulesSource = None) -> Ordering:
    """The ordering of ``game`` under ``rules`` (a path, a bundled name or a loaded file)."""
    check_game(game)
    return _ordering(_rule_file(game, rules))


@cache
def _ordering(rules: RuleFile) -> Ordering:
    hand_size = GAMES[rules.game]
    if rules.value_of("game.hand_size", int) != hand_size:
        raise rules.error("game.hand_size", f"{rules.game} hands have {hand_size} cards")
    kind = rules.choice("ranking.ordering", ("statute", "rank-only"))
    rules.choice("ranking.ace_low_straight", ("lowest",))
    tie_breaks = _core.TieBreaks(
        suit_decides=kind == "statute",
        ace_low_straight_suit=rules.choice(
            "ranking.ace_low_straight_suit", ("top-of-sequence", "ace")
        ),
        pair_suit=rules.choice("ranking.pair_suit", ("higher", "lower")),
    )
    categories = tuple(_core.category_names(hand_size))
    steps: list[tuple[str, ...]] = []
    articles: list[str] = []
    for name in categories:
        dotted = f"ranking.categories.{name.replace(' ', '-')}"
        entry = rules.require(dotted)
        if not isinstance(entry.value, list) or not all(isinstance(s, str) for s in entry.value):
            raise rules.error(dotted, "expected a list of tie-break step names")
        steps.append(tuple(entry.value))
        articles.append(entry.article)
    return Ordering(
        rules.game, hand_size, tie_breaks, categories, tuple(steps), tuple(articles), rules
    )


def parse_hand(hand: Hand, size: int | None = None) -> tuple[int, ...]:
    """Card ids of a hand given as text (``"As Kh Td"``, ``"A♠ K♥ 10♦"``) or card codes/ids."""
    if isinstance(hand, str):
        cards = tuple(_core.parse_hand(hand))
    else:
        cards = tuple(c if isinstance(c, int) else _single_card(c) for c in hand)
        for c in cards:
            _core.card_code(c)  # range check with a clear message
        if len(set(cards)) != len(cards):
            dup = next(c for c in cards if cards.count(c) > 1)
            raise CardError(f"duplicate card {_core.card_code(dup)}")
    if size is not None and len(cards) != size:
        raise CardError(f"a hand here has {size} cards, got {len(cards)}: {format_hand(cards)}")
    return cards


def _single_card(code: str) -> int:
    cards = _core.parse_hand(code)
    if len(cards) != 1:
        raise CardError(f"expected one card code, got {code!r}")
    return cards[0]


def format_hand(cards: Sequence[int]) -> str:
    """Card codes, highest card first."""
    return " ".join(_core.card_code(c) for c in sorted(cards, reverse=True))


@dataclass(frozen=True)
class Evaluation:
    """A hand's category and strength key under one ordering."""

    game: str
    cards: tuple[int, ...]
    category: str
    category_index: int
    key: int

    @property
    def codes(self) -> str:
        return format_hand(self.cards)

    @property
    def name(self) -> str:
        return f"{self.category} ({self.codes})"


def evaluate(game: str, hand: Hand, rules: RulesSource = None) -> Evaluation:
    """Category and strength key of a hand; keys compare as the statute ranks hands."""
    order = ordering(game, rules)
    cards = parse_hand(hand, order.hand_size)
    key = _core.strength_key(list(cards), order.tie_breaks)
    category_index = _core.key_fields(key)[0]
    return Evaluation(game, cards, order.categories[category_index], category_index, key)


@dataclass(frozen=True)
class Decision:
    """Who wins a showdown and which step of which article decided it."""

    a: Evaluation
    b: Evaluation
    outcome: int
    step: str
    article: str

    @property
    def winner(self) -> str:
        return "a" if self.outcome > 0 else "b" if self.outcome < 0 else "push"

    @property
    def explanation(self) -> str:
        if self.outcome == 0:
            return f"{self.article}: equal {self.step}; push under these rules"
        return f"{self.article}: {self.step} decides"


def decide(game: str, hand_a: Hand, hand_b: Hand, rules: RulesSource = None) -> Decision:
    """Compare two disjoint hands and name the deciding tie-break step and its article."""
    order = ordering(game, rules)
    a = evaluate(game, hand_a, order.rules)
    b = evaluate(game, hand_b, order.rules)
    shared = set(a.cards) & set(b.cards)
    if shared:
        raise CardError(
            f"the two hands share {format_hand(sorted(shared))}: hands from one deck are disjoint"
        )
    outcome = (a.key > b.key) - (a.key < b.key)
    cat_a, ranks_a, suit_a = _core.key_fields(a.key)
    cat_b, ranks_b, suit_b = _core.key_fields(b.key)
    if cat_a != cat_b:
        hi = max(cat_a, cat_b)
        return Decision(
            a,
            b,
            outcome,
            f"category ({order.categories[hi]} ranks higher)",
            _category_order_article(order),
        )
    steps = order.steps[cat_a]
    article = order.articles[cat_a]
    for i, (ra, rb) in enumerate(zip(ranks_a, ranks_b, strict=True)):
        if ra != rb:
            return Decision(
                a, b, outcome, f"{steps[min(i, len(steps) - 1)]} ({_rank_pair(ra, rb)})", article
            )
    if suit_a != suit_b:
        return Decision(
            a,
            b,
            outcome,
            f"{steps[-1]} ({SUIT_NAMES[max(suit_a, suit_b)]} over "
            f"{SUIT_NAMES[min(suit_a, suit_b)]})",
            article,
        )
    return Decision(a, b, 0, "ranks", article)


def _rank_pair(ra: int, rb: int) -> str:
    return f"{RANK_NAMES[max(ra, rb)]} over {RANK_NAMES[min(ra, rb)]}"


def _category_order_article(order: Ordering) -> str:
    return str(order.rules.require("ranking.ordering").article)


def compare(game: str, hand_a: Hand, hand_b: Hand, rules: RulesSource = None) -> int:
    """> 0 if hand A wins, < 0 if hand B wins, 0 only for a push under rules that allow one."""
    return decide(game, hand_a, hand_b, rules).outcome
