"""Vendor evaluators against the statute ordering: the wrong ones are caught and named."""

from __future__ import annotations

import json
import re
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.conformance import poker_crosscheck
from tablecert.conformance.evaluator_protocol import (
    EvaluatorError,
    EvaluatorStartError,
    open_evaluator,
    write_requests,
)
from tablecert.report.sections import evaluator_crosscheck

EVALUATORS = Path(__file__).resolve().parents[2] / "fixtures" / "evaluators"
VENDOR = f"{EVALUATORS / 'vendor_poker.py'}"
PERL = f"cmd:perl {EVALUATORS / 'q_poker_statute.pl'}"


@pytest.fixture(scope="module")
def q_plan() -> poker_crosscheck.Plan:
    """All 22,100 hands, every adjacent class pair, a sample of the suit-decided pairs."""
    return poker_crosscheck.plan("q-poker", suit_pairs=30_000, other_pairs=5_000, seed=1)


def run(plan: poker_crosscheck.Plan, spec: str) -> poker_crosscheck.CrosscheckReport:
    return poker_crosscheck.crosscheck(plan, open_evaluator(spec, timeout_s=5), spec)


def defects(report: poker_crosscheck.CrosscheckReport) -> list[str]:
    return [g.description for c in report.checks for g in c.groups]


def test_complete_q_poker_plan_sizes() -> None:
    plan = poker_crosscheck.plan("q-poker", other_pairs=10)
    assert len(plan.categories) == 22_100
    # Every pair of disjoint 3-card hands equal in ranks: the statute decides each by suit.
    assert len(plan.suit_pairs) == 225_264
    assert plan.suit_pairs_complete
    # One pair per rank class but the top one: 741 classes of rank-equal hands.
    assert len(plan.adjacent_pairs) == 740


def test_correct_python_evaluator_conforms_exhaustively() -> None:
    plan = poker_crosscheck.plan("q-poker", other_pairs=2_000)
    report = run(plan, f"{VENDOR}:q_poker_statute")
    assert report.passed
    assert [c.checked for c in report.checks] == [22_100, 740, 225_264, 2_000, 300]


def test_correct_perl_evaluator_conforms(q_plan: poker_crosscheck.Plan) -> None:
    report = run(q_plan, PERL)
    assert report.passed, defects(report)


def test_pushing_ties_is_caught_and_named(q_plan: poker_crosscheck.Plan) -> None:
    report = run(q_plan, f"{VENDOR}:q_poker_pushes_ties")
    assert not report.passed
    suit_check = report.checks[2]
    assert suit_check.mismatches == suit_check.checked  # every suit-decided pair pushed
    named = defects(report)
    assert any(
        d.startswith("第八條(五) (pair, decided by the kicker's suit): evaluator answers PUSH")
        for d in named
    )
    assert any(
        d.startswith("第八條(六) (high card, decided by suit of the highest card)") for d in named
    )


def test_a23_above_234_is_caught_and_named(q_plan: poker_crosscheck.Plan) -> None:
    report = run(q_plan, f"{VENDOR}:q_poker_a23_second")
    assert not report.passed
    adjacent = report.checks[1]
    assert adjacent.mismatches == 2  # A-2-3 vs 2-3-4, as straight and as straight flush
    assert {g.article for g in adjacent.groups} == {"第八條(三)", "第八條(一)"}
    assert all(g.common_features == ("an ace-low straight (A-2-3)",) for g in adjacent.groups)
    assert all(g.answer == "reverses the order" for g in adjacent.groups)


def test_wrong_pair_suit_is_caught_and_named(q_plan: poker_crosscheck.Plan) -> None:
    report = run(q_plan, f"{VENDOR}:q_poker_pair_suit")
    groups = [g for c in report.checks for g in c.groups]
    assert {(g.article, g.step, g.answer) for g in groups} == {
        ("第八條(五)", "the kicker's suit", "reverses the order")
    }


