"""The stud game description (``tablecert.rules.stud``): every bundled file's description,
the values the engine is fed, and the refusals of what it cannot compute, by key and line."""

from __future__ import annotations

import os
import re
from fractions import Fraction
from itertools import combinations
from pathlib import Path

import pytest

from tablecert import _core
from tablecert.bundled import bundled_games
from tablecert.errors import RuleFileError
from tablecert.games import caribbean_stud, q_poker
from tablecert.poker import ordering
from tablecert.rules import RULES_DIR, load_rules
from tablecert.rules.stud import STEPS, VOCABULARY, describe, is_stud
from tests.support import stud_reference as ref

DESCRIBED = sorted(p.stem for p in RULES_DIR.glob("*.toml") if is_stud(load_rules(p)))
FOUR_CARD = "four-card-poker.standard"


def test_every_poker_file_is_described() -> None:
    assert DESCRIBED == [
        "caribbean-stud.macau",
        "caribbean-stud.no-upcard",
        "caribbean-stud.pair-qualifier",
        "caribbean-stud.standard",
        "four-card-poker.standard",
        "q-poker.macau",
        "q-poker.six-card-bonus",
        "q-poker.standard",
    ]
    for name in DESCRIBED:
        description = describe(load_rules(name))
        assert all(row for d in description.values()[1] for row in d)


def _deal(name: str) -> tuple[int, int, int, int]:
    deal = describe(load_rules(name)).deal
    return (deal.player_cards.value, deal.dealer_cards.value, deal.uses.value, deal.upcards.value)


def test_the_deals() -> None:
    assert _deal("q-poker.macau") == (3, 3, 3, 0)
    assert _deal("caribbean-stud.macau") == (5, 5, 5, 1)
    assert _deal(FOUR_CARD) == (5, 6, 4, 1)
    assert _deal("caribbean-stud.no-upcard") == (5, 5, 5, 0)
    assert describe(load_rules("caribbean-stud.macau")).deal.upcards.article == "第七条"
    ranking = describe(load_rules("caribbean-stud.macau")).ranking
    assert ranking.ace_low_straight_suit.reading  # the file's reading of an open point
    assert not ranking.suit_order.reading


def test_four_card_poker() -> None:
    d = describe(load_rules(FOUR_CARD))
    assert d.ranking.names == VOCABULARY[4]
    assert d.ranking.position("four-of-a-kind") == 7
    assert d.ranking.position("high-card") == 0
    assert d.ranking.tie_breaks == {
        "suit_decides": False,
        "ace_low_straight_suit": "top-of-sequence",
        "pair_suit": "higher",
        "suit_order": "shcd",
    }
    assert d.qualifier is None
    assert [r.value for r in d.raises] == [1, 2, 3]
    assert d.settlement.decisions == ("fold", "raise 1x", "raise 2x", "raise 3x")
    assert d.raises[0].article == "Rules: the play"
    den, values = d.values()
    assert den == 1
    assert values[0] == [[-1] * 8] * 4  # fold: the ante lost, no bonus
    # Raise 3x: ante and play 1 to 1 on a win or a tie (ties to the player), both lost on a
    # loss; the ante bonus (trips 2, straight flush 20, quads 25) whatever the dealer holds.
    bonus = [0, 0, 0, 0, 0, 2, 20, 25]
    assert values[3] == [
        bonus,
        [4 + b for b in bonus],
        [4 + b for b in bonus],
        [-4 + b for b in bonus],
    ]
    (aces_up,) = d.side_bets
    assert (aces_up.name.value, aces_up.cards.value, aces_up.uses.value) == ("Aces Up", "player", 4)
    assert aces_up.card_count(d.deal) == 5
    assert [p.value for p in aces_up.pays] == [-1, 1, 2, 4, 6, 8, 40, 50]
    assert aces_up.pay(1, 12) == 1  # a pair of aces
    assert aces_up.pay(1, 11) == -1  # a pair of kings loses
    assert aces_up.pay(2, 0) == 2  # any two pair


