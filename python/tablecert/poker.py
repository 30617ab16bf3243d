"""The poker orderings: evaluate a hand, compare two, and say which rule decided.

A poker game is named by its rule file. Q Poker (3 cards) and Caribbean Stud (5 cards) have
their own engines in the core and are also named by their game ids (``q-poker``,
``caribbean-stud``: the statute's file); any other game is the stud poker game its rule file
describes (:mod:`tablecert.rules.stud`), its hands ranked by the generic engine's
``_core.stud_key``: a hand of any dealt size counts its best ``game.hand_size`` cards, in the
file's categories and order. The ordering (statute with suit tie-breaks, or standard
rank-only), the suit order and every ambiguous reading come from the rule file; a value the
core does not implement (another rank order, other tie-break steps) is refused with its line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from pathlib import Path

from tablecert import _core
from tablecert.bundled import BundledDataError, bundled_games, bundled_rule_file, is_bare_name
from tablecert.errors import CardError, GameError, RuleFileError
from tablecert.notation import written
from tablecert.rules import RuleFile, load_rules
from tablecert.rules.stud import (
    STEPS,
    TIES,
    Ranking,
    SideBet,
    deal_and_ranking,
    describe,
    is_stud,
)

#: The games with an engine of their own in the core, and their hand sizes.
DEDICATED_ENGINES: dict[str, int] = {"q-poker": 3, "caribbean-stud": 5}
#: The same table, under the name the report sections' dedicated paths import.
GAMES = DEDICATED_ENGINES
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
class StudHands:
    """How a described stud game (or one of its side bets) makes hands: its ranking in the
    core, the card counts a hand may have (the dealt ones, each counting its best ``uses``),
    how many cards the hands its category table counts have (the player's, or the bet's),
    and what a tie does."""

    ranking: _core.StudRanking
    sizes: tuple[int, ...]
    table_cards: int
    ties: str  # who takes equal hands: "player", "push" or "dealer"
    ties_article: str
    bet: SideBet | None = None


@dataclass(frozen=True)
class Ordering:
    """One game's hand ordering as a rule file defines it (``stud``: the generic engine's
    ranking of a described game; None for a game with its own engine)."""

    game: str
    hand_size: int
    tie_breaks: _core.TieBreaks
    categories: tuple[str, ...]
    steps: tuple[tuple[str, ...], ...]
    articles: tuple[str, ...]
    rules: RuleFile
    suits: tuple[str, ...]  # the suit order, highest first
    stud: StudHands | None = None

    @property
    def suit_decides(self) -> bool:
        return self.tie_breaks.suit_decides

    def suit_name(self, field: int) -> str:
        """The suit whose place in the suit order is a key's suit field (0 lowest)."""
        return self.suits[len(self.suits) - 1 - field]


def check_game(game: str) -> int:
    """The hand size of a dedicated engine's game id; a clear error for an unknown one."""
    if game not in DEDICATED_ENGINES:
        raise GameError.unknown(game, DEDICATED_ENGINES)
    return DEDICATED_ENGINES[game]


@cache
def game_names() -> tuple[str, ...]:
    """What names a poker game, read from the bundled rule files (once: they are part of the
    install): the ids of the games with an engine of their own, then every bundled poker rule
    file (a game is named by its file)."""
    games = bundled_games(having="deal")
    ids = tuple(g for g in DEDICATED_ENGINES if g in games)
    return ids + tuple(sorted(name for names in games.values() for name in names))


@cache
def described_games() -> tuple[str, ...]:
    """The ids of the bundled games that are described by their rule files alone (no engine
    of their own): such an id with a rule file names a game too (``stud``)."""
    return tuple(g for g in bundled_games(having="deal") if g not in DEDICATED_ENGINES)


def unknown_game(game: object) -> GameError:
    """The error for a name that is no poker game, listing every one the bundled files name."""
    return GameError.unknown(game, game_names())