def test_caribbean_lower_pair_suit_is_caught() -> None:
    plan = poker_crosscheck.plan(
        "caribbean-stud", hands=3_000, suit_pairs=7_000, other_pairs=2_000, seed=3
    )
    report = run(plan, f"{VENDOR}:caribbean_lower_pair_suit")
    groups = {(g.article, g.step) for c in report.checks for g in c.groups}
    assert groups == {("第八条(八)", "suit of the higher pair"), ("第八条(九)", "suit of the pair")}
    good = run(plan, f"{VENDOR}:caribbean_statute")
    assert good.passed, defects(good)


def evaluator_failed(report: poker_crosscheck.CrosscheckReport, pattern: str) -> str:
    """The evaluator's failure: the check it was answering fails with the error, the checks
    after it fail as not run, and the whole crosscheck deviates (never passes)."""
    failed = [c for c in report.checks if c.error]
    assert failed, "the evaluator's failure was not reported"
    assert re.search(pattern, failed[0].error), failed[0].error
    assert all(c.error.startswith("not run: ") for c in failed[1:])
    assert report.checks[-1].error
    assert report.verdict == "deviates"
    assert report.as_json()["checks"][-1]["verdict"] == "deviates"
    return failed[0].error


def test_results_file_round_trip(tmp_path: Path) -> None:
    plan = poker_crosscheck.plan("q-poker", hands=500, suit_pairs=500, other_pairs=100)
    requests = tmp_path / "requests.txt"
    assert write_requests(requests, plan.requests()) == plan.total
    sys.path.insert(0, str(EVALUATORS))
    try:
        import vendor_poker  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(EVALUATORS))
    answers = tmp_path / "answers.tsv"
    lines = requests.read_text().splitlines()
    answers.write_text("".join(f"{r}\t{vendor_poker.q_poker_statute(r)}\n" for r in lines))
    assert run(plan, f"file:{answers}").passed
    # An answer file for other requests, or a short one, is a failed check, never a pass.
    answers.write_text("".join(f"{r}\tA\n" for r in lines[1:]))
    evaluator_failed(run(plan, f"file:{answers}"), r"answers.tsv:1: answers 'category")
    answers.write_text("".join(f"{r}\tA\n" for r in lines[:10]))
    evaluator_failed(run(plan, f"file:{answers}"), r"answers\.tsv: ends at line 11")
    answers.write_text("".join(f"{r}\tA\n" for r in [*lines, "extra"]))
    assert "more lines than there were requests" in evaluator_failed(
        run(plan, f"file:{answers}"), "more lines"
    )


def test_crashing_and_hanging_evaluators_fail(tmp_path: Path) -> None:
    plan = poker_crosscheck.plan("q-poker", hands=50, suit_pairs=10, other_pairs=10)
    crash = tmp_path / "crash.py"
    crash.write_text(
        "import sys\nsys.stdin.readline()\nprint('pair', flush=True)\n"
        "sys.exit('segfault in evaluator')\n"
    )
    evaluator_failed(
        run(plan, f"cmd:{sys.executable} {crash}"), r"exited with status 1 .*segfault in evaluator"
    )
    hang = tmp_path / "hang.py"
    hang.write_text("import time\ntime.sleep(30)\n")
    evaluator_failed(
        poker_crosscheck.crosscheck(plan, open_evaluator(f"cmd:{sys.executable} {hang}", 1.0), "x"),
        "hung: no response to 'category",
    )
    raises = tmp_path / "raises.py"
    raises.write_text(
        "def f(request):\n    raise RuntimeError('boom')\ndef g(request):\n    return 3\n"
    )
    evaluator_failed(run(plan, f"{raises}:f"), "evaluator raised RuntimeError: boom on request")
    evaluator_failed(run(plan, f"{raises}:g"), r"returned 3 \(not a string\)")
    with pytest.raises(EvaluatorStartError, match="cannot start"):  # set-up, not a verdict
        open_evaluator("cmd:/nonexistent/evaluator")
    with pytest.raises(EvaluatorError, match="expected module:function"):
        open_evaluator("nonsense")