def test_the_caribbean_variants() -> None:
    no_upcard = describe(load_rules("caribbean-stud.no-upcard"))
    standard = describe(load_rules("caribbean-stud.standard"))
    assert no_upcard.deal.upcards.value == 0
    assert no_upcard.qualifier is not None
    assert no_upcard.qualifier.engine == ("high-card", [12, 11])
    assert no_upcard.values() == standard.values()  # the same settlement, per unit ante
    pair = describe(load_rules("caribbean-stud.pair-qualifier"))
    assert pair.qualifier is not None
    assert pair.qualifier.engine == ("one-pair", [2])  # a pair of fours
    assert pair.deal.upcards.value == 1
    # The same settlement, but for a high card's win, which a pair qualifier never pays: it
    # reads the ante's win alone (the raise's 0).
    den, values = pair.values()
    assert (den, values[1][1][0]) == (1, 1)
    values[1][1][0] = standard.values()[1][1][1][0]
    assert (den, values) == standard.values()


def test_the_six_card_bonus() -> None:
    d = describe(load_rules("q-poker.six-card-bonus"))
    pair_plus, bonus = d.side_bets
    assert pair_plus.id == "pair_plus"
    assert (bonus.cards.value, bonus.uses.value, bonus.card_count(d.deal)) == (
        "player-and-dealer",
        5,
        6,
    )
    assert bonus.categories == VOCABULARY[5]
    assert [p.value for p in bonus.pays] == [-1, -1, -1, 7, 10, 15, 20, 100, 200, 1000]
    assert d.values() == describe(load_rules("q-poker.standard")).values()


@pytest.mark.parametrize("name", ["q-poker.macau", "q-poker.standard", "q-poker.six-card-bonus"])
def test_q_poker_values_equal_todays(name: str) -> None:
    rules = load_rules(name)
    old = q_poker.play_values(ordering("q-poker", rules))
    d = describe(rules)
    den, values = d.values()
    follow = [[Fraction(v, den) for v in row] for row in values[1]]
    for c in range(6):
        assert Fraction(values[0][0][c], den) == old.fold
        assert follow[0][c] == old.not_qualifying + old.bonus[c]
        assert follow[1][c] == old.win[c] + old.bonus[c]
        assert follow[2][c] == old.tie + old.bonus[c]
        assert follow[3][c] == old.loss + old.bonus[c]
    assert d.settlement.stake.value == old.initial
    assert [r.value for r in d.raises] == [old.follow_bet]
    assert d.settlement.decisions == ("fold", "follow")


@pytest.mark.parametrize("name", ["caribbean-stud.macau", "caribbean-stud.standard"])
def test_caribbean_values_equal_todays(name: str) -> None:
    rules = load_rules(name)
    old = caribbean_stud.payouts(ordering("caribbean-stud", rules))
    den, values = describe(rules).values()
    for c in range(10):
        assert Fraction(values[0][0][c], den) == old.fold
        assert Fraction(values[1][0][c], den) == old.not_qualifying
        assert Fraction(values[1][1][c], den) == old.win[c]
        assert Fraction(values[1][2][c], den) == old.tie
        assert Fraction(values[1][3][c], den) == old.loss


def test_a_cap_is_applied_as_today(tmp_path: Path) -> None:
    path = _variant(
        tmp_path,
        "caribbean-stud.macau",
        'maximum_payout = { value = 0, article = "第九条(五)(7)"',
        'maximum_payout = { value = 30, article = "第九条(五)(7)"',
    )
    rules = load_rules(path)
    old = caribbean_stud.payouts(ordering("caribbean-stud", rules))
    den, values = describe(rules).values()
    assert [Fraction(v, den) for v in values[1][1]] == list(old.win)
    assert Fraction(values[1][1][9], den) == 1 + 30  # the royal's raise capped at 30 antes


def test_the_pair_plus_return_equals_todays() -> None:
    rules = load_rules("q-poker.standard")
    order = ordering("q-poker", rules)
    pair_plus = describe(rules).side_bets[0]
    counts = [[n] + [0] * 12 for n in _core.category_counts(3, order.tie_breaks)]
    assert pair_plus.return_per_unit(counts) == q_poker.pair_plus_sheet(order).expected_value


def _by_hand(deck: list[int], cards: int, uses: int, pays: dict[str, int], royal: bool) -> Fraction:
    """A side bet's return by dealing every hand of ``deck`` and paying its best hand from
    the published table as written here (a pair pays only as a pair of aces)."""
    tie_breaks = ref.TieBreaks(suit_decides=False)
    total = won = 0
    for hand in combinations(deck, cards):
        best = max(
            (ref.classify(five, tie_breaks, royal=royal) for five in combinations(hand, uses)),
            key=lambda h: (VOCABULARY[uses][::-1].index(h.category), h.ranks),
        )
        pay = pays.get(best.category, -1)
        if best.category == "pair" and best.ranks[0] != 12:
            pay = -1
        total += 1
        won += pay
    return Fraction(won, total)