def game_ordering(game: str, rules: RulesSource = None) -> Ordering:
    """The ordering of any poker game: ``game`` is a dedicated engine's id (``rules`` as for
    :func:`ordering`), or a rule file (a path or bundled name, ``rules`` None), or the id of
    described games (``stud``) with ``rules`` the file. A file of a dedicated engine's game
    gives that engine's ordering; any other poker file the described game's."""
    if game in DEDICATED_ENGINES:
        return ordering(game, rules)
    if rules is None:
        loaded = _game_file(game)
    elif game not in described_games():
        _game_file(game)  # an unknown name is refused as such
        given = rules.path.name if isinstance(rules, RuleFile) else str(rules)[:80]
        raise GameError(
            f"two rule files given: {game!r} and {given!r} (rules are given apart only with a "
            "game id)"
        )
    else:
        loaded = rules if isinstance(rules, RuleFile) else load_rules(rules)
        if loaded.game != game:
            raise _wrong_game(loaded, game)
    if loaded.game in DEDICATED_ENGINES:
        return ordering(loaded.game, loaded)
    if not is_stud(loaded):
        raise GameError(f"{loaded.path.name}: {loaded.game!r} is not a poker game (no [deal])")
    return _stud_ordering(loaded)


def bet_ordering(game: str, bet: str, rules: RulesSource = None) -> Ordering:
    """The ordering of a side bet's hands in a game (named as for :func:`game_ordering`):
    hands of the bet's cards (the player's, or the player's and the dealer's together) count
    their best ``uses`` in the bet's own categories, each with its pay's article, under the
    game's tie-breaks."""
    return _bet_ordering(game_ordering(game, rules).rules, bet)


@cache
def _bet_ordering(rules: RuleFile, bet_id: str) -> Ordering:
    description = describe(rules)
    bets = {b.id: b for b in description.side_bets}
    if bet_id not in bets:
        raise RuleFileError(
            f"{rules.path.name}: no side bet {bet_id[:80]!r}; its side bets: "
            f"{', '.join(bets) or 'none'}"
        )
    bet = bets[bet_id]
    uses = bet.uses.value
    cards = bet.card_count(description.deal)
    tie_breaks = _core.TieBreaks(**description.ranking.tie_breaks)
    lowest_first = bet.categories[::-1]
    stud = StudHands(
        ranking=engine_ranking(uses, bet.categories, description.ranking),
        sizes=tuple(sorted({uses, cards})),
        table_cards=cards,
        ties="push",
        ties_article=bet.name.article,
        bet=bet,
    )
    return Ordering(
        game=rules.path.stem if rules.game not in DEDICATED_ENGINES else rules.game,
        hand_size=uses,
        tie_breaks=tie_breaks,
        categories=lowest_first,
        steps=tuple(STEPS[uses][name] for name in lowest_first),
        articles=tuple(pay.article for pay in bet.pays),
        rules=rules,
        suits=description.ranking.suit_order.value,
        stud=stud,
    )


def _game_file(game: str) -> RuleFile:
    """The rule file a game name names: a path, or a bundled name (else no game at all). A
    file loaded before costs one ``stat`` (``load_rules``): a loop of ``evaluate`` calls asks
    this every call."""
    if not isinstance(game, str):
        raise unknown_game(game)
    try:
        return load_rules(game)
    except RuleFileError:
        if is_bare_name(game):
            try:
                bundled_rule_file(game)
            except BundledDataError:
                raise unknown_game(game) from None
        raise


@cache
def engine_ranking(uses: int, names: Sequence[str], ranking: Ranking) -> _core.StudRanking:
    """The core's ranking of hands of ``uses`` cards in the categories ``names`` (highest
    first) under a described game's tie-breaks: the game's own, or a side bet's."""
    return _core.StudRanking(uses, list(names), _core.TieBreaks(**ranking.tie_breaks))


