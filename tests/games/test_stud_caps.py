"""The per-round cap of a described stud game (``[settlement.cap]``): read, validated and
applied exactly in the values the engine is given.

The capped values are checked against a table written here from the rules alone; the par
sheet of a capped game on a reduced deck against the independent brute-force reference
(``tests/support/stud_reference.py``); and standard Caribbean Stud written in the generic
layout, given a cap, against the dedicated engine given the same cap (the same Fractions).
"""

from __future__ import annotations

import os
import re
from fractions import Fraction
from pathlib import Path

import pytest

from tablecert.errors import RuleFileError
from tablecert.games import caribbean_stud, stud
from tablecert.rules import RULES_DIR, load_rules
from tablecert.rules.stud import describe
from tests.support import stud_reference as ref
from tests.support.stud_figures import game_figures

FOUR_CARD = "four-card-poker.standard"
#: Four Card Poker's categories, lowest first (the engine's positions).
FOUR_CARD_LOW_FIRST = tuple(reversed(ref.VOCABULARY[4]))
#: Its ante bonus by position (25-20-2 on quads, straight flush, trips).
BONUS = (0, 0, 0, 0, 0, 2, 20, 25)


def cap_table(
    maximum: str, ante: str, categories: list[str], bets: list[str], article: str = "Rules: cap"
) -> str:
    """A ``[settlement.cap]`` table as a lab writes it."""
    return (
        "\n[settlement.cap]\n"
        f'maximum_payout = {{ value = {maximum}, article = "{article}", kind = "amount", '
        "house_choice = true }\n"
        f'ante = {{ value = {ante}, article = "{article}", kind = "positive", '
        "house_choice = true }\n"
        f'categories = {{ value = {categories!r}, article = "{article}" }}\n'.replace("'", '"')
        + f'bets = {{ value = {bets!r}, article = "{article}" }}\n'.replace("'", '"')
    )


def variant(tmp_path: Path, name: str, extra: str, old: str = "", new: str = "") -> Path:
    """A bundled file with ``old`` replaced by ``new`` and ``extra`` appended."""
    text = (RULES_DIR / f"{name}.toml").read_text(encoding="utf-8")
    if old:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / f"{name}.capped.toml"
    path.write_text(text + extra, encoding="utf-8")
    return path


Values = list[list[list[Fraction]]]


def four_card_values(limit: Fraction, capped: set[str], bets: set[str]) -> Values:
    """Four Card Poker's values per ante written from its rules: fold loses the ante; a play
    of m antes wins the ante 1 to 1 and the play 1 to 1 (ties too), loses both to a higher
    dealer hand (the dealer always qualifies: outcome 0 never happens, its bets push); the
    ante bonus is paid whatever the dealer holds; in a round whose hand is of
    a ``capped`` category, what the ``bets`` win together is paid up to ``limit``."""
    categories = range(8)
    table = [[[Fraction(-1)] * 8 for _ in range(4)]]
    for m in (1, 2, 3):
        rows = []
        for outcome in range(4):
            row = []
            for c in categories:
                won = outcome in (ref.WON, ref.TIED)
                sign = 0 if outcome == ref.NOT_QUALIFYING else 1 if won else -1
                bets_now = {
                    "ante": Fraction(sign),
                    "raise": Fraction(sign * m),
                    "bonus": Fraction(BONUS[c]),
                }
                total = sum(bets_now.values(), Fraction(0))
                if FOUR_CARD_LOW_FIRST[c] in capped:
                    winnings = sum(v for k, v in bets_now.items() if k in bets and v > 0)
                    if winnings > limit:
                        total -= winnings - limit
                row.append(total)
            rows.append(row)
        table.append(rows)
    return table