@pytest.mark.parametrize(
    ("body", "raised"),
    [
        ("import sys\ndef f(request):\n    sys.exit(0)\n", "SystemExit"),
        ("def f(request):\n    raise SystemExit(3)\n", "SystemExit"),
        ("def f(request):\n    raise KeyboardInterrupt\n", "KeyboardInterrupt"),
        ("class Stop(BaseException):\n    pass\ndef f(request):\n    raise Stop()\n", "Stop"),
        (
            "calls = []\ndef f(request):\n    calls.append(1)\n"
            "    if len(calls) > 60:\n        raise SystemExit(0)\n    return 'high card'\n",
            "SystemExit",
        ),
    ],
)
def test_an_evaluator_that_exits_fails_its_check(tmp_path: Path, body: str, raised: str) -> None:
    """sys.exit(0) inside a vendor's evaluator is the evaluator failing, not tablecert ending
    with exit 0 and no verdict."""
    plan = poker_crosscheck.plan("q-poker", hands=50, suit_pairs=10, other_pairs=10)
    path = tmp_path / "exits.py"
    path.write_text(body)
    evaluator_failed(run(plan, f"{path}:f"), f"evaluator raised {raised}")
    at_import = tmp_path / "exits_at_import.py"
    at_import.write_text("import sys\nsys.exit(0)\ndef f(request):\n    return 'A'\n")
    with pytest.raises(EvaluatorStartError, match="cannot import: SystemExit"):
        open_evaluator(f"{at_import}:f")


def test_cli_exit_codes_and_json(tmp_path: Path) -> None:
    runner = CliRunner()
    args = [
        "crosscheck",
        "poker",
        "q-poker",
        "--hands",
        "300",
        "--suit-pairs",
        "300",
        "--other-pairs",
        "100",
        "--json",
    ]
    good = runner.invoke(app, [*args, "--evaluator", f"{VENDOR}:q_poker_statute"])
    assert good.exit_code == 0, good.output
    assert json.loads(good.stdout)["verdict"] == "conforms"
    bad = runner.invoke(app, [*args, "--evaluator", f"{VENDOR}:q_poker_pushes_ties"])
    assert bad.exit_code == 1
    data = json.loads(bad.stdout)
    assert data["verdict"] == "deviates"
    assert data["checks"][2]["defects"][0]["answer"] == "answers PUSH"
    usage = runner.invoke(app, ["crosscheck", "poker", "q-poker", "--hands", "-3"])
    assert usage.exit_code == 2


def test_settlements_cover_every_outcome_of_every_bet(q_plan: poker_crosscheck.Plan) -> None:
    outcomes = {case[1] for case in q_plan.settlements}
    assert outcomes == {
        *(f"多寶 {c}" for c in q_plan.tables.order.categories),
        *(f"win with {c}" for c in q_plan.tables.order.categories),
        "fold",
        "dealer does not qualify",
        "loss",
    }
    assert poker_crosscheck.expected_settlement(
        q_plan.tables.order, "win with straight", "straight"
    ) == Fraction(3, 2)
    assert poker_crosscheck.expected_settlement(q_plan.tables.order, "fold", "pair") == Fraction(
        -1, 2
    )


def test_wrong_straight_payout_is_caught_and_named(q_plan: poker_crosscheck.Plan) -> None:
    report = run(q_plan, f"{VENDOR}:q_poker_straight_even_money")
    groups = [g for c in report.checks for g in c.groups]
    assert [(g.category, g.article, g.count, g.of) for g in groups] == [
        ("win with straight", "第九條(七)(3)", 20, 20)
    ]


def test_caribbean_settlements() -> None:
    plan = poker_crosscheck.plan(
        "caribbean-stud",
        hands=500,
        suit_pairs=500,
        other_pairs=200,
        seed=5,
        settlements_per_outcome=5,
    )
    order = plan.tables.order
    assert (
        poker_crosscheck.expected_settlement(order, "win with full house", "full house") == 15
    )  # 1 + 2 x 7
    assert poker_crosscheck.expected_settlement(order, "loss", "pair") == -3
    assert poker_crosscheck.expected_settlement(order, "dealer does not qualify", "pair") == 1
    assert run(plan, f"{VENDOR}:caribbean_statute").passed


