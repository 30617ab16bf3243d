"""`certify` on the bundled plans: report.json against its schema, exact values, determinism.

The smoke plan (every section kind, small inputs, seconds) runs in the normal suite; the main
plan (all three statutes, what scripts/main.sh certifies) is marked slow."""

from __future__ import annotations

import datetime as dt
import errno
import json
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.errors import ReportError, TableCertError
from tablecert.hand_tables import CategoryRow, CategoryTable
from tablecert.report import dsse
from tablecert.report.certify import OUTPUT_FILES, Certification, Progress, certify
from tablecert.report.sections.hand_categories import _verdicts, closed_form_counts
from tablecert.report.signing import load_public_key
from tablecert.report.snapshot import InputChangedError, InputSnapshot
from tablecert.rules import RULES_DIR
from tests.support.plan_support import write_plan

ROOT = Path(__file__).resolve().parents[2]
MAIN_PLAN = ROOT / "fixtures" / "plans" / "main.toml"
SMOKE_PLAN = ROOT / "fixtures" / "plans" / "smoke.toml"
SCHEMA = ROOT / "python" / "tablecert" / "report" / "report.schema.json"
FAIR_LOG = ROOT / "fixtures" / "logs" / "shuffler-fair-52-small.csv.gz"
BAD_LOG = ROOT / "fixtures" / "logs" / "shuffler-bad.csv"
KEY = Ed25519PrivateKey.generate()


def _clock(*moments: str) -> Any:
    it: Iterator[dt.datetime] = iter(dt.datetime.fromisoformat(m) for m in moments)
    return lambda: next(it)


def _no_floats(text: str) -> Any:
    def refuse(token: str) -> None:
        raise AssertionError(f"float {token} in report.json")

    return json.loads(text, parse_float=refuse)


@pytest.fixture(scope="module")
def main_run(tmp_path_factory: pytest.TempPathFactory) -> Certification:
    out = tmp_path_factory.mktemp("cert") / "out"
    return certify(SMOKE_PLAN, Ed25519PrivateKey.generate(), out, ephemeral=True)


def test_report_matches_the_published_schema(main_run: Certification) -> None:
    report = _no_floats(main_run.report.read_text(encoding="utf-8"))
    jsonschema.validate(report, json.loads(SCHEMA.read_text(encoding="utf-8")))
    broken = dict(report, verdict="maybe")
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, json.loads(SCHEMA.read_text(encoding="utf-8")))


def test_smoke_plan_verdicts_and_articles(main_run: Certification) -> None:
    report = main_run.data
    assert report["verdict"] == "pass"
    assert report["summary"] == {"requirements": 39, "pass": 39, "fail": 0, "inconclusive": 0}
    kinds = [s["kind"] for s in report["sections"]]
    assert kinds == [
        "hand-categories",
        "par-sheet",
        "mahjong-tables",
        "configuration",
        "evaluator-crosscheck",
        "shuffler-audit",
        "rng-audit",
        "round-audit",
    ]
    assert all(r["article"] for r in report["requirements"])
    assert report["requirements"][0]["requirement"] == "hand-categories.q-poker.macau.complete"
    sections = {s["id"]: s for s in report["sections"]}
    qp = sections["hand-categories/q-poker/q-poker.macau"]["data"]
    # Q Poker (3 cards of 52): the standard three-card counts, e.g. Wizard of Odds' 3-card poker.
    assert [c["count"] for c in qp["categories"]] == [48, 52, 720, 1096, 3744, 16440]
    assert qp["categories"][0]["probability"] == {"exact": "12/5525", "decimal": "0.002171945701"}
    par = sections["par-sheet/q-poker/q-poker.macau"]["data"]
    assert par["pair_plus"]["house_edge"]["exact"] == "128/5525"
    rounds = sections["round-audit/q-poker/q-poker-clean.csv"]
    assert (rounds["data"]["rounds"], rounds["data"]["files"]) == (60, ["q-poker-clean.csv"])
    judged = [r for r in report["requirements"] if r["section"] == rounds["id"]]
    assert [(r["requirement"].rsplit(".", 1)[1], r["article"]) for r in judged] == [
        ("deck", "第七條"),
        ("bet", "第九條"),
        ("settlement", "第九條"),
    ]
    assert sections["rng-audit/pi.bin"]["inputs"] == [
        "../nist/pi.bin",
        "../rules/q-poker.macau.toml",
    ]