@cache
def _stud_ordering(rules: RuleFile) -> Ordering:
    """A described game's ordering: its ranking (categories in the file's order and
    vocabulary, each with its steps and article) built once in the core, once per parsed
    file (an edited file is another ``RuleFile``)."""
    deal, ranking = deal_and_ranking(rules)
    tie_breaks = _core.TieBreaks(**ranking.tie_breaks)
    lowest_first = tuple(reversed(ranking.categories))
    settlement = rules.data.get("settlement")
    if isinstance(settlement, dict) and "ties" in settlement:
        ties = rules.choice("settlement.ties", TIES)
        ties_article = str(rules.require("settlement.ties").article)
    else:
        ties, ties_article = "push", str(rules.require("ranking.ordering").article)
    stud = StudHands(
        ranking=engine_ranking(ranking.uses, ranking.names, ranking),
        sizes=tuple(sorted({ranking.uses, deal.player_cards.value, deal.dealer_cards.value})),
        table_cards=deal.player_cards.value,
        ties=ties,
        ties_article=ties_article,
    )
    return Ordering(
        game=rules.path.stem,
        hand_size=ranking.uses,
        tie_breaks=tie_breaks,
        categories=tuple(c.name for c in lowest_first),
        steps=tuple(c.steps for c in lowest_first),
        articles=tuple(c.article for c in lowest_first),
        rules=rules,
        suits=ranking.suit_order.value,
        stud=stud,
    )


def _wrong_game(loaded: RuleFile, game: str) -> RuleFileError:
    """A rule file given for another game; a described game's file is named as the game."""
    hint = ""
    if loaded.game not in DEDICATED_ENGINES and is_stud(loaded):
        hint = " (a game described by its file is named by the file: give it as the game)"
    return RuleFileError(f"{loaded.path}: rule file is for {loaded.game!r}, not {game!r}{hint}")


def _rule_file(game: str, rules: RulesSource) -> RuleFile:
    if isinstance(rules, RuleFile):
        loaded = rules
    else:
        loaded = load_rules(rules if rules is not None else DEFAULT_RULES[game])
    if loaded.game != game:
        raise _wrong_game(loaded, game)
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
    hand_size = DEDICATED_ENGINES[rules.game]
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


Evaluation = _core.Evaluation
"""A hand's category and strength key under one ordering: ``Evaluation(game, cards, category,
category_index, key)``, with ``codes`` and ``name`` for display. Made in the core and never
tracked by the garbage collector (a dataclass instance is, and a loop keeping 10^5
evaluations paid as much in collections as in the evaluations: BENCHMARKS.md, "Python API").
Frozen, compared and hashed by its fields, pickled and copied by its arguments."""


def evaluate(
    game: str, hand: Hand, rules: RulesSource = None, *, bet: str | None = None
) -> Evaluation:
    """Category and strength key of a hand; keys compare as the game's rules rank hands.

    ``game`` names the game (see :func:`game_ordering`): ``evaluate("my-game.toml", "As Ad Ac
    Kh 2s")`` ranks five cards by their best ``game.hand_size`` as that file's description
    says; with ``bet`` (a side bet's id in the file) the hand is ranked as that bet ranks its
    hands (:func:`bet_ordering`). One call from text for a dedicated engine's game is one core
    call (parse, key, category), about 1 us (BENCHMARKS.md, "Python API"). For many hands
    the fast path is one batch call,
    ``tablecert.hand_arrays.strength_keys(game, ids)`` on an (n, hand size) array of card ids:
    tens of millions of keys a second, 20-30 times a loop of calls."""
    if bet is not None:
        return _evaluate(bet_ordering(game, bet, rules), hand)
    if game in DEDICATED_ENGINES:
        return _evaluate(ordering(game, rules), hand)
    return _evaluate(game_ordering(game, rules), hand)


def _evaluate(order: Ordering, hand: Hand) -> Evaluation:
    """A hand under an ordering: a described game's by the generic engine, a dedicated
    engine's by its one-call path from text."""
    if order.stud is not None:
        if isinstance(hand, str) and (
            fast := _core.stud_evaluation_of_text(
                hand, order.stud.ranking, order.stud.sizes, order.game, order.categories
            )
        ):
            return fast
        cards = parse_hand(hand)
        _check_size(order.stud, cards)
        key = _core.stud_key(order.stud.ranking, list(cards))
        index = _core.key_fields(key)[0]
        return Evaluation(order.game, cards, order.categories[index], index, key)
    if isinstance(hand, str) and (
        fast := _core.evaluation_of_text(
            hand, order.hand_size, order.tie_breaks, order.game, order.categories
        )
    ):
        return fast
    listed = _card_list(hand, order.hand_size)
    key = _core.strength_key(listed, order.tie_breaks)
    index = _core.key_fields(key)[0]
    return Evaluation(order.game, listed, order.categories[index], index, key)


