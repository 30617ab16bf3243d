"""Only hands that can meet are evidence: an evaluator is judged between hands with no card in
common, on the line protocol and natively, in every check.

The fixture fixtures/evaluators/native/full_house_by_three.c ranks full houses by the three of
a kind alone, as Caribbean Stud Art. 8(4) says: it pushes 4-4-2-2-2 against 3-3-2-2-2, two
hands that would need six deuces to meet. It must conform; the same file compiled to rank full
houses by the pair alone must not.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest

from tablecert.conformance import poker_crosscheck
from tablecert.conformance.evaluator_protocol import open_evaluator
from tablecert.conformance.native_crosscheck import HandTable, crosscheck_native
from tablecert.conformance.rank_classes import RankClasses, check_class_order, masks_of
from tablecert.poker import parse_hand

FIXTURES = Path(__file__).parents[2] / "fixtures" / "evaluators"
SYMBOL = "full_house_by_three"


@pytest.fixture(scope="module")
def libs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("native")
    subprocess.run(["make", "-s", "-C", str(FIXTURES / "native"), f"OUT={out}"], check=True)
    return out


@pytest.fixture(scope="module")
def caribbean() -> tuple[HandTable, RankClasses]:
    t = HandTable("caribbean-stud")
    return t, RankClasses.of(t.keys, masks_of(t.hands))


def descriptions(report: poker_crosscheck.CrosscheckReport) -> list[str]:
    return [g.description for c in report.checks for g in c.groups]


def test_full_houses_by_the_three_alone_conform(libs: Path) -> None:
    spec = f"so:{libs / 'libfull-house-by-three.so'}:{SYMBOL}"
    report = crosscheck_native("caribbean-stud", spec, random_pairs=20_000, seed=3)
    assert report.verdict == "conforms", descriptions(report)
    order = report.checks[0]
    # 6,474 rank classes; 146 neighbours cannot meet and are not counted (the evaluator
    # pushes 143 of them, the pairs of full houses sharing their three).
    assert (order.checked, order.mismatches) == (6_327, 0)
    assert order.notes[1].startswith("146 boundaries between neighbouring classes that cannot")
    assert report.checks[1].checked == 173_899_440


def test_full_houses_by_the_pair_alone_deviate_at_hands_that_meet(libs: Path) -> None:
    spec = f"so:{libs / 'libdefect-full-house-by-pair.so'}:{SYMBOL}"
    report = crosscheck_native("caribbean-stud", spec, random_pairs=1_000, seed=3)
    assert report.verdict == "deviates"
    order = report.checks[0]
    assert {(g.article, g.category, g.step) for g in order.groups} == {
        ("第八条(四)", "full house", "rank of the three")
    }
    # Per class pair that can meet: for each two ranks of the three (78), the pairs of pairs
    # that neither three uses (11 ranks) with the lower three's pair higher are reversed
    # (C(11, 2) = 55 each), those with equal pairs pushed (11 each).
    assert {g.answer: g.count for g in order.groups} == {
        "reverses the order": 4_290,
        "answers PUSH": 858,
    }
    assert order.mismatches == 5_148
    for m in order.first:
        a, b = (set(parse_hand(h.strip(), 5)) for h in m.request[len("compare ") :].split("/"))
        assert not a & b, m.request  # every example is a pair that can be dealt
    assert order.first[0].request == "compare 4h 4c 4d 2c 2d / Ac Ad 3h 3c 3d"


def test_a_wrong_order_across_a_boundary_that_is_no_evidence_is_found(
    caribbean: tuple[HandTable, RankClasses],
) -> None:
    """Scores that order every neighbour that can meet rightly, yet put the full houses of
    deuces over threes (2-2-2-3-3 ... 2-2-2-A-A, no evidence against each other) above every
    full house of threes, which they do meet: the wrong order is found beyond the neighbours."""
    t, classes = caribbean
    statute = t.keys.astype(np.int32)
    assert check_class_order(classes, statute).wrong == ()
    scores = statute.copy()
    category = t.keys >> np.uint32(22)
    trips = (t.keys >> np.uint32(18)) & np.uint32(15)
    deuces_full = (category == 6) & (trips == 0)
    # Above the threes-full (trips rank 1) but below the fours-full.
    scores[deuces_full] = (6 << 22) | (1 << 18) | (13 << 14)
    found = check_class_order(classes, scores)
    assert found.boundaries == 6_327  # the neighbours alone show nothing wrong ...
    # ... but every deuces-full with a pair other than threes (11) against every threes-full
    # with a pair other than deuces (11) is found: 121 class pairs that meet, scored wrongly.
    assert len(found.wrong) == found.beyond == 121
    pairs = {(t.text(a)[0], t.text(b)[0]) for a, b in found.wrong}
    assert pairs == {(p, q) for p in "456789TJQKA" for q in "456789TJQKA"}
    assert all(t.text(a).endswith("2h 2c 2d") for a, _ in found.wrong)
    assert all(t.text(b).endswith("3h 3c 3d") for _, b in found.wrong)


def test_the_statute_counts_of_classes_that_cannot_meet(
    caribbean: tuple[HandTable, RankClasses],
) -> None:
    t, classes = caribbean
    found = check_class_order(classes, t.keys.astype(np.int32))
    assert (found.classes, found.boundaries, found.not_evidence, found.beyond) == (
        6_474,
        6_327,
        146,
        0,
    )
    full = {int(c) for c in range(len(classes)) if t.keys[classes.members(c)[0]] >> 22 == 6}
    # The pair of full houses from the issue: same three, different pairs, never dealt together.
    hands = np.array(
        [parse_hand("4c 4d 2h 2c 2d", 5), parse_hand("3c 3d 2h 2c 2d", 5)], dtype=np.uint8
    )
    a, b = (int(np.flatnonzero((t.hands == np.sort(h)).all(axis=1))[0]) for h in hands)
    class_of = classes.class_of()
    assert {int(class_of[a]), int(class_of[b])} <= full
    assert not classes.can_meet(int(class_of[a]), int(class_of[b]))


def test_a_line_protocol_evaluator_with_the_same_order_conforms() -> None:
    """vendor_poker.caribbean_statute also ranks full houses (and fours and threes) by their
    rank alone: every class is asked against the next class up that it can meet, and every pair
    of the plan is one of hands that can meet, each asked once."""
    plan = poker_crosscheck.plan(
        "caribbean-stud", hands=1_000, suit_pairs=3_000, other_pairs=2_000, seed=2
    )
    spec = f"{FIXTURES / 'vendor_poker.py'}:caribbean_statute"
    report = poker_crosscheck.crosscheck(plan, open_evaluator(spec, timeout_s=5), spec)
    assert report.verdict == "conforms", descriptions(report)
    adjacent = report.checks[1]
    assert adjacent.checked == 6_473
    assert adjacent.notes == (
        "146 classes cannot meet the class just above them (not evidence, never asked); each "
        "is paired with the next class up that it can meet",
    )
    masks = plan.tables.masks
    pairs = np.concatenate(
        [
            plan.adjacent_pairs,
            plan.suit_pairs,
            plan.other_pairs,
            np.array([(a, b) for bet, _, a, b, _ in plan.settlements if bet == "play"]),
        ]
    )
    assert not np.any(masks[pairs[:, 0]] & masks[pairs[:, 1]])
    asked = plan.adjacent_pairs.tolist() + plan.suit_pairs.tolist() + plan.other_pairs.tolist()
    assert len({frozenset(p) for p in asked}) == len(asked)