def test_the_side_bet_returns_equal_dealing_every_hand() -> None:
    """Aces Up and the six-card bonus on a reduced deck (10 to A, and J to A), from the
    reference's category counts, against every hand dealt and paid by the published tables."""
    d = describe(load_rules(FOUR_CARD))
    (aces_up,) = d.side_bets
    deck = list(range(8 * 4, 52))
    ranking = ref.Ranking(4, aces_up.categories, ref.TieBreaks(suit_decides=False))
    counts = ref.category_counts(ranking, deck, 5)
    table = {"four-of-a-kind": 50, "straight-flush": 40, "three-of-a-kind": 8, "flush": 6}
    table |= {"straight": 4, "two-pair": 2, "pair": 1}
    assert aces_up.return_per_unit(counts) == _by_hand(deck, 5, 4, table, royal=False)
    bonus = describe(load_rules("q-poker.six-card-bonus")).side_bets[1]
    deck = list(range(9 * 4, 52))
    ranking = ref.Ranking(5, bonus.categories, ref.TieBreaks(suit_decides=False))
    counts = ref.category_counts(ranking, deck, 6)
    table = {"royal-flush": 1000, "straight-flush": 200, "four-of-a-kind": 100}
    table |= {"full-house": 20, "flush": 15, "straight": 10, "three-of-a-kind": 7}
    assert bonus.return_per_unit(counts) == _by_hand(deck, 6, 5, table, royal=True)


def test_the_six_card_bonus_return_is_the_published_one() -> None:
    """The best five of six cards by category over the full deck (they sum to C(52, 6)) give
    the house edge mypokercoaching.com prints for 1000-200-100-20-15-10-7, "just over 8.5%":
    exactly 1,742,976 / 20,358,520 = 8.5614%."""
    by_category = [6_612_900, 9_730_740, 2_532_816, 732_160, 361_620, 205_792, 165_984]
    by_category += [14_664, 1_656, 188]  # lowest first: high card .. royal flush
    assert sum(by_category) == 20_358_520
    bonus = describe(load_rules("q-poker.six-card-bonus")).side_bets[1]
    counts = [[n] + [0] * 12 for n in by_category]
    assert bonus.return_per_unit(counts) == Fraction(-1_742_976, 20_358_520)


@pytest.mark.parametrize("uses", [3, 5])
def test_the_steps_are_the_cores(uses: int) -> None:
    core = dict(zip(_core.category_names(uses), _core.category_steps(uses), strict=True))
    names = {n: n.replace("-", " ") for n in STEPS[uses]}
    assert {names[n]: list(steps) for n, steps in STEPS[uses].items()} == core


# --- refusals, by key and line ---------------------------------------------------------------


