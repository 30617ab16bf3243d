"""The statutes' poker orderings: evaluate a hand, compare two, and say which rule decided.

Q Poker hands have 3 cards, Caribbean Stud hands 5. The ordering (statute with suit
tie-breaks, or standard rank-only), the suit order and every ambiguous reading come from the
rule file; a value the core does not implement (another rank order, other tie-break steps) is
refused with its line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tablecert import _core
from tablecert.errors import CardError, GameError, RuleFileError
from tablecert.notation import written
from tablecert.rules import RuleFile, load_rules

GAMES: dict[str, int] = {"q-poker": 3, "caribbean-stud": 5}
# The deal each game's own engine implements: player cards, dealer cards, dealer upcards.
DEALS: dict[str, tuple[int, int, int]] = {"q-poker": (3, 3, 0), "caribbean-stud": (5, 5, 1)}
DEFAULT_RULES: dict[str, str] = {
    "q-poker": "q-poker.macau",
    "caribbean-stud": "caribbean-stud.macau",
}
SUIT_NAMES = ("diamonds", "clubs", "hearts", "spades")  # by suit id (card id % 4)
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
# The only rank order the core implements (straights and keys are built on it), highest first.
RANK_ORDER = tuple(reversed(RANK_NAMES))
# What the suit-only values must be where suits never decide (the statutes' own values).
SUIT_VALUES_UNUSED = {
    "ranking.suit_order": ["spades", "hearts", "clubs", "diamonds"],
    "ranking.ace_low_straight_suit": "top-of-sequence",
    "ranking.pair_suit": "higher",
}

Hand = str | Sequence[str] | Sequence[int]
RulesSource = str | Path | RuleFile | None
# A TieBreaks as plain values (suit decides, ace-low straight suit, pair suit, suit order), to
# send to another process: ``_core.TieBreaks(*spec)`` rebuilds it.
TieBreakSpec = tuple[bool, str, str, str]


def tie_break_spec(tb: _core.TieBreaks) -> TieBreakSpec:
    return (tb.suit_decides, tb.ace_low_straight_suit, tb.pair_suit, tb.suit_order)


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
    suits: tuple[str, ...]  # the suit order, highest first

    @property
    def suit_decides(self) -> bool:
        return self.tie_breaks.suit_decides

    def suit_name(self, field: int) -> str:
        """The suit whose place in the suit order is a key's suit field (0 lowest)."""
        return self.suits[len(self.suits) - 1 - field]


def check_game(game: str) -> int:
    """The hand size of a poker game id; a clear error for an unknown one."""
    if game not in GAMES:
        raise GameError.unknown(game, GAMES)
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
    """The ordering of ``game`` under ``rules`` (a path, a bundled name or a loaded file;
    ``None``: the game's statute, bundled with tablecert and read once per process like its
    code; a file is re-read when it changes, see ``load_rules``)."""
    if rules is None:
        return _statute_ordering(game)
    check_game(game)
    return _ordering(_rule_file(game, rules))


@cache
def _statute_ordering(game: str) -> Ordering:
    check_game(game)
    return _ordering(_rule_file(game, None))


