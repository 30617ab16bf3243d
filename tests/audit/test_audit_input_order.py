"""`audit shuffler` for an auditor: which input order each output was judged against and why,
a contradicting ``--input-order`` refused before any verdict, and the power statement on the
terminal and in ``--json`` (not only in certificates)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from tablecert.audit import audit_shuffler
from tablecert.audit.power import detectable
from tablecert.audit.simulate import write_log
from tablecert.errors import AuditError, PlanError
from tablecert.report.certify import run_sections
from tablecert.report.plan import load_plan
from tests.support.hostile import run_cli
from tests.support.plan_support import write_plan

POWER_2000 = (
    "a fair cards52 log can pass from 260 shuffles; at 2,000 shuffles a device is failed with "
    "99% power (alpha 0.01, input order logged) if it is riffle:1, riffle:2, riffle:3, "
    "riffle:4, riffle:5, riffle:6, riffle:7, riffle:8, shelf:10, overhand:100, modulo:8, "
    "off-by-one, short-period:1000; more shuffles are needed for modulo:10 (50,000), "
    "stuck:50 (5,000)"
)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A fair 2,000-deck log with an input in every record, the same without any input, and
    the same with the input dropped from every second record."""
    folder = tmp_path_factory.mktemp("logs")
    logged = write_log(folder / "logged.csv.gz", "fair", 2_000, seed=5)
    lines = gzip.decompress(logged.read_bytes()).decode().splitlines()
    header, records = lines[0], lines[1:]
    assert header.endswith(",output,input")
    bare = [r.rsplit(",", 1)[0] for r in records]
    (folder / "bare.csv").write_text("\n".join([header.rsplit(",", 1)[0], *bare]) + "\n")
    mixed = [r if i % 2 else r.rsplit(",", 1)[0] + "," for i, r in enumerate(records)]
    (folder / "mixed.csv").write_text("\n".join([header, *mixed]) + "\n")
    return {"logged": logged, "bare": folder / "bare.csv", "mixed": folder / "mixed.csv"}


def test_auto_says_which_order_was_used_and_why(logs: dict[str, Path]) -> None:
    logged = audit_shuffler([logs["logged"]])
    assert logged.input_order == "auto"
    assert logged.input_order_text == (
        "2,000 judged against their logged input (input order auto: every record logs one)"
    )
    bare = audit_shuffler([logs["bare"]])
    assert bare.input_order_text == (
        "1,999 judged against their device's previous output (input order auto: no record "
        "logs an input)"
    )
    mixed = audit_shuffler([logs["mixed"]])
    assert mixed.integrity.without_input == 1_000
    assert mixed.input_order_text == (
        "1,999 judged: 1,000 against their logged input, the others against their device's "
        "previous output (input order auto: 1,000 of the 2,000 records log no input)"
    )
    previous = audit_shuffler([logs["mixed"]], input_order="previous")
    assert previous.input_order_text == (
        "1,999 judged against their device's previous output (input order previous); the "
        "logged input of 1,000 of the 2,000 records is not used"
    )


def test_a_contradicting_input_order_is_refused(logs: dict[str, Path]) -> None:
    with pytest.raises(AuditError, match="every one of the 2,000 records logs its input order"):
        audit_shuffler([logs["logged"]], input_order="previous")
    with pytest.raises(AuditError, match="none of the 2,000 records logs its input order"):
        audit_shuffler([logs["bare"]], input_order="logged")


def test_cli_refuses_the_contradiction_as_a_usage_error(
    logs: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_cli(
        ["audit", "shuffler", str(logs["logged"]), "--input-order", "previous"],
        monkeypatch,
        capsys,
    )
    assert run.code == 2
    assert run.out == ""
    assert run.err.strip() == (
        "error: input order 'previous': every one of the 2,000 records logs its input order, "
        "which 'previous' would ignore; use 'auto' (the default) or 'logged'"
    )


def test_power_is_stated_on_the_terminal_and_in_json(
    logs: dict[str, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = run_cli(["audit", "shuffler", str(logs["logged"])], monkeypatch, capsys)
    assert run.code == 0, run.err
    assert "2,000 judged against their logged input (input order auto" in run.out
    assert f"\npower: {POWER_2000}\nverdict: PASS\n" in run.out.replace("\n  ", " ")
    data = json.loads(
        run_cli(["audit", "shuffler", str(logs["logged"]), "--json"], monkeypatch, capsys).out
    )
    assert data["power"] == POWER_2000
    assert data["input_order"] == "auto"
    assert data["input_order_used"].startswith("2,000 judged against their logged input")


def test_power_statement_says_when_the_table_does_not_apply() -> None:
    assert detectable("cards52", 2_000) == POWER_2000
    assert detectable("cards52", 2_000, input_order="none").endswith(
        "no power table applies: with input order none the tests against the input order "
        "are skipped"
    )
    assert detectable("cards52", 2_000, alpha=0.001).endswith(
        "; this audit's alpha 0.001 is smaller, so its power is lower than stated"
    )
    assert "this audit used input order previous" in detectable(
        "cards52", 2_000, input_order="previous"
    )
    assert detectable("mahjong136", 100).endswith("no power table is measured for mahjong136")


def test_a_plan_with_a_contradicting_input_order_is_a_plan_error(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n\n[[section]]\nkind = "shuffler-audit"\n'
        f'logs = ["{logs["logged"]}"]\nrules = "q-poker.macau"\ninput_order = "previous"\n',
    )
    with pytest.raises(PlanError) as caught:
        run_sections(load_plan(plan))
    assert str(caught.value) == (
        f"{plan}:8: section 1 (shuffler-audit): input_order: input order 'previous': every one "
        "of the 2,000 records logs its input order, which 'previous' would ignore; use 'auto' "
        "(the default) or 'logged'"
    )