def _variant(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (RULES_DIR / f"{name}.toml").read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path = tmp_path / f"{name}.lab.toml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def _line(path: Path, start: str) -> int:
    """The line starting so; for a table header, the line of its ``value`` below it."""
    lines = path.read_text(encoding="utf-8").splitlines()
    line = next(i for i, text in enumerate(lines, 1) if text.startswith(start))
    return line + 1 if start.startswith("[") else line


def _refusal(path: Path) -> str:
    with pytest.raises(RuleFileError) as caught:
        describe(load_rules(path))
    return str(caught.value)


UPCARDS = 'upcards = { value = 1, article = "Rules: the deal"'
PAIR_LINE = 'pair = { value = 1, article = "Aces Up: pay table (Live! Casino Philadelphia)"'


@pytest.mark.parametrize(
    ("old", "new", "line", "message"),
    [
        (
            'player_cards = { value = 5, article = "Rules: the deal"',
            'player_cards = { value = 3, article = "Rules: the deal"',
            "player_cards",
            "deal.player_cards: 3 cards cannot make a hand of game.hand_size = 4 cards",
        ),
        (
            'dealer_cards = { value = 6, article = "Rules: the deal"',
            'dealer_cards = { value = 48, article = "Rules: the deal"',
            "dealer_cards",
            "deal.dealer_cards: 5 + 48 cards are more than one deck of 52",
        ),
        (
            UPCARDS,
            'upcards = { value = 2, article = "Rules: the deal"',
            "upcards",
            "deal.upcards: 2: the engine computes 0 or 1 dealer card(s) face up",
        ),
        (
            "raises = { value = [1, 2, 3]",
            "raises = { value = [0, 1, 2]",
            "raises",
            "decision.raises: item 1: 0 is not a positive multiple",
        ),
        (
            "raises = { value = [1, 2, 3]",
            'raises = { value = [1, "-2", 3]',
            "raises",
            "decision.raises: item 2: '-2' is not a positive multiple",
        ),
        (
            "raises = { value = [1, 2, 3]",
            "raises = { value = [1, 3, 2]",
            "raises",
            "decision.raises: the multiples are written smallest first, each once",
        ),
        (
            "[ranking.categories.pair]",
            "[ranking.categories.one-pair]",
            "[ranking.categories.one-pair]",  # the error points at the value on the next line
            "ranking.categories.one-pair: unknown category for 4-card hands (as game.hand_size "
            "says); the engine's: four-of-a-kind, straight-flush",
        ),
        (
            'ties = { value = "player"',
            'ties = { value = "house"',
            "ties",
            "settlement.ties: 'house' is not one of player, push, dealer",
        ),
        (
            'category = { value = "none"',
            'category = { value = "full-house"',
            "category",
            "qualifier.category: 'full-house' is not one of none, four-of-a-kind",
        ),
        (
            'value = ["pair rank", "highest kicker", "second kicker", "suit of the pair"]',
            'value = ["pair rank", "suit of the pair"]',
            'value = ["pair rank", "suit of the pair"]',
            "ranking.categories.pair: the engine compares pair hands by ['pair rank', "
            "'highest kicker', 'second kicker', 'suit of the pair'] in that order",
        ),
        (
            'suit_order = { value = ["spades", "hearts", "clubs", "diamonds"]',
            'suit_order = { value = ["hearts", "spades", "clubs", "diamonds"]',
            "suit_order",
            'ranking.suit_order: has no effect when ranking.ordering is "rank-only"',
        ),
        (
            'hand_size = { value = 4, article = "Rules: Aces Up"',
            'hand_size = { value = 6, article = "Rules: Aces Up"',
            "hand_size = { value = 6",
            "side_bets.aces-up.hand_size: 6 is not one the engine computes (3, 4, 5)",
        ),
        (
            PAIR_LINE,
            'full-house = { value = 1, article = "Rules: Aces Up"',
            "full-house",
            "side_bets.aces-up.pays.full-house: unknown category for 4-card hands (as "
            "side_bets.aces-up.hand_size says)",
        ),
        (
            'pair = { value = "A", article = "Rules: Aces Up"',
            'one-pair = { value = "A", article = "Rules: Aces Up"',
            "one-pair",
            "side_bets.aces-up.minimum_rank.one-pair: unknown category: the bet pays "
            "four-of-a-kind",
        ),
        (
            'high-card = { value = -1, article = "Aces Up',
            'high-card = { value = -2, article = "Aces Up',
            "high-card = { value = -2",
            "side_bets.aces-up.pays.high-card: -2: a side bet loses at most its stake (-1)",
        ),
        (
            'pair = { value = "A", article = "Rules: Aces Up"',
            'pair = { value = "1", article = "Rules: Aces Up"',
            'pair = { value = "1"',
            "side_bets.aces-up.minimum_rank.pair: '1' is not a rank (2, 3, 4",
        ),
        (
            'loss = { value = -1, article = "Rules: settlement" }\n\n# The play',
            'loss = { value = -1, article = "Rules: settlement" }\n'
            'not_qualifying = { value = 0, article = "Rules" }\n\n# The play',
            "not_qualifying",
            "settlement.raise.not_qualifying: has no effect: the dealer always qualifies",
        ),
    ],
)
def test_four_card_poker_refusals(
    tmp_path: Path, old: str, new: str, line: str, message: str
) -> None:
    path = _variant(tmp_path, FOUR_CARD, old, new)
    refusal = _refusal(path)
    assert refusal.startswith(f"{path}:{_line(path, line)}: {message}"), refusal


def test_a_side_bet_ranking_no_hand_has_is_refused(tmp_path: Path) -> None:
    path = _variant(
        tmp_path,
        "q-poker.six-card-bonus",
        'hand_size = { value = 5, article = "6 Card Bonus: rules"',
        'hand_size = { value = 3, article = "6 Card Bonus: rules"',
    )
    assert _refusal(path).startswith(
        f"{path}:{_line(path, 'royal-flush = { value = 1000')}: "
        "side_bets.six-card-bonus.pays.royal-flush: unknown category for 3-card hands (as "
        "side_bets.six-card-bonus.hand_size says)"
    )
    path = _variant(
        tmp_path,
        "q-poker.six-card-bonus",
        'cards = { value = "player-and-dealer"',
        'cards = { value = "player"',
    )
    assert _refusal(path).startswith(
        f"{path}:{_line(path, 'hand_size = { value = 5')}: side_bets.six-card-bonus.hand_size: "
        "5 cards cannot be made from the 3 cards of the bet"
    )


def test_a_lab_side_bet_is_read_and_a_key_nothing_reads_is_refused(tmp_path: Path) -> None:
    """A side bet no bundled file has loads: the description reads every key of it; a key of
    the description's tables that nothing reads is refused by name."""
    text = (RULES_DIR / f"{FOUR_CARD}.toml").read_text(encoding="utf-8")
    path = tmp_path / "lab.toml"
    path.write_text(text.replace("side_bets.aces-up", "side_bets.lab-bet"), encoding="utf-8")
    (bet,) = describe(load_rules(path)).side_bets
    assert (bet.id, bet.name.value, bet.minimum_rank[1].value) == ("lab-bet", "Aces Up", 12)
    path = _variant(tmp_path, FOUR_CARD, "[settlement.ante]\n", "[settlement.ante]\npush = 0\n")
    with pytest.raises(RuleFileError, match=re.escape('expected { value = ..., article = "..." }')):
        load_rules(path)
    path = _variant(
        tmp_path,
        FOUR_CARD,
        "[settlement.ante]\n",
        '[settlement.ante]\npush = { value = 0, article = "Rules" }\n',
    )
    assert _refusal(path) == (
        f"{path}:{_line(path, 'push =')}: settlement.ante.push: unknown key (nothing in the game "
        "reads it)"
    )


def test_a_missing_key_is_named_at_its_table(tmp_path: Path) -> None:
    path = _variant(tmp_path, FOUR_CARD, UPCARDS, "# no upcards")
    header = path.read_text(encoding="utf-8").splitlines().index("[deal]") + 1
    assert _refusal(path) == f"{path}:{header}: deal.upcards: missing (not in table [deal])"


def test_a_missing_category_is_named(tmp_path: Path) -> None:
    path = _variant(
        tmp_path,
        FOUR_CARD,
        PAIR_LINE + ', note = "a pair of aces: 1 to 1", house_choice = true }',
        "",
    )
    refusal = _refusal(path)
    assert ": side_bets.aces-up.pays.pair: missing: 4-card hands (as side_bets.aces-up." in refusal


@pytest.mark.parametrize(
    ("ranks", "message"),
    [
        ('["A", "K", "Q", "J", "9", "7"]', "a high-card threshold names 1 to 5 ranks"),
        ('["K", "A"]', "no high-card has these ranks"),
        ('["A", "A"]', "no high-card has these ranks"),
        ('["Z"]', "'Z' is not a rank"),
    ],
)
def test_a_qualifier_no_hand_has_is_refused(tmp_path: Path, ranks: str, message: str) -> None:
    path = _variant(
        tmp_path,
        "caribbean-stud.no-upcard",
        'ranks = { value = ["A", "K"]',
        f"ranks = {{ value = {ranks}",
    )
    refusal = _refusal(path)
    assert refusal.startswith(f"{path}:{_line(path, 'ranks =')}: qualifier.ranks: {message}")


def test_a_royal_outside_its_option_is_refused_as_today(tmp_path: Path) -> None:
    path = _variant(
        tmp_path,
        "caribbean-stud.standard",
        'royal-flush = { value = 100, article = "第九条(五)(9)"',
        'royal-flush = { value = 120, article = "第九条(五)(9)"',
    )
    assert ": play.raise_pays.royal-flush: must be within 50..100" in _refusal(path)


def test_a_deal_the_old_engines_do_not_compute_is_refused_by_them(tmp_path: Path) -> None:
    path = _variant(
        tmp_path,
        "caribbean-stud.standard",
        'upcards = { value = 1, article = "第七条"',
        'upcards = { value = 0, article = "第七条"',
    )
    assert describe(load_rules(path)).deal.upcards.value == 0  # the stud engine computes it
    with pytest.raises(RuleFileError, match=r":\d+: deal.upcards: 0: the caribbean-stud engine"):
        ordering("caribbean-stud", path)


def test_the_games_are_read_from_the_bundled_files(tmp_path: Path) -> None:
    games = bundled_games()
    assert games["stud"] == (
        "caribbean-stud.no-upcard",
        "caribbean-stud.pair-qualifier",
        "four-card-poker.standard",
    )
    assert games["q-poker"] == ("q-poker.macau", "q-poker.six-card-bonus", "q-poker.standard")
    path = _variant(tmp_path, FOUR_CARD, 'id = { value = "stud"', 'id = { value = "let-it-ride"')
    with pytest.raises(RuleFileError, match="unknown game 'let-it-ride'; known: caribbean-stud, "):
        load_rules(path)


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("TABLECERT_SLOW"), reason="long run: set TABLECERT_SLOW=1 (and -m slow)"
)
def test_the_new_games_give_the_published_figures() -> None:
    """Four Card Poker as the Wizard of Odds prints it (house edge 2.78% of the ante, element
    of risk 1.30%, as quoted by Atlantic City Weekly; 2.79% in another copy of the page): the
    exact 2.7879% and 1.3013%. Caribbean Stud with no upcard: below the 5.32% Krigman prints
    for the best fixed strategy (Casino City Times, 2000), which the optimum cannot exceed,
    and above the 5.2243% of the game with its upcard, whose information it lacks."""
    from tablecert.games import stud

    four = stud.analyze(FOUR_CARD)
    assert four.house_edge == Fraction(8_840_827_253, 317_119_576_410)
    assert abs(four.house_edge - Fraction(2785, 100_000)) < Fraction(5, 100_000)
    assert abs(four.element_of_risk - Fraction(130, 10_000)) < Fraction(5, 100_000)
    hidden = stud.analyze("caribbean-stud.no-upcard").house_edge
    assert hidden == Fraction(1_605_628_741, 30_201_864_420)
    assert Fraction(5224, 100_000) < hidden < Fraction(532, 10_000)