@pytest.mark.slow
def test_main_plan_covers_the_three_statutes(tmp_path: Path) -> None:
    run = certify(MAIN_PLAN, Ed25519PrivateKey.generate(), tmp_path / "out", ephemeral=True)
    report = run.data
    assert report["verdict"] == "pass"
    assert report["summary"] == {"requirements": 45, "pass": 45, "fail": 0, "inconclusive": 0}
    jsonschema.validate(
        _no_floats(run.report.read_text(encoding="utf-8")),
        json.loads(SCHEMA.read_text(encoding="utf-8")),
    )
    games = {s["data"].get("game") for s in report["sections"]}
    assert {"q-poker", "caribbean-stud", "mahjong-traditional", "mahjong-simple"} <= games
    sections = {s["id"]: s for s in report["sections"]}
    cs = sections["hand-categories/caribbean-stud/caribbean-stud.macau"]["data"]
    assert cs["total"] == 2_598_960
    assert cs["categories"][0] == {
        "article": "第八条(一)",
        "category": "royal flush",
        "count": 4,
        "one_in": "649740.0000",
        "probability": {"exact": "1/649740", "decimal": "0.000001539077"},
    }
    evaluator = sections["evaluator-crosscheck/q-poker/q_poker_statute.pl"]["data"]
    assert evaluator["checks"][0] == {
        "checked": 22_100,
        "defects": [],
        "error": None,
        "first_mismatches": [],
        "mismatches": 0,
        "name": "hand categories",
        "notes": [],
        "verdict": "conforms",
    }
    html = run.html.read_text(encoding="utf-8")
    assert html.count("<svg") >= 5  # bar charts and the shuffler plots, inline


def test_inputs_and_rule_data(main_run: Certification) -> None:
    report = main_run.data
    names = [i["name"] for i in report["inputs"]]
    # Named relative to the plan's folder (fixtures/plans/), as the plan writes them.
    assert names == [
        "../configs/q-poker.casino-c.toml",
        "../evaluators/vendor_poker.py",
        "../logs/shuffler-fair-52-small.csv.gz",
        "../nist/pi.bin",
        "../rounds/q-poker-clean.csv",
        "../rules/mahjong-simple.macau.toml",
        "../rules/q-poker.macau.toml",
        "smoke.toml",
    ]
    assert {i["base"] for i in report["inputs"]} == {"plan"}
    assert report["plan"] == "smoke.toml"
    variants = {r["name"]: r["variant"] for r in report["rule_data"]}
    assert variants["../rules/q-poker.macau.toml"] == "macau-statute"
    roles = {i["name"]: i["role"] for i in report["inputs"]}
    assert roles["../logs/shuffler-fair-52-small.csv.gz"] == "logs"
    assert roles["../configs/q-poker.casino-c.toml"] == "file"
    for item in report["inputs"]:
        assert item["sha256"] == dsse.file_sha256(SMOKE_PLAN.parent / item["name"])
    assert report["tool"]["name"] == "tablecert"
    assert report["tool"]["core_version"]


def test_envelope_carries_the_report_and_every_input(main_run: Certification) -> None:
    key = load_public_key(main_run.signer_public_key)
    # The plan's rule files (fixtures/rules/ also holds files of games the plan does not cover).
    rule_files = [
        SMOKE_PLAN.parent / i["name"]
        for i in main_run.data["inputs"]
        if i["name"].startswith("../rules/")
    ]
    assert len(rule_files) == 2
    logs = [ROOT / "fixtures" / "logs" / "shuffler-fair-52-small.csv.gz"]
    result = dsse.verify_file(main_run.envelope, [key], rule_files + logs)
    assert result.valid, result.reasons
    assert result.statement is not None
    assert result.statement["predicate"] == json.loads(main_run.report.read_text("utf-8"))
    assert [s["name"] for s in result.statement["subject"]] == [
        i["name"] for i in main_run.data["inputs"]
    ]


