"""The progressive in a game described by its rule file (``rules.stud``, ``[progressive]``).

The statute's progressive written in the generic layout is read with every value's article
and reading; a progressive the law is not computed for (another hand than the player's five
cards ranked by the five-card categories, no royal flush apart) and values nothing can pay
are refused by key and line; and every progressive value of the generic copy changes the
progressive's figures or is refused by name (the rule-mutation test's judgement).
"""

from __future__ import annotations

import tomllib
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tablecert.errors import RuleFileError
from tablecert.rules import RULES_DIR, load_rules
from tablecert.rules.stud import describe
from tests.rules.test_rule_mutations import (
    UNORDERED,
    assert_change_drives_or_is_refused,
    changes,
    rule_values,
)
from tests.support.generic_caribbean import generic_caribbean, generic_caribbean_text


def _refusal(path: Path) -> str:
    with pytest.raises(RuleFileError) as caught:
        describe(load_rules(path))
    return str(caught.value)


def _line(path: Path, start: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if line.startswith(start))


def test_the_generic_copy_reads_the_progressive_with_its_articles(tmp_path: Path) -> None:
    d = describe(load_rules(generic_caribbean(tmp_path)))
    p = d.progressive
    assert p is not None
    assert (p.bet.value, p.meter.value, p.seed.value) == tuple(map(Fraction, (1, 200_000, 50_000)))
    assert p.contribution.value == Fraction(7, 10)
    assert p.royal_meter_share.value == 1
    assert p.straight_flush_meter_share.value == Fraction(1, 10)
    assert p.players.value == 7
    assert [(name, int(c.value), c.article) for name, c in p.fixed] == [
        ("royal-flush", 0, "第十条(二)(1)"),
        ("straight-flush", 0, "第十条(二)(2)"),
        ("four-of-a-kind", 100, "第十条(二)(3)"),
        ("full-house", 75, "第十条(二)(4)"),
        ("flush", 50, "第十条(二)(5)"),
    ]
    assert all(c.value.denominator == 1 for _, c in p.fixed)
    assert p.meter_pays.value == ("royal-flush", "straight-flush")
    assert p.payment_order.reading
    assert p.prize_unit.reading
    assert not p.bet.reading
    assert p.prize_unit.value == Fraction(1, 100)
    assert p.payment_order.article == "第十条(四)"


def test_the_statute_files_describe_their_progressive() -> None:
    statute = describe(load_rules("caribbean-stud.macau")).progressive
    assert statute is not None
    assert statute.seed.article == "第十条(八)"
    assert describe(load_rules("caribbean-stud.no-upcard")).progressive is None
    assert describe(load_rules("q-poker.macau")).progressive is None


def _with_progressive(tmp_path: Path, bundled: str) -> Path:
    """A bundled described game with the statute's progressive appended."""
    progressive = generic_caribbean_text().split("# Progressive (Art. 10)")[1]
    path = tmp_path / f"{bundled}.progressive.toml"
    text = (RULES_DIR / f"{bundled}.toml").read_text(encoding="utf-8")
    path.write_text(text + "\n# Progressive (Art. 10)" + progressive, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("bundled", "reason"),
    [
        (
            "four-card-poker.standard",
            "this game deals the player 5 cards (deal.player_cards) making hands of 4 "
            "(game.hand_size)",
        ),
        (
            "q-poker.six-card-bonus",
            "this game deals the player 3 cards (deal.player_cards) making hands of 3 "
            "(game.hand_size)",
        ),
    ],
)
def test_a_progressive_is_refused_where_its_law_is_not_computed(
    tmp_path: Path, bundled: str, reason: str
) -> None:
    path = _with_progressive(tmp_path, bundled)
    message = _refusal(path)
    assert message.startswith(f"{path}:{_line(path, '[progressive]')}: progressive: ")
    assert "is computed for a player's hand of 5 cards ranked by the 5-card categories" in message
    assert message.endswith(reason)


def _changed(tmp_path: Path, old: str, new: str, text: str | None = None) -> Path:
    source = generic_caribbean_text() if text is None else text
    assert old in source, old
    path = tmp_path / "changed.toml"
    path.write_text(source.replace(old, new, 1), encoding="utf-8")
    return path