@cache
def _ordering(rules: RuleFile) -> Ordering:
    hand_size = GAMES[rules.game]
    if rules.value_of("game.hand_size", int) != hand_size:
        raise rules.error("game.hand_size", f"{rules.game} hands have {hand_size} cards")
    for key, dealt in zip(
        ("player_cards", "dealer_cards", "upcards"), DEALS[rules.game], strict=True
    ):
        value = rules.value_of(f"deal.{key}", int)
        if value != dealt:
            raise rules.error(f"deal.{key}", f"{value}: the {rules.game} engine deals {dealt}")
    kind = rules.choice("ranking.ordering", ("statute", "rank-only"))
    rules.choice("ranking.ace_low_straight", ("lowest",))
    _check_rank_order(rules)
    suits = _suit_order(rules)
    ace_low = rules.choice("ranking.ace_low_straight_suit", ("top-of-sequence", "ace"))
    pair = rules.choice("ranking.pair_suit", ("higher", "lower"))
    if kind == "rank-only":
        for dotted, statute in SUIT_VALUES_UNUSED.items():
            if rules.require(dotted).value != statute:
                raise rules.error(
                    dotted,
                    'has no effect when ranking.ordering is "rank-only" (suits never decide): '
                    f"only the statute's {statute!r} is accepted",
                )
    if hand_size == 3 and pair != "higher":
        raise rules.error(
            "ranking.pair_suit",
            "has no effect on 3-card hands (the kicker's suit decides between equal pairs): "
            "only 'higher' is accepted",
        )
    tie_breaks = _core.TieBreaks(
        suit_decides=kind == "statute",
        ace_low_straight_suit=ace_low,
        pair_suit=pair,
        suit_order="".join(name[0] for name in suits),
    )
    categories = tuple(_core.category_names(hand_size))
    steps: list[tuple[str, ...]] = []
    articles: list[str] = []
    for name, implemented in zip(categories, _core.category_steps(hand_size), strict=True):
        dotted = f"ranking.categories.{name.replace(' ', '-')}"
        entry = rules.require(dotted)
        if entry.value != implemented:
            raise rules.error(
                dotted,
                f"the core compares {name} hands by {implemented!r} in that order; "
                f"other tie-break steps ({entry.value!r}) are not implemented",
            )
        steps.append(tuple(implemented))
        articles.append(entry.article)
    return Ordering(
        rules.game, hand_size, tie_breaks, categories, tuple(steps), tuple(articles), rules, suits
    )


def _check_rank_order(rules: RuleFile) -> None:
    """The rank order is stated, not chosen: the core implements only A high to 2 low."""
    value = rules.value_of("ranking.rank_order", str)
    if tuple(value.split()) != RANK_ORDER:
        raise rules.error(
            "ranking.rank_order",
            f"{written(value)}: the core implements only {' '.join(RANK_ORDER)!r} (highest first)",
        )


def _suit_order(rules: RuleFile) -> tuple[str, ...]:
    """The four suits, highest first, each once (the order decides suit tie-breaks)."""
    value = rules.value_of("ranking.suit_order", list)
    if sorted(map(str, value)) != sorted(SUIT_NAMES) or len(value) != len(SUIT_NAMES):
        raise rules.error(
            "ranking.suit_order",
            f"expected the four suits {', '.join(reversed(SUIT_NAMES))}, each once, highest "
            f"first; got {written(value)}",
        )
    return tuple(str(v) for v in value)


def parse_hand(hand: Hand, size: int | None = None) -> tuple[int, ...]:
    """Card ids of a hand given as text (``"As Kh Td"``, ``"A♠ K♥ 10♦"``) or card codes/ids."""
    if isinstance(hand, str):
        if "-" in hand:  # a common way to write a hand, refused as a whole, not as card "-Kh"
            raise CardError(
                f"{hand[:80]!r}: cards are separated by spaces, commas or semicolons, not hyphens"
            )
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


def _card_list(hand: Hand, size: int) -> list[int]:
    """``parse_hand(hand, size)`` as the list the core takes: a well-formed hand text is
    parsed by the core once and handed on as is (the per-call path of ``evaluate`` and
    ``compare``); anything else, and every error, goes through ``parse_hand``."""
    if isinstance(hand, str) and "-" not in hand:
        cards = _core.parse_hand(hand)
        if len(cards) == size:
            return cards
    return list(parse_hand(hand, size))


def _single_card(code: str) -> int:
    cards = _core.parse_hand(code)
    if len(cards) != 1:
        raise CardError(f"expected one card code, got {code!r}")
    return cards[0]


def format_hand(cards: Sequence[int]) -> str:
    """Card codes, highest card first."""
    return " ".join(_core.card_code(c) for c in sorted(cards, reverse=True))


