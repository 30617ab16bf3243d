"""Each bundled section kind on small plans: exact data, verdicts with articles, and failures
that must fail (a deviating configuration, a wrong evaluator, a broken log, a biased RNG)."""

from __future__ import annotations

import json
import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from tablecert.errors import PlanError
from tablecert.games.common import OutcomeRow
from tablecert.report.canonical import canonical_bytes
from tablecert.report.certify import run_sections
from tablecert.report.entry import Section
from tablecert.report.plan import load_plan
from tablecert.report.sections.par_sheet import table_verdicts
from tests.support.plan_support import write_plan

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _sections(tmp_path: Path, body: str) -> list[Section]:
    plan = write_plan(tmp_path, '[certification]\ntitle = "t"\n\n' + body)
    sections = run_sections(load_plan(plan))
    for s in sections:
        canonical_bytes(s.data)  # exact data only: a float would raise here
    return sections


def _outcomes(section: Section) -> dict[str, str]:
    return {v.requirement: v.outcome for v in section.verdicts}


def test_par_sheet_q_poker(tmp_path: Path) -> None:
    (s,) = _sections(
        tmp_path, '[[section]]\nkind = "par-sheet"\ngame = "q-poker"\nrules = "q-poker.macau"\n'
    )
    assert s.id == "par-sheet/q-poker/q-poker.macau"
    # Pair plus 40/30/6/4/1: house edge 2.3167% (Wizard of Odds, "Three Card Poker", pay
    # table 40-30-6-4-1); the ante-play bet under the statute's suit tie-breaks: exact.
    assert s.data["pair_plus"]["house_edge"]["exact"] == "128/5525"
    assert s.data["play"]["house_edge"]["exact"] == "11234169/407170400"
    assert [r["count"] for r in s.data["pair_plus"]["rows"]] == [48, 52, 720, 1096, 3744, 16440]
    assert {v.article for v in s.verdicts} == {"第十條", "第九條"}
    assert set(_outcomes(s).values()) == {"pass"}
    assert len(s.verdicts) == 4
    assert "多寶 / Pair Plus" in s.html


def test_par_sheet_verdicts_catch_a_broken_table() -> None:
    rows = (
        OutcomeRow("win", "第十條(一)", Fraction(1), 10, 100),
        OutcomeRow("lose", "第十條(二)", Fraction(-1), 89, 100),  # one deal missing
    )
    exhaustive, returns = table_verdicts("p", "bet", rows, Fraction(-1, 2))
    assert (exhaustive.outcome, returns.outcome) == ("fail", "fail")
    assert exhaustive.article == "第十條"
    assert exhaustive.detail == "99 of 100 deals; probabilities sum to 99/100"
    assert returns.detail == "sum of returns -79/100 = -0.7900000000; expected value -1/2"


def test_mahjong_tables_simple(tmp_path: Path) -> None:
    (s,) = _sections(
        tmp_path,
        '[[section]]\nkind = "mahjong-tables"\ngame = "mahjong-simple"\n'
        'rules = "mahjong-simple.macau"\n',
    )
    d = s.data
    assert d["dealt_hands"] == 134_153_712  # C(112, 5)
    assert d["complete_dealt_hands"] == 223_776
    assert d["heavenly_hand_any"] == {"exact": "2/1199", "decimal": "0.001668056714"}
    assert d["fan_totals"][0]["name"] == "0 fan"
    assert _outcomes(s) == {
        "mahjong-tables.mahjong-simple.macau.fan-totals": "pass",
        "mahjong-tables.mahjong-simple.macau.cap": "pass",
    }
    assert {v.article for v in s.verdicts} == {"第六条(乙)"}


def test_mahjong_tables_refuse_a_poker_game(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="'q-poker' is not a mahjong game"):
        _sections(
            tmp_path,
            '[[section]]\nkind = "mahjong-tables"\ngame = "q-poker"\nrules = "q-poker.macau"\n',
        )