def test_the_cap_is_read_with_its_articles(tmp_path: Path) -> None:
    path = variant(
        tmp_path,
        FOUR_CARD,
        cap_table("12", "4", ["three-of-a-kind", "straight-flush"], ["raise", "bonus"]),
    )
    d = describe(load_rules(path))
    cap = d.settlement.cap
    assert cap is not None
    assert cap.maximum_payout.value == 12
    assert cap.maximum_payout.key == "settlement.cap.maximum_payout"
    assert cap.ante.value == 4
    assert cap.ante.article == "Rules: cap"
    assert cap.limit == 3  # 12 units against an ante of 4: 3 antes
    assert cap.categories.value == ("three-of-a-kind", "straight-flush")
    assert cap.bets.value == ("raise", "bonus")
    assert d.settlement.capped == (False, False, False, False, False, True, True, False)
    expected = four_card_values(
        Fraction(3), {"three-of-a-kind", "straight-flush"}, {"raise", "bonus"}
    )
    assert d.settlement.fractions() == expected
    # Trips played 3x and won: ante 1 in full, the play 3 and the bonus 2 capped at 3 in all.
    assert d.settlement.fractions()[3][ref.WON][5] == 1 + 3
    # ... and lost: the bonus alone is won, 2 <= 3: not capped.
    assert d.settlement.fractions()[3][ref.LOST][5] == -1 - 3 + 2
    binds = d.settlement.binds()
    assert binds[3][ref.WON][5]
    assert not binds[3][ref.LOST][5]
    assert not binds[1][ref.WON][4]


def test_without_a_cap_the_values_are_todays() -> None:
    d = describe(load_rules(FOUR_CARD))
    assert d.settlement.cap is None
    assert d.settlement.fractions() == four_card_values(Fraction(10**9), set(), set())


def test_a_cap_of_zero_is_no_cap(tmp_path: Path) -> None:
    path = variant(tmp_path, FOUR_CARD, cap_table("0", "1", ["pair"], ["ante", "raise"]))
    d = describe(load_rules(path))
    assert d.settlement.fractions() == describe(load_rules(FOUR_CARD)).settlement.fractions()
    assert d.with_maximum_payout(Fraction(2)).settlement.fractions() == four_card_values(
        Fraction(2), {"pair"}, {"ante", "raise"}
    )


@pytest.mark.parametrize(
    ("table", "key", "message"),
    [
        (cap_table("-1", "1", ["pair"], ["raise"]), "maximum_payout", "must be >= 0"),
        (cap_table("5", "0", ["pair"], ["raise"]), "ante", "the ante must be > 0"),
        (cap_table("5", "1", ["one-pair"], ["raise"]), "categories", "unknown category 'one-pair'"),
        (cap_table("5", "1", ["pair", "pair"], ["raise"]), "categories", "named once"),
        (cap_table("5", "1", [], ["raise"]), "categories", "no category"),
        (cap_table("5", "1", ["pair"], ["side"]), "bets", "unknown bet 'side'"),
        (cap_table("5", "1", ["pair"], []), "bets", "no bet"),
        (
            cap_table("5", "1", ["pair"], ["raise"]) + 'applies_to = { value = "raise", '
            'article = "Rules: cap" }\n',
            "applies_to",
            "unknown key",
        ),
    ],
)
def test_a_cap_the_engine_cannot_apply_is_refused_by_name(
    tmp_path: Path, table: str, key: str, message: str
) -> None:
    path = variant(tmp_path, FOUR_CARD, table)
    with pytest.raises(RuleFileError, match=re.escape(f"settlement.cap.{key}")) as caught:
        describe(load_rules(path))
    assert message in str(caught.value)


def test_a_cap_on_the_bonus_of_a_game_without_one_is_refused(tmp_path: Path) -> None:
    path = variant(tmp_path, "caribbean-stud.no-upcard", cap_table("5", "1", ["flush"], ["bonus"]))
    with pytest.raises(RuleFileError, match=r"settlement\.cap\.bets.*has no bonus"):
        describe(load_rules(path))


def numerators(values: Values) -> list[list[list[int]]]:
    """Whole-number values as the engine and the reference take them (denominator 1)."""
    assert all(v.denominator == 1 for d in values for o in d for v in o)
    return [[[int(v) for v in o] for o in d] for d in values]


#: Thirteen cards of Four Card Poker's shape where the cap changes decisions: A 2 3 4 in
#: spades, hearts and diamonds (trips, straights, flushes, the straight flush A-2-3-4 of
#: spades), and the king of spades.
SMALL_DECK = (*(r * 4 + s for r in (12, 0, 1, 2) for s in (3, 2, 0)), 11 * 4 + 3)