def test_rules_check_says_what_the_stud_engine_computes(tmp_path: Path) -> None:
    """``tablecert rules check`` on a described game: the deal and ranking, and the par sheet
    with the side bets; a side bet the engine cannot compute refuses only the second, naming
    the key and its line (exit 2)."""
    from tablecert.conformance.rule_file_check import check_rule_file
    from tests.support.cli_support import tablecert

    ok = check_rule_file(load_rules(FOUR_CARD))
    assert [(c.name, c.refused) for c in ok.capabilities] == [
        ("deal and hand ranking (the stud engine)", ""),
        ("par sheet, strategy and side bets (the stud engine)", ""),
    ]
    path = _variant(
        tmp_path,
        FOUR_CARD,
        'hand_size = { value = 4, article = "Rules: Aces Up"',
        'hand_size = { value = 6, article = "Rules: Aces Up"',
    )
    refused = [c.refused for c in check_rule_file(load_rules(path)).capabilities]
    assert refused[0] == ""
    assert refused[1] == (
        f"{path}:{_line(path, 'hand_size = { value = 6')}: side_bets.aces-up.hand_size: 6 is not "
        "one the engine computes (3, 4, 5)"
    )
    run = tablecert(["rules", "check", str(path)])
    assert run.code == 2
    assert run.error_lines[-1] == (
        f"error: {path.name}: refused for par sheet, strategy and side bets (the stud engine)"
    )