def test_report_json_checked_against_the_predicate(main_run: Certification, tmp_path: Path) -> None:
    key = [load_public_key(main_run.signer_public_key)]
    assert dsse.verify_file(main_run.envelope, key, report=main_run.report).valid
    edited = tmp_path / "report.json"
    edited.write_bytes(main_run.report.read_bytes().replace(b'"pass"', b'"fail"', 1))
    result = dsse.verify_file(main_run.envelope, key, report=edited)
    assert result.reasons == (
        f"{edited} is not the signed report (its content differs from the predicate)",
    )
    edited.write_text(json.dumps(main_run.data), encoding="utf-8")
    result = dsse.verify_file(main_run.envelope, key, report=edited)
    assert result.reasons == (f"{edited} holds the signed report but not in canonical form",)


def test_determinism(tmp_path: Path) -> None:
    """Same inputs and version: byte-identical report.json apart from the two timestamps (every
    section kind: seeded samples and simulations, floats as fixed-digit decimals)."""
    a = certify(SMOKE_PLAN, Ed25519PrivateKey.generate(), tmp_path / "a")
    b = certify(SMOKE_PLAN, Ed25519PrivateKey.generate(), tmp_path / "b")
    text_a = a.report.read_bytes()
    text_b = b.report.read_bytes()
    for run, text in ((a, text_a), (b, text_b)):
        for field in ("started_at", "finished_at"):
            stamp = f'"{field}":"{run.data[field]}"'.encode()
            assert text.count(stamp) == 1

    def strip(run: Certification, text: bytes) -> bytes:
        for field in ("started_at", "finished_at"):
            text = text.replace(f'"{field}":"{run.data[field]}"'.encode(), field.encode())
        return text

    assert strip(a, text_a) == strip(b, text_b)
    # With the clock fixed and the same key, every output is byte-identical (Ed25519 is
    # deterministic), envelope and HTML included.
    key = Ed25519PrivateKey.generate()
    fixed = ("2026-01-02T03:04:05+00:00", "2026-01-02T03:04:09+00:00")
    c = certify(SMOKE_PLAN, key, tmp_path / "c", clock=_clock(*fixed))
    d = certify(SMOKE_PLAN, key, tmp_path / "d", clock=_clock(*fixed))
    for name in ("report.json", "report.intoto.dsse.json", "report.html", "signer.pub"):
        assert (c.out_dir / name).read_bytes() == (d.out_dir / name).read_bytes(), name
    assert c.data["started_at"] == "2026-01-02T03:04:05Z"
    assert c.data["finished_at"] == "2026-01-02T03:04:09Z"


def test_source_date_epoch_fixes_timestamps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n[[section]]\nkind = "hand-categories"\n'
        'game = "q-poker"\nrules = "q-poker.macau"\n',
    )
    run = certify(plan, Ed25519PrivateKey.generate(), tmp_path / "out")
    assert run.data["started_at"] == run.data["finished_at"] == "2026-01-01T00:00:00Z"


def test_closed_forms_are_the_published_counts() -> None:
    # Wizard of Odds, "Poker probabilities" (5 cards) and "Three Card Poker" (3 cards).
    assert sum(closed_form_counts(5).values()) == 2_598_960
    assert closed_form_counts(5)["two pair"] == 123_552
    assert closed_form_counts(5)["high card"] == 1_302_540
    assert sum(closed_form_counts(3).values()) == 22_100
    assert closed_form_counts(3)["straight"] == 720