def test_configuration_conforming_and_deviating(tmp_path: Path) -> None:
    good, bad = _sections(
        tmp_path,
        f'[[section]]\nkind = "configuration"\nfile = "{FIXTURES}/configs/q-poker.casino-c.toml"\n'
        f'\n[[section]]\nkind = "configuration"\nreturns = false\n'
        f'file = "{FIXTURES}/configs/q-poker.casino-b.toml"\n',
    )
    assert good.outcome == "pass"
    assert good.data["verdict"] == "conforms"
    assert good.data["configuration"] == "q-poker.casino-c.toml"
    assert [(b["bet"], b["difference"]) for b in good.data["returns"]] == [
        (b["bet"], "0") for b in good.data["returns"]
    ]
    assert len(good.data["returns"]) == 2
    assert bad.outcome == "fail"
    assert bad.data["returns"] == []
    failed = {v.article: v.detail for v in bad.verdicts if v.outcome == "fail"}
    assert failed == {
        "第九條(七)(3)": "play.win.straight: submitted 1, statute 3/2",
        "第十條(三)": "pair_plus.straight: submitted 5, statute 6",
    }


def _crosscheck(function: str) -> str:
    return (
        '[[section]]\nkind = "evaluator-crosscheck"\ngame = "q-poker"\nrules = "q-poker.macau"\n'
        f'evaluator = "{FIXTURES}/evaluators/vendor_poker.py"\nfunction = "{function}"\n'
        "hands = 500\nsuit_pairs = 500\nother_pairs = 300\nseed = 3\nsettlements = 2\n"
    )


def test_evaluator_crosscheck_correct_and_wrong(tmp_path: Path) -> None:
    good, wrong, pays = _sections(
        tmp_path,
        _crosscheck("q_poker_statute")
        + "\n"
        + _crosscheck("q_poker_pushes_ties")
        + "\n"
        + _crosscheck("q_poker_straight_even_money"),
    )
    assert good.outcome == "pass"
    assert [(c["name"], c["checked"]) for c in good.data["checks"]] == [
        ("hand categories", 500),
        ("adjacent rank classes", 740),
        ("suit-decided pairs", 500),  # the 72 straight-flush pairs, 107 in each other category
        ("other pairs", 300),
        ("settlements", 30),  # 2 deals for each of 15 outcomes of the two bets
    ]
    assert "requests_per_second" not in good.data["checks"][0]  # a measurement, not data
    outcomes = _outcomes(wrong)
    prefix = "evaluator-crosscheck.q-poker.vendor_poker.py:q_poker_pushes_ties"
    assert outcomes[f"{prefix}.hand-categories"] == "pass"
    assert outcomes[f"{prefix}.suit-decided-pairs"] == "fail"  # pushes what suits decide
    assert {v.article for v in wrong.verdicts} == {"第八條", "第九條, 第十條"}
    pays_prefix = "evaluator-crosscheck.q-poker.vendor_poker.py:q_poker_straight_even_money"
    assert [name for name, outcome in _outcomes(pays).items() if outcome == "fail"] == [
        f"{pays_prefix}.settlements"  # pays a straight 1 to 1 (第九條(七)(3): 3 to 2)
    ]


@pytest.mark.skipif(shutil.which("perl") is None, reason="perl missing")
def test_evaluator_crosscheck_runs_a_program(tmp_path: Path) -> None:
    (s,) = _sections(
        tmp_path,
        '[[section]]\nkind = "evaluator-crosscheck"\ngame = "q-poker"\nrules = "q-poker.macau"\n'
        f'evaluator = "{FIXTURES}/evaluators/q_poker_statute.pl"\ncommand = "perl"\n'
        "hands = 300\nsuit_pairs = 300\nother_pairs = 100\n",
    )
    assert s.outcome == "pass"
    assert s.data["evaluator"] == "perl q_poker_statute.pl"


def test_evaluator_py_needs_a_function(tmp_path: Path) -> None:
    body = _crosscheck("x").replace('function = "x"\n', "")
    with pytest.raises(PlanError, match=r"function: a \.py evaluator needs the function"):
        _sections(tmp_path, body)


def _audit(logs: str, extra: str = "") -> str:
    return (
        f'[[section]]\nkind = "shuffler-audit"\nlogs = [{logs}]\nrules = "q-poker.macau"\n{extra}'
    )


