"""Native vendor evaluators (the C ABI): the sample passes exhaustively, every defect is named.

The libraries are built from fixtures/evaluators/native/ with the system C compiler, as a lab
would build a vendor's source; the defective variants are the same source with one DEFECT_*
macro each.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from tablecert import _core
from tablecert.cli import app
from tablecert.conformance import native_bench
from tablecert.conformance.evaluator_errors import EvaluatorStartError
from tablecert.conformance.native_crosscheck import HandTable, crosscheck_native
from tablecert.conformance.poker_crosscheck import CrosscheckReport
from tablecert.hand_arrays import key_table, strength_keys
from tablecert.poker import ordering

SOURCE = Path(__file__).parents[2] / "fixtures" / "evaluators" / "native"


@pytest.fixture(scope="module")
def libs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("native")
    subprocess.run(["make", "-s", "-C", str(SOURCE), f"OUT={out}"], check=True)
    return out


def defects(report: object) -> list[str]:
    assert isinstance(report, CrosscheckReport)
    return [g.description for c in report.checks for g in c.groups]


def check(game: str, lib: Path, pairs: int = 20_000) -> CrosscheckReport:
    return crosscheck_native(game, f"so:{lib}", random_pairs=pairs, seed=3)


def test_the_sample_scores_every_hand_as_the_statute_keys(libs: Path) -> None:
    from tablecert.conformance.native_evaluator import NativeEvaluator, NativeSpec

    for game in ("q-poker", "caribbean-stud"):
        t = HandTable(game)
        with NativeEvaluator(NativeSpec.parse(f"so:{libs / 'libsample.so'}")) as evaluator:
            scores = evaluator.scores(t.hands)
        # The C port packs the same keys as the core: equal, hand for hand.
        assert np.array_equal(scores.astype(np.uint32), t.keys)


def test_q_poker_sample_conforms_exhaustively(libs: Path) -> None:
    report = check("q-poker", libs / "libsample.so")
    assert report.passed, defects(report)
    # 741 rank classes (740 boundaries); every suit-decided pair, the same 225,264 the line
    # protocol's independent enumeration finds (test_poker_crosscheck).
    assert [c.checked for c in report.checks] == [740, 225_264, 20_000]
    assert report.complete_suit_pairs == 225_264


def test_caribbean_sample_conforms_exhaustively(libs: Path) -> None:
    report = check("caribbean-stud", libs / "libsample.so")
    assert report.passed, defects(report)
    # Every disjoint pair of 5-card hands equal but for suits: 173,899,440 (the line protocol
    # samples 100,000 of them). The core's count agrees with a brute force on 3-card hands.
    assert report.complete_suit_pairs == 173_899_440
    # 6,474 rank classes: 6,327 boundaries between neighbours that can meet; the other 146
    # neighbours cannot (2-2-2-3-3 and 2-2-2-4-4) and are no evidence (test_meeting_hands).
    assert report.checks[0].checked == 6_327


def test_rank_only_evaluator_pushes_every_suit_decided_pair(libs: Path) -> None:
    report = check("q-poker", libs / "libdefect-no-suit.so")
    assert not report.passed
    pairs = report.checks[1]
    assert pairs.mismatches == pairs.checked == 225_264
    found = defects(report)
    # The same figure the line-protocol crosscheck names for a tie-pushing evaluator
    # (docs/formats/evaluators.md).
    assert any(
        d.startswith(
            "第八條(五) (pair, decided by the kicker's suit): evaluator answers PUSH in "
            "5,616 of 5,616"
        )
        for d in found
    ), found
    # And the rank-only rule file's own reading: the same library conforms to it.
    standard = crosscheck_native(
        "q-poker",
        f"so:{libs / 'libdefect-no-suit.so'}",
        "q-poker.standard",
        random_pairs=5_000,
    )
    assert standard.passed, defects(standard)
    assert standard.checks[1].name.startswith("equal-rank pairs")


def test_lower_pair_suit_is_caught_in_caribbean_stud(libs: Path) -> None:
    report = check("caribbean-stud", libs / "libdefect-lower-pair-suit.so")
    assert not report.passed
    assert report.checks[0].mismatches == 0  # the order of rank classes is right
    found = defects(report)
    assert any(
        "(one pair, decided by suit of the pair): evaluator reverses the order in "
        "4,942,080 of 14,826,240" in d
        for d in found
    ), found


@pytest.mark.parametrize(
    ("game", "lib", "named"),
    [
        ("q-poker", "libdefect-wheel-high.so", "(straight, decided by ranks): evaluator reverses"),
        ("caribbean-stud", "libdefect-wheel-high.so", "(straight, decided by ranks)"),
        (
            "caribbean-stud",
            "libdefect-flush-below-straight.so",
            "第八条 (flush, decided by category)",
        ),
    ],
)
def test_order_defects_are_named_at_their_class_boundary(
    libs: Path, game: str, lib: str, named: str
) -> None:
    report = check(game, libs / lib)
    assert not report.passed
    assert report.checks[0].mismatches >= 1
    assert any(named in d for d in defects(report)), defects(report)


@pytest.mark.parametrize(
    ("lib", "message"),
    [
        ("libdefect-crash.so", r"libdefect-crash\.so:tablecert_evaluate crashed \(SIGSEGV\)"),
        ("libdefect-fails.so", r"returned status 7 while scoring hands 0\.\.22,099"),
        ("libdefect-hang.so", r"gave no answer within 2 s"),
    ],
)
def test_crash_failure_and_hang_are_failed_checks_naming_the_library(
    libs: Path, lib: str, message: str
) -> None:
    report = crosscheck_native("q-poker", f"so:{libs / lib}", timeout_s=2.0)
    assert report.verdict == "deviates"
    assert [c.verdict for c in report.checks] == ["deviates"]
    assert re.search(message, report.checks[0].error), report.checks[0].error


def test_bad_specs_are_input_errors(libs: Path, tmp_path: Path) -> None:
    """A library that is missing or cannot be loaded is the lab's set-up: nothing is judged."""
    with pytest.raises(EvaluatorStartError, match="no shared library"):
        crosscheck_native("q-poker", f"so:{tmp_path / 'missing.so'}")
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"not an ELF file")
    for spec in (f"so:{libs / 'libsample.so'}:no_such_symbol", f"so:{junk}"):
        with pytest.raises(EvaluatorStartError, match="cannot load"):
            crosscheck_native("q-poker", spec)