def test_a_wrong_table_fails_each_verdict() -> None:
    rows = (
        CategoryRow("straight flush", "第八條(一)", 52),  # swapped with three of a kind
        CategoryRow("three of a kind", "第八條(二)", 48),
        CategoryRow("straight", "第八條(三)", 720),
        CategoryRow("flush", "第八條(四)", 1096),
        CategoryRow("pair", "第八條(五)", 3744),
        CategoryRow("high card", "第八條(六)", 16439),  # one hand lost
    )
    table = CategoryTable("q-poker", "t", "0" * 64, 22_100, rows)
    complete, rarity, closed = _verdicts(table, "hand-categories.q-poker.macau", "第八條")
    assert (complete.outcome, rarity.outcome, closed.outcome) == ("fail", "fail", "fail")
    assert complete.detail == "the categories hold 22,099 hands"
    assert rarity.detail == "straight flush (52) is not rarer than three of a kind (48)"
    assert closed.detail.startswith("straight flush: enumerated 52, closed form 48;")


def _audit_plan(tmp_path: Path, log_text: str = "logs/day1.csv.gz") -> tuple[Path, Path]:
    """A one-section plan auditing a copy of the small fair log, rules given by name."""
    log = tmp_path / "logs" / "day1.csv.gz"
    log.parent.mkdir(exist_ok=True)
    shutil.copy(FAIR_LOG, log)
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "Audit"\n[[section]]\nkind = "shuffler-audit"\n'
        f"logs = [{json.dumps(log_text)}]\n"
        'rules = "q-poker.macau"\ndeck = "cards52"\n',
    )
    return plan, log


def _swap_in_bad_log(log: Path, restore: bool) -> Progress:
    """A progress callback that replaces ``log`` with a failing one when the audit starts
    (and, with ``restore``, puts the original back at the next step)."""
    original = log.read_bytes()

    def progress(done: int, total: int, message: str) -> None:
        if message.startswith("shuffler-audit"):
            log.unlink()
            shutil.copy(BAD_LOG, log)
        elif restore and log.read_bytes() != original:
            log.write_bytes(original)

    return progress


def test_a_file_replaced_during_the_run_fails_certification(tmp_path: Path) -> None:
    plan, log = _audit_plan(tmp_path)
    out = tmp_path / "out"
    with pytest.raises(InputChangedError) as caught:
        certify(plan, KEY, out, progress=_swap_in_bad_log(log, restore=False))
    assert str(caught.value).startswith(f"{log} changed during the certification (sha256 ")
    assert str(caught.value).endswith("nothing was certified: run certify again on stable inputs")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs", "plan.toml"]


def test_the_sections_read_the_bytes_that_are_signed(tmp_path: Path) -> None:
    """The log is swapped for a failing one while the audit runs and put back after: the audit
    read the snapshot (the fair log, whose digest is signed), never the swapped file."""
    plan, log = _audit_plan(tmp_path)
    run = certify(plan, KEY, tmp_path / "out", progress=_swap_in_bad_log(log, restore=True))
    assert run.data["verdict"] == "pass"
    (section,) = run.data["sections"]
    assert section["data"]["integrity"]["records"] == 2000
    subjects = {i["name"]: i["sha256"] for i in run.data["inputs"]}
    assert subjects["logs/day1.csv.gz"] == dsse.file_sha256(FAIR_LOG)


def test_inputs_named_relative_to_the_plan_absolute_kept_bundled_marked(tmp_path: Path) -> None:
    plan, log = _audit_plan(tmp_path, str(tmp_path / "logs" / "day1.csv.gz"))
    run = certify(plan, KEY, tmp_path / "out")
    inputs = {i["name"]: i["base"] for i in run.data["inputs"]}
    assert inputs == {
        str(log): "absolute",
        "bundled/rules/q-poker.macau.toml": "bundled",
        "plan.toml": "plan",
    }
    plan, _ = _audit_plan(tmp_path, "./logs//day1.csv.gz")
    run = certify(plan, KEY, tmp_path / "out2")
    assert "logs/day1.csv.gz" in {i["name"] for i in run.data["inputs"]}