@dataclass(frozen=True, slots=True)
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


# The slots' own setters (what a frozen dataclass's __init__ reaches through object.__setattr__).
_SET_GAME, _SET_CARDS, _SET_CATEGORY, _SET_CATEGORY_INDEX, _SET_KEY = (
    Evaluation.__dict__[name].__set__
    for name in ("game", "cards", "category", "category_index", "key")
)


def _evaluation(
    game: str, cards: tuple[int, ...], category: str, category_index: int, key: int
) -> Evaluation:
    """``Evaluation(game, cards, category, category_index, key)``, filled in directly: the
    frozen dataclass's ``__init__`` (one ``object.__setattr__`` per field) was a third of an
    ``evaluate`` call. The result is the same object: equal, hashed, printed and still frozen
    like one built by ``__init__``. Slots, not a per-object dict: a loop that keeps 10^5
    evaluations gives the garbage collector half the containers to walk."""
    out = object.__new__(Evaluation)
    _SET_GAME(out, game)
    _SET_CARDS(out, cards)
    _SET_CATEGORY(out, category)
    _SET_CATEGORY_INDEX(out, category_index)
    _SET_KEY(out, key)
    return out


def evaluate(game: str, hand: Hand, rules: RulesSource = None) -> Evaluation:
    """Category and strength key of a hand; keys compare as the statute ranks hands.

    One call from text is one core call (parse, key, category), about 1 us (BENCHMARKS.md,
    "Python API"). For many hands the fast path is one batch call,
    ``tablecert.hand_arrays.strength_keys(game, ids)`` on an (n, hand size) array of card ids:
    tens of millions of keys a second, 20-30 times a loop of calls."""
    order = ordering(game, rules)
    if isinstance(hand, str) and (
        fast := _core.evaluate_text(hand, order.hand_size, order.tie_breaks)
    ):
        cards, key, category_index = fast
    else:
        listed = _card_list(hand, order.hand_size)
        key = _core.strength_key(listed, order.tie_breaks)
        cards, category_index = tuple(listed), _core.key_fields(key)[0]
    return _evaluation(game, cards, order.categories[category_index], category_index, key)


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
    _disjoint(a.cards, b.cards)
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
            f"{steps[-1]} ({order.suit_name(max(suit_a, suit_b))} over "
            f"{order.suit_name(min(suit_a, suit_b))})",
            article,
        )
    return Decision(a, b, 0, "ranks", article)


def _rank_pair(ra: int, rb: int) -> str:
    return f"{RANK_NAMES[max(ra, rb)]} over {RANK_NAMES[min(ra, rb)]}"


def _category_order_article(order: Ordering) -> str:
    return str(order.rules.require("ranking.ordering").article)


def _disjoint(a: Sequence[int], b: Sequence[int]) -> None:
    shared = set(a) & set(b)
    if shared:
        raise CardError(
            f"the two hands share {format_hand(sorted(shared))}: hands from one deck are disjoint"
        )


def compare(game: str, hand_a: Hand, hand_b: Hand, rules: RulesSource = None) -> int:
    """> 0 if hand A wins, < 0 if hand B wins, 0 only for a push under rules that allow one
    (``decide`` says which step decided; this is the fast path for a loop of single pairs;
    for many pairs, compare the keys of two ``hand_arrays.strength_keys`` batches)."""
    order = ordering(game, rules)
    if isinstance(hand_a, str) and isinstance(hand_b, str):
        fast = _core.compare_texts(hand_a, hand_b, order.hand_size, order.tie_breaks)
        if fast is not None:
            return fast
    a = _card_list(hand_a, order.hand_size)
    b = _card_list(hand_b, order.hand_size)
    _disjoint(a, b)
    ka = _core.strength_key(a, order.tie_breaks)
    kb = _core.strength_key(b, order.tie_breaks)
    return (ka > kb) - (ka < kb)