def test_a_capped_game_equals_the_brute_force_on_a_reduced_deck(tmp_path: Path) -> None:
    capped = ["three-of-a-kind", "straight", "pair"]
    path = variant(tmp_path, FOUR_CARD, cap_table("9", "3", capped, ["ante", "raise", "bonus"]))
    d = describe(load_rules(path))
    figures = game_figures(d, SMALL_DECK)
    values = four_card_values(Fraction(3), set(capped), {"ante", "raise", "bonus"})
    game = ref.Game(
        ref.Ranking(4, ref.VOCABULARY[4], ref.TieBreaks(suit_decides=False)),
        SMALL_DECK,
        5,
        6,
        1,
        None,
    )
    expected = ref.analyze(game, numerators(values))
    rows = sorted(tuple(getattr(r, f) for f in ref.ROW_FIELDS) for r in expected.rows.values())
    assert sorted(figures["rows"]) == rows
    net = sum(
        (
            values[r.decision][o][r.category] * n
            for r in expected.rows.values()
            for o, n in enumerate((r.not_qualifying, r.won, r.tied, r.lost))
        ),
        Fraction(0),
    )
    assert figures["expected value"] == net / (expected.situations * expected.completions)
    # The cap moves decisions: uncapped, the same deck's optimum plays other multiples.
    free = ref.analyze(game, numerators(four_card_values(Fraction(10**9), set(), set())))
    assert {k: r.situations for k, r in free.rows.items()} != {
        k: r.situations for k, r in expected.rows.items()
    }


#: Standard Caribbean Stud written in the generic layout: the no-upcard variant's file with
#: the dealer's fifth card face up again.
UPCARD = (
    'upcards = { value = 0, article = "Lab variant: the deal"',
    'upcards = { value = 1, article = "Lab variant: the deal"',
)
CARIBBEAN_CAPPED = ["four-of-a-kind", "straight-flush", "royal-flush"]


def test_the_generic_cap_gives_the_dedicated_engines_caribbean_figures(tmp_path: Path) -> None:
    # 200 units against an ante of 5: raise wins capped at 40 antes, as --cap 40 with the
    # standard file's ante of 1.
    path = variant(
        tmp_path,
        "caribbean-stud.no-upcard",
        cap_table("200", "5", CARIBBEAN_CAPPED, ["raise"]),
        *UPCARD,
    )
    sheet = stud.analyze(load_rules(path))
    today = caribbean_stud.analyze("caribbean-stud.standard", cap=40, use_cache=False)
    assert sheet.house_edge == today.house_edge
    assert sheet.element_of_risk == today.element_of_risk
    assert sheet.decisions[1].probability == today.raise_probability
    # The cap binds (the straight flush's 50 to 1 and the royal's 100 to 1 on a raise of 2
    # antes pay more than 40), and the lines say so.
    capped_lines = sorted(r.event for r in sheet.rows if r.event.endswith("(capped)"))
    assert capped_lines == [
        "raise 2x: player wins with royal-flush (capped)",
        "raise 2x: player wins with straight-flush (capped)",
    ]


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("TABLECERT_SLOW"), reason="long run: set TABLECERT_SLOW=1")
def test_the_generic_cap_curve_is_the_dedicated_engines(tmp_path: Path) -> None:
    # The dedicated engine proves most points from its decisions; the generic one reruns
    # them: the same exact house edges at every maximum (an ante of 5: five times the units).
    path = variant(
        tmp_path,
        "caribbean-stud.no-upcard",
        cap_table("0", "5", CARIBBEAN_CAPPED, ["raise"]),
        *UPCARD,
    )
    maxima = [0, 100, 200, 250, 500, 1000]
    sheet = stud.analyze(load_rules(path), cap_curve=maxima)
    today = caribbean_stud.analyze("caribbean-stud.standard", use_cache=False)
    dedicated = today.cap_curve([Fraction(m, 5) for m in maxima])
    assert [p.house_edge for p in sheet.cap_curve] == [p.house_edge for p in dedicated]
    assert [p.element_of_risk for p in sheet.cap_curve] == [p.element_of_risk for p in dedicated]