def test_errors_name_the_users_file_not_the_snapshot(tmp_path: Path) -> None:
    plan, log = _audit_plan(tmp_path)
    log.write_bytes(b"not gzip")
    with pytest.raises(TableCertError) as caught:
        certify(plan, KEY, tmp_path / "out")
    assert str(log) in str(caught.value)
    assert "certify-" not in str(caught.value)


def test_an_output_folder_holding_other_things_is_refused_before_the_run(tmp_path: Path) -> None:
    plan, _ = _audit_plan(tmp_path)
    out = tmp_path / "out"
    (out / "report.html").mkdir(parents=True)
    ran: list[str] = []
    with pytest.raises(ReportError, match=r"report\.html is not a regular file"):
        certify(plan, KEY, out, progress=lambda _d, _t, message: ran.append(message))
    assert ran == []
    assert [p.name for p in out.iterdir()] == ["report.html"]
    (out / "report.html").rmdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ReportError, match=r"holds 'notes\.txt', which certify did not write"):
        certify(plan, KEY, out)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_a_failure_while_writing_leaves_no_certificate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan, _ = _audit_plan(tmp_path)
    out = tmp_path / "out"

    def broken(*_args: object, **_kwargs: object) -> str:
        raise ReportError("rendering failed")

    monkeypatch.setattr("tablecert.report.certify.render_report", broken)
    with pytest.raises(ReportError, match="rendering failed"):
        certify(plan, KEY, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs", "plan.toml"]


def test_a_previous_certificate_is_replaced_whole(tmp_path: Path) -> None:
    plan, _ = _audit_plan(tmp_path)
    out = tmp_path / "out"
    first = certify(
        plan, KEY, out, clock=_clock("2026-01-01T00:00:00+00:00", "2026-01-01T00:00:01+00:00")
    )
    second = certify(
        plan, KEY, out, clock=_clock("2026-02-01T00:00:00+00:00", "2026-02-01T00:00:01+00:00")
    )
    assert first.data["started_at"] != second.data["started_at"]
    assert json.loads((out / "report.json").read_text("utf-8")) == second.data
    written = {"report.json", "report.intoto.dsse.json", "report.html", "signer.pub"}
    assert set(OUTPUT_FILES) >= written  # and report.pdf, par-GAME.xlsx when asked for
    assert sorted(p.name for p in out.iterdir()) == sorted(written)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs", "out", "plan.toml"]


def test_the_snapshot_holds_read_only_copies_and_notices_a_vanished_original(
    tmp_path: Path,
) -> None:
    source = tmp_path / "log.csv"
    source.write_bytes(b"deal,cards\n")
    twin = tmp_path / "other" / "log.csv"
    twin.parent.mkdir()
    twin.write_bytes(b"deal,cards\n")
    snapshot = InputSnapshot(tmp_path / "snap")
    held = snapshot.add(source)
    assert snapshot.add(twin).copy == held.copy  # same bytes, same name: one copy
    assert held.copy.name == "log.csv"
    assert held.copy.read_bytes() == b"deal,cards\n"
    assert held.sha256 == dsse.file_sha256(source)
    assert stat.S_IMODE(held.copy.stat().st_mode) == 0o400
    snapshot.check_unchanged()
    source.unlink()
    with pytest.raises(InputChangedError, match="it changed during the certification"):
        snapshot.check_unchanged()


def test_the_snapshot_refuses_a_fifo_or_device_before_opening_it(tmp_path: Path) -> None:
    """A FIFO's open would wait for a writer and a device may never end: both refused."""
    fifo = tmp_path / "log.csv"
    os.mkfifo(fifo)
    snapshot = InputSnapshot(tmp_path / "snap")
    for source in (fifo, Path("/dev/zero")):
        with pytest.raises(ReportError, match=r"cannot read: not a regular file"):
            snapshot.add(source)


def test_a_full_disk_while_writing_is_an_input_error_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plan, _ = _audit_plan(tmp_path)

    def full(_fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr("tablecert.report.certify.os.fsync", full)
    with pytest.raises(ReportError, match=r"report\.json: cannot write it: No space left"):
        certify(plan, KEY, tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs", "plan.toml"]


def test_the_statute_a_configuration_is_judged_against_is_signed(tmp_path: Path) -> None:
    """The configuration section reads the bundled statute rule file, not named in the plan:
    it is read through the snapshot and becomes a subject like the plan's own files."""
    config = tmp_path / "casino.toml"
    shutil.copy(ROOT / "fixtures" / "configs" / "q-poker.casino-c.toml", config)
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n[[section]]\nkind = "configuration"\n'
        'file = "casino.toml"\nreturns = false\n',
    )
    run = certify(plan, KEY, tmp_path / "out")
    statute = RULES_DIR / "q-poker.macau.toml"
    inputs = {i["name"]: (i["base"], i["role"], i["sha256"]) for i in run.data["inputs"]}
    assert inputs["bundled/rules/q-poker.macau.toml"] == (
        "bundled",
        "rules",
        dsse.file_sha256(statute),
    )
    assert run.data["sections"][0]["inputs"] == ["bundled/rules/q-poker.macau.toml", "casino.toml"]
    # The statute it was judged against is rule data: its readings are listed as applied.
    readings = run.data["sections"][0]["scope"]["readings"]
    assert ("bundled/rules/q-poker.macau.toml", "ranking.ace_low_straight_suit") in {
        (r["file"], r["key"]) for r in readings
    }


def test_scope_states_samples_power_and_the_readings_applied(main_run: Certification) -> None:
    scope = {s["kind"]: s["scope"] for s in main_run.data["sections"]}
    # Exhaustive enumeration, no sample.
    assert scope["hand-categories"]["sampled"] == []
    assert scope["hand-categories"]["exhaustive"] == [
        "every one of the C(52, 3) = 22,100 hands, enumerated and placed in the statute's "
        "categories"
    ]
    # Only the readings of the tables the section reads: the ordering's, for hand categories.
    assert scope["hand-categories"]["readings"] == [
        {
            "file": "../rules/q-poker.macau.toml",
            "key": "ranking.ace_low_straight_suit",
            "article": "第八條(一)(三)",
            "value": "top-of-sequence",
            "note": "the suit of a straight is that of its highest card; for A-2-3 the 3",
        }
    ]
    assert scope["rng-audit"]["readings"] == []
    simple = (ROOT / "fixtures" / "rules" / "mahjong-simple.macau.toml").read_text("utf-8")
    marked = sum("reading = true" in ln for ln in simple.splitlines() if not ln.startswith("#"))
    assert marked >= 11
    assert len(scope["mahjong-tables"]["readings"]) == marked  # every reading of the game
    # Samples with their sizes and seed (the smoke plan asks for 2,000 hands, seed 7).
    sampled = {s["what"]: s for s in scope["evaluator-crosscheck"]["sampled"]}
    assert sampled["hands asked for their category"] == {
        "what": "hands asked for their category",
        "size": 2000,
        "population": 22100,
        "seed": 7,
    }
    # 2,000 suit-decided pairs asked for: the 72 straight-flush pairs whole, the rest spread
    # over the other categories, distinct and drawn without replacement (the scope states
    # each category's count and population, and power from the distinct count)
    suit = {
        w.split(" pairs")[0]: (s["size"], s["population"])
        for w, s in sampled.items()
        if "decided only by suit (distinct, without replacement)" in w
    }
    assert suit == {
        "high card": (482, 208_788),
        "pair": (482, 5_616),
        "flush": (482, 1_644),
        "straight": (482, 9_144),
    }
    assert (
        "every one of the 72 straight flush pairs decided by suit"
        in (scope["evaluator-crosscheck"]["exhaustive"])
    )
    assert sum(size for size, _ in suit.values()) + 72 == 2000
    # Power at the sample size: 1 - (1 - 1/N)^2000 >= 99% from N = 434.
    assert (
        "hands asked for their category: a defect in at least 1 in 434 of them is found with "
        "probability 99% or more"
    ) in scope["evaluator-crosscheck"]["power"]
    assert scope["shuffler-audit"]["power"][0].startswith("a fair cards52 log can pass from ")