def test_shuffler_audit_fair_log(tmp_path: Path) -> None:
    (s,) = _sections(tmp_path, _audit(f'"{FIXTURES}/logs/shuffler-fair-52-small.csv.gz"'))
    assert s.outcome == "pass"
    d = s.data
    assert (d["shuffles"], d["shuffles_with_input"], d["integrity"]["records"]) == (
        2000,
        2000,
        2000,
    )
    assert d["input_order_used"] == (
        "2,000 judged against their logged input (input order auto: every record logs one)"
    )
    assert d["integrity"]["files"] == ["shuffler-fair-52-small.csv.gz"]
    position = next(t for t in d["tests"] if t["key"] == "position")
    # Seeded simulation (scripts/make-fixture-logs.sh): these digits are the same every run.
    assert (position["df"], position["statistic"], position["p_value"]) == (
        2601,
        "2670.77",
        "0.166515",
    )
    assert {v.article for v in s.verdicts} == {"第三條"}  # the shuffling machine's article
    assert s.html.count("<svg") == 2  # residual heatmap and rising sequences


def test_shuffler_audit_integrity_failure_and_too_few_shuffles(tmp_path: Path) -> None:
    bad, few = _sections(
        tmp_path,
        _audit(f'"{FIXTURES}/logs/shuffler-bad.csv"')
        + "\n"
        + _audit(f'"{FIXTURES}/logs/shuffler-sample.csv"'),
    )
    prefix = "shuffler-audit.cards52"
    assert _outcomes(bad)[f"{prefix}.shuffler-bad.csv.integrity"] == "fail"
    assert bad.data["integrity"]["bad_count"] > 0
    assert bad.data["integrity"]["bad_records"][0]["file"] == "shuffler-bad.csv"
    assert _outcomes(few) == {
        f"{prefix}.shuffler-sample.csv.integrity": "pass",
        f"{prefix}.shuffler-sample.csv.randomness": "inconclusive",  # never a pass
    }


def test_shuffler_audit_mahjong_walls(tmp_path: Path) -> None:
    (s,) = _sections(
        tmp_path,
        '[[section]]\nkind = "shuffler-audit"\ndeck = "mahjong112"\n'
        f'logs = ["{FIXTURES}/logs/mahjong112-sample.csv"]\nrules = "mahjong-simple.macau"\n',
    )
    assert s.data["deck"] == "mahjong112"
    assert {v.article for v in s.verdicts} == {"第二条(2)(乙)"}
    assert s.html.count("<svg") == 1  # no rising-sequence plot for walls


def test_files_field_errors_name_the_key(tmp_path: Path) -> None:
    with pytest.raises(
        PlanError, match=r"plan\.toml:6: section 1 \(shuffler-audit\): logs: no such"
    ):
        _sections(tmp_path, _audit('"missing.csv"'))
    with pytest.raises(PlanError, match="logs: expected a non-empty list of file paths"):
        _sections(tmp_path, _audit(""))


def test_rng_audit_pi(tmp_path: Path) -> None:
    (s,) = _sections(
        tmp_path,
        f'[[section]]\nkind = "rng-audit"\nfiles = ["{FIXTURES}/nist/pi.bin"]\n'
        'rules = "q-poker.macau"\nbits = 100000\nsequences = 10\n',
    )
    assert s.outcome == "pass"
    d = s.data
    assert (d["total_bits"], d["bits_per_sequence"], d["sequences"]) == (1_000_000, 100_000, 10)
    frequency = d["columns"][0]
    assert frequency["test"] == "Frequency"
    assert frequency["proportion"] == {"exact": "1/1", "decimal": "1.000000000000"}
    assert sum(frequency["histogram"]) == 10
    assert s.verdicts[0].article == "第三條; NIST SP 800-22 rev1a 4.2"
    assert s.appendix is not None  # the 188-row table is an appendix, the section says why
    assert "STATISTICAL TEST" in s.appendix.html
    assert "STATISTICAL TEST" not in s.html
    assert "Decision at family-wise alpha 0.01" in s.html


def test_rng_audit_fails_a_biased_generator(tmp_path: Path) -> None:
    biased = tmp_path / "biased.bin"
    biased.write_bytes(bytes([0b01110111]) * 25_000)  # 75% ones
    (s,) = _sections(
        tmp_path,
        f'[[section]]\nkind = "rng-audit"\nfiles = ["{biased}"]\nrules = "q-poker.macau"\n'
        'bits = 20000\ntests = ["Frequency", "Runs"]\n',
    )
    assert s.outcome == "fail"
    rules = {r["rule"]: r for r in s.data["decision"]["rules"]}
    assert rules["extreme"]["rejected"] == ["Frequency", "Runs"]
    assert rules["proportion"]["rejected"] == ["Frequency", "Runs"]