def _check_size(stud: StudHands, cards: Sequence[int]) -> None:
    """A described game's hand has one of the dealt card counts (or exactly a made hand)."""
    if len(cards) not in stud.sizes:
        sizes = [str(n) for n in stud.sizes]
        allowed = ", ".join(sizes[:-1]) + f" or {sizes[-1]}" if len(sizes) > 1 else sizes[0]
        raise CardError(f"a hand here has {allowed} cards, got {len(cards)}: {format_hand(cards)}")


def best_cards(order: Ordering, cards: Sequence[int]) -> tuple[int, ...]:
    """The cards that make a hand: its best ``order.hand_size`` cards, highest first (of
    equally good choices the one with the highest cards); a hand of exactly that size is
    itself."""
    ranked = tuple(sorted(cards, reverse=True))
    if order.stud is None or len(ranked) == order.hand_size:
        return ranked
    key = _core.stud_key(order.stud.ranking, list(ranked))
    return next(
        chosen
        for chosen in combinations(ranked, order.hand_size)
        if _core.stud_key(order.stud.ranking, list(chosen)) == key
    )


@dataclass(frozen=True)
class Decision:
    """Who wins a showdown and which step of which article decided it (``ties``: who takes
    equal hands under the rules, and the article that says so)."""

    a: Evaluation
    b: Evaluation
    outcome: int
    step: str
    article: str
    ties: str = "push"
    ties_article: str = ""

    @property
    def winner(self) -> str:
        if self.outcome:
            return "a" if self.outcome > 0 else "b"
        return "push" if self.ties == "push" else "tie"

    @property
    def explanation(self) -> str:
        if self.outcome == 0 and self.ties == "push":
            return f"{self.article}: equal {self.step}; push under these rules"
        if self.outcome == 0:
            return (
                f"{self.article}: equal {self.step}; the tie goes to the {self.ties} under "
                f"these rules ({self.ties_article})"
            )
        return f"{self.article}: {self.step} decides"


def decide(game: str, hand_a: Hand, hand_b: Hand, rules: RulesSource = None) -> Decision:
    """Compare two disjoint hands and name the deciding tie-break step and its article."""
    order = game_ordering(game, rules)
    a = _evaluate(order, hand_a)
    b = _evaluate(order, hand_b)
    _disjoint(a.cards, b.cards)
    outcome = (a.key > b.key) - (a.key < b.key)
    ties = ("push", "") if order.stud is None else (order.stud.ties, order.stud.ties_article)
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
            *ties,
        )
    steps = order.steps[cat_a]
    article = order.articles[cat_a]
    for i, (ra, rb) in enumerate(zip(ranks_a, ranks_b, strict=True)):
        if ra != rb:
            step = f"{steps[min(i, len(steps) - 1)]} ({_rank_pair(ra, rb)})"
            return Decision(a, b, outcome, step, article, *ties)
    if suit_a != suit_b:
        return Decision(
            a,
            b,
            outcome,
            f"{steps[-1]} ({order.suit_name(max(suit_a, suit_b))} over "
            f"{order.suit_name(min(suit_a, suit_b))})",
            article,
            *ties,
        )
    return Decision(a, b, 0, "ranks", article, *ties)


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
    """> 0 if hand A wins, < 0 if hand B wins, 0 only for equal hands under rules where
    suits do not decide (a push, or a tie the rules give to one side: ``decide`` says which,
    and which step decided; this is the fast path for a loop of single pairs;
    for many pairs, compare the keys of two ``hand_arrays.strength_keys`` batches)."""
    order = ordering(game, rules) if game in DEDICATED_ENGINES else game_ordering(game, rules)
    if order.stud is not None:
        a_cards, b_cards = _evaluate(order, hand_a), _evaluate(order, hand_b)
        _disjoint(a_cards.cards, b_cards.cards)
        return (a_cards.key > b_cards.key) - (a_cards.key < b_cards.key)
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
