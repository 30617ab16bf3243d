"""Vendor evaluators of a game described by its rule file, against the ranking it describes:
the categories of every dealt size, a showdown across every class boundary that a player's
and a dealer's hands can meet, suit-decided showdowns when suits decide; wrong ones caught
and named by the article."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablecert import _core
from tablecert.conformance import poker_crosscheck, stud_crosscheck
from tablecert.conformance.evaluator_protocol import open_evaluator
from tablecert.poker import game_ordering
from tests.support.cli_support import tablecert

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "fixtures" / "rules" / "four-card-poker.standard.toml"
VENDOR = ROOT / "fixtures" / "evaluators" / "four_card_vendor.py"
GAME = "four-card-poker.standard"


def spec(function: str) -> str:
    return f"{VENDOR}:{function}"


@pytest.fixture(scope="module")
def four_card() -> stud_crosscheck.StudPlan:
    return stud_crosscheck.plan(game_ordering(GAME), hands=1000, other_pairs=1000, seed=1)


def run(plan: stud_crosscheck.StudPlan, function: str) -> poker_crosscheck.CrosscheckReport:
    return poker_crosscheck.crosscheck(plan, open_evaluator(spec(function), timeout_s=10), "x")


def defects(report: poker_crosscheck.CrosscheckReport) -> list[str]:
    return [g.description for c in report.checks for g in c.groups]


def key(plan: stud_crosscheck.StudPlan, cards: tuple[int, ...]) -> int:
    assert plan.order.stud is not None
    return int(_core.stud_key(plan.order.stud.ranking, list(cards)))


def test_a_correct_evaluator_conforms(four_card: stud_crosscheck.StudPlan) -> None:
    report = run(four_card, "four_card")
    assert report.passed, defects(report)
    assert [(c.name, c.checked) for c in report.checks] == [
        ("hand categories", 3000),
        ("adjacent rank classes", four_card.classes - 1),
        ("other pairs", 1000),
    ]
    assert (report.game, report.rules_file) == (GAME, "four-card-poker.standard.toml")
    assert report.checks[0].notes == (
        "4-card hands: 1,000 of 270,725, sampled",
        "5-card hands: 1,000 of 2,598,960, sampled",
        "6-card hands: 1,000 of 20,358,520, seeded draws",
    )


def test_the_boundaries_are_showdowns_the_deal_can_give(
    four_card: stud_crosscheck.StudPlan,
) -> None:
    lower_classes = []
    for a, b in four_card.boundary_pairs:
        assert sorted((len(a), len(b))) == [5, 6]  # the player's five, the dealer's six
        assert not set(a) & set(b)
        ka, kb = key(four_card, a) & ~3, key(four_card, b) & ~3
        assert ka != kb
        lower_classes.append(min(ka, kb))
    # every class but the top is paired once with a class above it
    assert len(set(lower_classes)) == len(lower_classes) == four_card.classes - 1
    assert four_card.classes == 2149  # of the 2,535 four-card classes, those dealt hands reach


def test_the_five_card_order_is_caught_and_named(four_card: stud_crosscheck.StudPlan) -> None:
    report = run(four_card, "four_card_five_card_order")
    assert not report.passed
    boundaries = report.checks[1]
    assert boundaries.mismatches > 0
    assert any(
        d.startswith("Rules: hand ranks (three-of-a-kind, decided by category): evaluator ")
        for d in defects(report)
    )


def test_a_high_ace_low_straight_is_caught_and_named(
    four_card: stud_crosscheck.StudPlan,
) -> None:
    report = run(four_card, "four_card_ace_low_high")
    assert not report.passed
    named = [g.description for g in report.checks[1].groups]
    assert any(
        d.startswith("Rules: hand ranks (straight, decided by ranks): evaluator ")
        and d.endswith("of 10 such cases; every case involves an ace-low straight (A-2-3-4)")
        for d in named
    ), named


def test_suit_decided_showdowns_when_the_suits_decide(tmp_path: Path) -> None:
    text = RULES.read_text(encoding="utf-8")
    statute = tmp_path / "four-card-suits.toml"
    statute.write_text(
        text.replace('ordering = { value = "rank-only"', 'ordering = { value = "statute"'),
        encoding="utf-8",
    )
    plan = stud_crosscheck.plan(
        game_ordering(str(statute)), hands=100, other_pairs=100, suit_pairs=800, seed=3
    )
    # 100 for each category whose equal ranks can meet, but the few straight flushes the
    # dealer's six cards hold (trips and quads of one rank never meet)
    assert plan.suit_strata == (
        ("high-card", 100),
        ("pair", 100),
        ("two-pair", 100),
        ("straight", 100),
        ("flush", 100),
        ("three-of-a-kind", 0),
        ("straight-flush", 92),
        ("four-of-a-kind", 0),
    )
    assert len(plan.suit_pairs) == 592
    for a, b in plan.suit_pairs:
        assert not set(a) & set(b)
        ka, kb = key(plan, a), key(plan, b)
        assert ka != kb
        assert ka & ~3 == kb & ~3
    report = run(plan, "four_card")  # ignores suits: answers PUSH where suit decides
    suit = report.checks[2]
    assert (suit.name, suit.checked, suit.mismatches) == ("suit-decided pairs", 592, 592)
    assert (
        "Rules: hand ranks (pair, decided by suit of the pair): evaluator answers PUSH in 100 "
        "of 100 such cases"
    ) in [g.description for g in suit.groups]


def test_the_command_exit_statuses() -> None:
    small = ["--hands", "200", "--other-pairs", "200", "--json"]
    good = tablecert(["crosscheck", "poker", GAME, "--evaluator", spec("four_card"), *small])
    assert good.code == 0, good.stderr
    assert json.loads(good.stdout)["verdict"] == "conforms"
    bad = tablecert(
        ["crosscheck", "poker", GAME, "--evaluator", spec("four_card_five_card_order"), *small]
    )
    assert bad.code == 1, bad.stderr
    found = json.loads(bad.stdout)
    assert found["verdict"] == "deviates"
    articles = {d["article"] for c in found["checks"] for d in c["defects"]}
    assert articles == {"Rules: hand ranks"}


def test_an_evaluator_that_cannot_start_is_a_plan_mistake() -> None:
    run_ = tablecert(["crosscheck", "poker", GAME, "--evaluator", "cmd:/nonexistent/evaluator"])
    assert run_.code == 2
    assert run_.error_lines[-1].startswith("error: evaluator '/nonexistent/evaluator'")
    native = tablecert(["crosscheck", "poker", str(RULES), "--evaluator", "so:/nonexistent.so"])
    assert native.code == 2
    assert "a native evaluator is checked for q-poker or caribbean-stud only" in native.stderr


def test_five_against_five_has_the_dedicated_engines_boundaries() -> None:
    """A described game dealt five cards to each side: every five-card hand on both sides,
    so its class boundaries are the dedicated Caribbean Stud check's (6,474 classes, 146 of
    which cannot meet the class just above, e.g. 2-2-2-3-3 and 2-2-2-4-4)."""
    plan = stud_crosscheck.plan(
        game_ordering("caribbean-stud.no-upcard"), hands=10, other_pairs=10, seed=0
    )
    assert (plan.classes, len(plan.boundary_pairs), plan.passed_over) == (6474, 6473, 146)
    assert plan.size_notes == ("5-card hands: 10 of 2,598,960, sampled",)