@pytest.fixture(scope="module")
def caribbean_plan() -> poker_crosscheck.Plan:
    """The default Caribbean Stud plan (what `crosscheck poker caribbean-stud` asks)."""
    return poker_crosscheck.plan("caribbean-stud", hands=100, other_pairs=5_000)


def test_caribbean_suit_pairs_are_distinct_and_stated_as_asked(
    caribbean_plan: poker_crosscheck.Plan,
) -> None:
    """The 100,000 suit-decided pairs are 100,000 distinct pairs: small categories whole, the
    others sampled without replacement, and the stated size and power are of those."""
    p = caribbean_plan
    pairs = p.suit_pairs.tolist()
    assert len({frozenset(x) for x in pairs}) == len(pairs) == 100_000
    assert [(s.category, s.asked, s.population) for s in p.suit_strata] == [
        ("high card", 23_070, 157_645_650),
        ("one pair", 23_070, 14_826_240),
        ("two pair", 23_069, 185_328),
        ("straight", 23_069, 1_234_500),
        ("flush", 7_662, 7_662),
        ("straight flush", 54, 54),
        ("royal flush", 6, 6),
    ]
    # The populations are the complete set the native crosscheck checks.
    assert sum(s.population for s in p.suit_strata) == 173_899_440
    t = p.tables
    a, b = p.suit_pairs[:, 0], p.suit_pairs[:, 1]
    assert not np.any(t.masks[a] & t.masks[b])
    assert np.all(t.keys[a] != t.keys[b])
    assert np.all((t.keys[a] & ~np.uint32(3)) == (t.keys[b] & ~np.uint32(3)))
    names = np.array(t.order.categories)[t.categories[a]]
    assert {s.category: int(np.sum(names == s.category)) for s in p.suit_strata} == {
        s.category: s.asked for s in p.suit_strata
    }
    # The scope states those counts, and a power computed from them (per category).
    scope = evaluator_crosscheck._scope(p, 20)
    suit = {s.what.split(" pairs decided")[0]: s for s in scope.sampled if "by suit" in s.what}
    assert {k: (s.size, s.population) for k, s in suit.items()} == {
        "high card": (23_070, 157_645_650),
        "one pair": (23_070, 14_826_240),
        "two pair": (23_069, 185_328),
        "straight": (23_069, 1_234_500),
    }
    assert (
        "high card pairs decided only by suit (distinct, without replacement): a defect in at "
        "least 1 in 5,010 of them is found with probability 99% or more" in scope.power
    )
    assert all(
        f"{s.what}: a defect in at least 1 in {evaluator_crosscheck.detectable_share(s.size):,} "
        "of them" in " ".join(scope.power)
        for s in suit.values()
    )
    assert "every one of the 6 royal flush pairs decided by suit" in scope.exhaustive
    # One pair per class boundary is every boundary, not a random draw: no power is claimed.
    assert (
        "6,473 pairs across rank classes, one for every class with the next class up that it "
        "can meet" in scope.exhaustive
    )
    assert not any("rank classes" in line for line in scope.power)
    report = poker_crosscheck.crosscheck(
        p, open_evaluator(f"{VENDOR}:caribbean_statute", timeout_s=5), "v"
    )
    assert report.checks[2].checked == 100_000
    assert report.checks[2].notes[0].startswith("100,000 distinct pairs by category: high card")


def test_written_requests_never_ask_a_pair_twice(tmp_path: Path) -> None:
    out = tmp_path / "requests.txt"
    result = CliRunner().invoke(
        app,
        [
            "crosscheck",
            "poker",
            "caribbean-stud",
            "--hands",
            "10",
            "--other-pairs",
            "20000",
            "--write-requests",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    compares = [line for line in out.read_text().splitlines() if line.startswith("compare ")]
    # 6,473 across classes, 100,000 suit-decided, 20,000 others: all distinct as pairs.
    assert len(compares) == 126_473
    assert len({frozenset(line[8:].split(" / ")) for line in compares}) == 126_473
    royal = {"Ad Kd Qd Jd Td", "Ah Kh Qh Jh Th"}
    assert sum(set(line[8:].split(" / ")) == royal for line in compares) == 1