@pytest.mark.parametrize("sequences", [1, 2])
def test_rng_audit_zeros_fail_with_one_or_two_sequences(tmp_path: Path, sequences: int) -> None:
    """All zero bytes with 1 or 2 sequences: no pass count can reject with so few sequences,
    so a certification would pass them; the extreme p-value rule fails them."""
    zeros = tmp_path / "zeros.bin"
    zeros.write_bytes(bytes(12_500 * sequences))
    (s,) = _sections(
        tmp_path,
        f'[[section]]\nkind = "rng-audit"\nfiles = ["{zeros}"]\nrules = "q-poker.macau"\n'
        f"bits = 100000\nsequences = {sequences}\n",
    )
    assert s.outcome == "fail"
    (verdict,) = s.verdicts
    assert "extreme at alpha" in verdict.statement
    assert "uniformity not run" in verdict.statement
    rules = {r["rule"]: r for r in s.data["decision"]["rules"]}
    assert rules["uniformity"]["reason"] == (
        f"cannot run with {sequences} sequence(s): needs at least 55"
    )
    assert rules["proportion"]["min_sequences"] == 2
    assert "Decision at family-wise alpha 0.01" in s.html
    assert s.data["parameters"]["longest_run_m"] == 128  # resolved from n, not 0


def test_rng_audit_nist_tool_key(tmp_path: Path) -> None:
    (s,) = _sections(
        tmp_path,
        f'[[section]]\nkind = "rng-audit"\nfiles = ["{FIXTURES}/nist/e.bin"]\n'
        'rules = "q-poker.macau"\nbits = 100000\nsequences = 10\nnist_tool = true\n',
    )
    assert s.outcome == "pass"
    assert s.data["mode"] == "nist-tool"
    assert s.data["nist_tool_columns"][0]["proportion_bounds"] == [8, 10]
    with pytest.raises(PlanError, match="nist_tool"):
        _sections(
            tmp_path,
            f'[[section]]\nkind = "rng-audit"\nfiles = ["{FIXTURES}/nist/e.bin"]\n'
            'rules = "q-poker.macau"\nbits = 100000\nnist_tool = "yes"\n',
        )
    with pytest.raises(PlanError, match="bits: must be at least 100, got 8"):
        _sections(
            tmp_path,
            f'[[section]]\nkind = "rng-audit"\nfiles = ["{FIXTURES}/nist/e.bin"]\n'
            'rules = "q-poker.macau"\nbits = 8\n',
        )


@pytest.mark.parametrize("tool", [False, True], ids=["document", "nist-tool"])
def test_rng_audit_data_is_what_audit_rng_json_prints(tmp_path: Path, tool: bool) -> None:
    # One builder: the section signs what `audit rng --json` prints, less the CLI's own
    # verdict and p-value columns, with the file names instead of the paths as given.
    from typer.testing import CliRunner

    from tablecert.cli import app

    e = FIXTURES / "nist" / "e.bin"
    (s,) = _sections(
        tmp_path,
        f'[[section]]\nkind = "rng-audit"\nfiles = ["{e}"]\nrules = "q-poker.macau"\n'
        f"bits = 100000\nsequences = 10\nnist_tool = {str(tool).lower()}\n",
    )
    args = ["audit", "rng", str(e), "-N", "10", "-n", "100000", "--json"]
    result = CliRunner().invoke(app, [*args, *(["--nist-tool"] if tool else [])])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert printed["files"] == [str(e)]
    assert s.data["files"] == ["e.bin"]
    assert printed["verdict"] == s.outcome == "pass"
    assert len(printed["pvalues"]["columns"]) == len(s.data["columns"]) == 187
    cli_only = {"schema", "tablecert_version", "verdict", "pvalues", "files"}
    shared = {k: v for k, v in printed.items() if k not in cli_only}
    assert shared == json.loads(canonical_bytes({k: v for k, v in s.data.items() if k != "files"}))
    assert ("nist_tool_columns" in shared) is tool