def test_more_player_cards_than_the_engine_deals_is_refused_by_name(tmp_path: Path) -> None:
    old = next(
        ln
        for ln in (RULES_DIR / f"{FOUR_CARD}.toml").read_text(encoding="utf-8").splitlines()
        if ln.startswith("player_cards = { value = 5")
    )
    path = _variant(tmp_path, FOUR_CARD, old, old.replace("value = 5", "value = 6"))
    refusal = _refusal(path)
    line = _line(path, "player_cards")
    assert refusal.startswith(f"{path}:{line}: deal.player_cards: 6: the engine deals"), refusal


def test_a_win_below_the_qualifier_is_refused_as_never_paid(tmp_path: Path) -> None:
    # A dealer who qualifies only with a pair of fours is never beaten by a high card.
    old = (
        "# No high-card line: a high card never beats a dealer who qualifies with a pair of fours."
    )
    new = 'high-card = { value = 1, article = "Rules: raise pays" }'
    path = _variant(tmp_path, "caribbean-stud.pair-qualifier", old, new)
    refusal = _refusal(path)
    assert refusal.startswith(
        f"{path}:{_line(path, 'high-card = { value = 1')}: settlement.raise.win.high-card: "
        "is never paid: a high-card never beats a dealer who qualifies with one-pair"
    ), refusal