def test_a_ranking_without_a_royal_flush_refuses_the_progressive(tmp_path: Path) -> None:
    text = generic_caribbean_text()
    for start in (
        '[ranking.categories.royal-flush]\nvalue = ["suit"]\narticle = "第八条(一)"\n'
        "submittable = false\n",
        'royal-flush = { value = 100, article = "第九条(五)(9)" }\n',
        'royal-flush = { value = 0, article = "第十条(二)(1)", kind = "amount", '
        "house_choice = true }\n",
    ):
        assert start in text, start
        text = text.replace(start, "")
    path = tmp_path / "no-royal.toml"
    path.write_text(text, encoding="utf-8")
    assert _refusal(path).endswith(
        ": progressive: the meter pays the royal flush and the straight flush, but the "
        "ranking has no royal-flush category (ranking.categories)"
    )


@pytest.mark.parametrize(
    ("old", "new", "key", "message"),
    [
        (
            "[progressive.fixed]\n",
            '[progressive.fixed]\nthree-of-a-kinds = { value = 5, article = "第十条" }\n',
            "progressive.fixed.three-of-a-kinds",
            "unknown category; the game's ranking: royal-flush, straight-flush, ",
        ),
        (
            "full-house = { value = 75,",
            "full-house = { value = -75,",
            "progressive.fixed.full-house",
            "-75: a prize cannot be negative",
        ),
        (
            'players = { value = 7, article = "第二条"',
            'players = { value = 8, article = "第二条"',
            "progressive.players",
            "between 1 and 7 player seats",
        ),
        (
            'meter_pays = { value = ["royal-flush", "straight-flush"]',
            'meter_pays = { value = ["royal-flush", "three-of-a-kind"]',
            "progressive.meter_pays",
            "expected distinct paying categories among royal-flush, straight-flush, "
            "four-of-a-kind, full-house, flush, got ['royal-flush', 'three-of-a-kind']",
        ),
        (
            'payment_order = { value = "ascending-seat"',
            'payment_order = { value = "clockwise"',
            "progressive.payment_order",
            "'clockwise' is not one of ascending-seat, descending-seat",
        ),
        (
            'bet = { value = 1, article = "第十条(一)"',
            'bet = { value = 1, article = "第十条(一)" }\n'
            'bets = { value = 2, article = "第十条(一)"',
            "progressive.bets",
            "unknown key (nothing in the game reads it)",
        ),
    ],
)
def test_a_progressive_value_nothing_can_pay_is_refused_by_key_and_line(
    tmp_path: Path, old: str, new: str, key: str, message: str
) -> None:
    path = _changed(tmp_path, old, new)
    refusal = _refusal(path)
    assert refusal.startswith(f"{path}:"), refusal
    assert f": {key}: {message}" in refusal, refusal


def test_a_fixed_prize_on_another_category_is_paid(tmp_path: Path) -> None:
    """The paying categories are the file's: a prize on three of a kind is a paying line."""
    from tablecert.games.progressive import progressive_of

    path = _changed(
        tmp_path,
        "[progressive.fixed]\n",
        '[progressive.fixed]\nthree-of-a-kind = { value = 5, article = "第十条(二)(6)" }\n',
    )
    d = describe(load_rules(path))
    assert d.progressive is not None
    prog = progressive_of(d.progressive, d.ranking)
    assert [p.category for p in prog.prizes][-1] == "three of a kind"
    trips = prog.prizes[-1]
    assert (trips.count, trips.fixed, trips.article) == (54_912, Fraction(5), "第十条(二)(6)")
    base = describe(load_rules(generic_caribbean(tmp_path)))
    assert base.progressive is not None
    before = progressive_of(base.progressive, base.ranking)
    assert prog.return_at(prog.meter) - before.return_at(before.meter) == Fraction(
        5 * 54_912, 2_598_960
    )


# --- every progressive value drives the figures or is refused by name ----------------------


@pytest.fixture(scope="module")
def generic_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generic_caribbean(tmp_path_factory.mktemp("generic"))


def _progressive_mutations() -> list[Any]:
    data = tomllib.loads(generic_caribbean_text())
    out = []
    for dotted, value in rule_values(data):
        if not dotted.startswith("progressive."):
            continue
        kept = [
            (how, new)
            for how, new in changes(value)
            if not (how == "reversed" and dotted.startswith(UNORDERED))
        ]
        how, new = kept[0]
        out.append(pytest.param(dotted, how, new, id=f"{dotted}:{how}"))
    return out


MUTATIONS = _progressive_mutations()


def test_every_progressive_value_is_mutated() -> None:
    assert len(MUTATIONS) == 17


@pytest.mark.parametrize(("dotted", "how", "new"), MUTATIONS)
def test_every_progressive_value_drives_the_figures_or_is_refused(
    generic_file: Path, dotted: str, how: str, new: Any, tmp_path: Path
) -> None:
    assert_change_drives_or_is_refused(generic_file, dotted, how, new, tmp_path, full=False)