def test_cli_exit_codes_and_json(libs: Path) -> None:
    runner = CliRunner()
    ok = runner.invoke(
        app,
        [
            "crosscheck",
            "poker",
            "q-poker",
            "--evaluator",
            f"so:{libs / 'libsample.so'}",
            "--other-pairs",
            "1000",
            "--json",
        ],
    )
    assert ok.exit_code == 0, ok.output
    data = json.loads(ok.stdout)
    assert data["verdict"] == "conforms"
    assert data["complete_suit_pairs"] == 225_264
    bad = runner.invoke(
        app,
        [
            "crosscheck",
            "poker",
            "q-poker",
            "--evaluator",
            f"so:{libs / 'libdefect-no-suit.so'}",
            "--other-pairs",
            "1000",
        ],
    )
    assert bad.exit_code == 1
    assert "answers PUSH in 5,616 of 5,616" in bad.stdout
    crash = runner.invoke(
        app,
        ["crosscheck", "poker", "q-poker", "--evaluator", f"so:{libs / 'libdefect-crash.so'}"],
    )
    assert crash.exit_code == 1
    assert "crashed (SIGSEGV)" in crash.stdout


def test_benchmark_mode_times_vendor_and_core_on_the_same_hands(libs: Path) -> None:
    bench = native_bench.benchmark(
        "caribbean-stud",
        f"so:{libs / 'libsample.so'}",
        random_hands=20_000,
        pairs=5_000,
        repeat=2,
    )
    assert [w.hands for w in bench.workloads] == [2_598_960, 20_000, 10_000]
    for w in bench.workloads:
        assert 0 < w.vendor.min_ns <= w.vendor.median_ns
        assert 0 < w.core_one_thread.min_ns <= w.core_one_thread.median_ns
    data = bench.as_json()
    assert data["workloads"][0]["workload"] == "all hands, colex order"
    # The pairs workload holds suit-decided pairs: equal ranks, no shared card, keys differ.
    t = HandTable("caribbean-stud")
    hands = native_bench.suit_decided_pair_hands(t, 500, seed=1)
    keys = strength_keys("caribbean-stud", hands)
    a, b = hands[0::2], hands[1::2]
    assert np.all(keys[0::2] != keys[1::2])
    assert np.all((keys[0::2] & ~np.uint32(3)) == (keys[1::2] & ~np.uint32(3)))
    assert not any(set(x) & set(y) for x, y in zip(a.tolist(), b.tolist(), strict=True))


def test_benchmark_needs_a_native_evaluator() -> None:
    result = CliRunner().invoke(
        app, ["crosscheck", "poker", "q-poker", "--evaluator", "x:y", "--benchmark"]
    )
    assert result.exit_code == 2


# --- the core's perfect-hash evaluator --------------------------------------------------------


@pytest.mark.parametrize("game", ["q-poker", "caribbean-stud"])
@pytest.mark.parametrize("rules", [None, "standard"])
def test_perfect_hash_keys_equal_direct_evaluation(game: str, rules: str | None) -> None:
    rule_file = None if rules is None else f"{game}.{rules}"
    order = ordering(game, rule_file)
    size = order.hand_size
    rng = np.random.default_rng(11)
    hands = np.argsort(rng.random((50_000, 52)), axis=1)[:, :size].astype(np.uint8)
    fast = strength_keys(game, hands, rule_file)
    direct = np.frombuffer(
        _core.strength_keys(hands.tobytes(), size, order.tie_breaks), dtype="<u4"
    )
    assert np.array_equal(fast, direct)
    single = np.empty(len(hands), dtype=np.uint32)
    key_table(game, rule_file).keys_into(hands, single, False)
    assert np.array_equal(single, direct)


def test_perfect_hash_refuses_bad_hands_by_row() -> None:
    table = key_table("caribbean-stud")
    hands = np.tile(np.arange(5, dtype=np.uint8), (100_000, 1))
    hands[77_777] = [0, 1, 2, 3, 3]
    with pytest.raises(_core.CardError, match=r"hand 77777: .*duplicate"):
        table.keys(hands)
    hands[77_777] = [0, 1, 2, 3, 52]
    with pytest.raises(_core.CardError, match="hand 77777"):
        table.keys(hands)
    with pytest.raises(ValueError, match="C-contiguous"):
        table.keys(np.asfortranarray(np.tile(np.arange(5, dtype=np.uint8), (4, 1))))
    with pytest.raises(ValueError, match="10 card ids for 3 output keys"):
        table.keys_into(np.zeros(10, dtype=np.uint8), np.zeros(3, dtype=np.uint32))
