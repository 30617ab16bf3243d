"""The progressive of a game described by its rule file, in its round logs: the generic-layout
copy of Caribbean Stud's statute file (``tests/support/generic_caribbean.py``) audited as a
described game checks every seat's progressive prize and the meter's accounting as the
dedicated Caribbean audit does, with the same findings on the same log."""

from __future__ import annotations

import csv
import gzip
import io
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tablecert.games.stud_settle import stud_settlement
from tablecert.poker import ordering
from tablecert.report.sections.round_audit import described_check_verdicts
from tablecert.rounds import simulate
from tablecert.rounds.audit import Finding, RoundAudit, audit_rounds
from tablecert.rounds.stud_audit import audit_stud_rounds
from tablecert.rounds.stud_simulate import write_stud_rounds
from tablecert.rules import load_rules
from tests.support.cli_support import tablecert
from tests.support.generic_caribbean import generic_caribbean

from .test_progressive import FLUSH, NO_BET, NO_PRIZE, ROYAL, SF_9H, TWO_SF_AND_ROYAL
from .test_progressive import _round as dedicated_round
from .test_progressive import _seat as dedicated_seat

METER_KINDS = ("meter-contribution", "meter-restart", "meter-order", "meter-sharing", "meter-carry")


def _described(record: dict[str, Any]) -> dict[str, Any]:
    """A dedicated Caribbean record as the described game logs it: its raise is ``raise 2x``
    (the decision's multiple), everything else as it is."""
    out: dict[str, Any] = json.loads(json.dumps(record))
    for seat in out["seats"]:
        if seat["decision"] == "raise":
            seat["decision"] = "raise 2x"
    return out


def _write(path: Path, rounds: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rounds), encoding="utf-8")
    return path


def _both(tmp_path: Path, rounds: list[dict[str, Any]]) -> tuple[RoundAudit, RoundAudit]:
    """The same rounds audited by the dedicated engine (the statute file) and as the
    described game (its generic copy)."""
    dedicated = audit_rounds(
        [_write(tmp_path / "dedicated.jsonl", rounds)], ordering("caribbean-stud")
    )
    described = audit_stud_rounds(
        [_write(tmp_path / "described.jsonl", [_described(r) for r in rounds])],
        load_rules(generic_caribbean(tmp_path)),
    )
    return dedicated, described


def _seen(findings: list[Finding]) -> list[tuple[Any, ...]]:
    return [
        (f.kind, f.round_id, f.seat, f.spot, f.article, f.rule, f.paid, f.due, f.detail)
        for f in findings
    ]


CLEAN = [
    dedicated_round(1, "123456.7", "50002.8", TWO_SF_AND_ROYAL),
    dedicated_round(2, "50002.8", "45003.22", [dedicated_seat(3, SF_9H, "5000.28")]),
    dedicated_round(
        3,
        "45003.22",
        "45004.62",
        [
            dedicated_seat(1, FLUSH, 50),
            dedicated_seat(2, NO_BET, None),
            dedicated_seat(4, NO_PRIZE, 0),
        ],
    ),
    dedicated_round(
        4,
        "45004.62",
        "50001.4",
        [dedicated_seat(3, ROYAL, "22502.31"), dedicated_seat(5, "Ah Kh Qh Jh Th", "22502.31")],
    ),
]


def test_a_clean_log_of_meter_hands_passes_as_the_dedicated_audit_passes_it(
    tmp_path: Path,
) -> None:
    """Two straight flushes, a royal and a flush in one round (Art. 10(6)-(8)), a straight
    flush alone, fixed prizes, and two royals sharing the meter (10(5)): every prize and every
    meter right, and the meter's totals are the dedicated audit's."""
    dedicated, described = _both(tmp_path, CLEAN)
    assert (described.verdict, dict(described.counts)) == ("pass", {})
    assert dedicated.verdict == "pass"
    assert described.meter.as_json() == dedicated.meter.as_json()
    assert described.meter.rounds_with_meter_prizes == 3
    assert described.meter.several_winners == 2
    assert described.meter.restarts == 2
    assert described.meter.meter_prizes == (
        Fraction("12345.67") * 2
        + Fraction("98765.36")
        + Fraction("5000.28")
        + 2 * Fraction("22502.31")
    )
    assert described.paid["progressive"] == dedicated.paid["progressive"]
    assert described.due["progressive"] == dedicated.due["progressive"]
    assert described.by_article["第十条(七) progressive"].spots == 3
    assert described.by_article["第十条(五) progressive"].spots == 2
    spots = described.as_json()["spots"]
    assert list(spots) == ["ante", "raise", "progressive"]
    assert (
        described.as_json()["progressive"]["meter"] == dedicated.as_json()["progressive"]["meter"]
    )


def test_planted_meter_errors_are_found_with_round_and_article(tmp_path: Path) -> None:
    """A wrong prize, a wrong contribution and a broken continuity: each found at its round
    with the article of the file's terms, exactly as the dedicated audit finds them."""
    bad = json.loads(json.dumps(CLEAN))
    bad[1]["seats"][0]["paid"]["progressive"] = "5000.28"  # the straight flush paid 1 more
    # a contribution of 0.1 too much; round 4 starts where round 3 should have ended, so its
    # meter does not run on from round 3's logged meter
    bad[2]["meter_after"] = "45004.72"
    dedicated, described = _both(tmp_path, bad)
    assert described.verdict == "fail"
    found = sorted(
        (f.round_id, f.kind, f.seat, f.article, f.rule, f.paid, f.due) for f in described.findings
    )
    assert found == [
        (
            "2",
            "settlement",
            3,
            "第十条(二)(2)",
            "progressive.straight_flush_meter_share",
            Fraction("5000.28"),
            Fraction("4999.28"),
        ),
        (
            "3",
            "meter",
            0,
            "第十条(八)",
            "progressive.contribution",
            Fraction("45004.72"),
            Fraction("45004.62"),
        ),
        ("4", "meter", 0, "第十条(八)", "", Fraction("45004.62"), Fraction("45004.72")),
    ]
    assert _seen(described.findings) == _seen(dedicated.findings)


def test_continuity_between_files_is_checked_as_the_dedicated_audit_checks_it(
    tmp_path: Path,
) -> None:
    one = _write(tmp_path / "one.jsonl", [_described(CLEAN[0])])
    two = _write(tmp_path / "two.jsonl", [_described(CLEAN[2])])
    result = audit_stud_rounds([one, two], load_rules(generic_caribbean(tmp_path)))
    assert [(f.kind, f.round_id, f.article, f.paid, f.due) for f in result.findings] == [
        ("meter", "3", "第十条(八)", Fraction("45003.22"), Fraction("50002.8"))
    ]
    assert result.findings[0].detail.endswith("previous round (1, in an earlier file)")


def test_a_wrong_or_orphan_progressive_bet_is_a_bet_finding(tmp_path: Path) -> None:
    """Art. 10(1): the progressive bet is the posted bet, beside an accepted ante."""
    wrong = _described(dedicated_round(1, 1000, "1001.4", [dedicated_seat(1, FLUSH, 50)]))
    wrong["seats"][0]["bets"]["progressive"] = 2
    orphan = dedicated_seat(1, FLUSH, 50) | {"decision": ""}
    orphan["bets"] = {"ante": 0, "raise": 0, "progressive": 1}
    orphan["paid"] = {"ante": 0, "raise": 0, "progressive": 49}
    rounds = [wrong, _described(dedicated_round(2, "1001.4", "1002.1", [orphan]))]
    result = audit_stud_rounds(
        [_write(tmp_path / "b.jsonl", rounds)], load_rules(generic_caribbean(tmp_path))
    )
    assert [(f.kind, f.round_id, f.spot, f.article, f.rule) for f in result.findings] == [
        ("bet", "1", "progressive", "第十条(一)", "progressive.bet"),
        ("bet", "2", "progressive", "第十条(一)", "progressive.bet"),
    ]
    assert "a progressive bet of 0 or 1" in result.findings[0].detail
    assert "without a bet on ante" in result.findings[1].detail


def _as_described(log: Path, out: Path) -> Path:
    """A dedicated Caribbean CSV log (gzip) with its decisions as the described game logs
    them."""
    rows = list(csv.reader(io.StringIO(gzip.decompress(log.read_bytes()).decode("utf-8"))))
    column = rows[0].index("decision")
    for row in rows[1:]:
        row[column] = "raise 2x" if row[column] == "raise" else row[column]
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    out.write_text(text.getvalue(), encoding="utf-8")
    return out


@pytest.mark.parametrize("kinds", [(), METER_KINDS])
def test_a_simulated_log_gives_the_dedicated_audit_s_findings(
    tmp_path: Path, kinds: tuple[str, ...]
) -> None:
    """The dedicated simulator's log (many rounds of several meter winners; with ``kinds``,
    every meter error planted), audited as the described game: the same verdict, the same
    findings, the same meter totals and the same amounts on every spot."""
    order = ordering("caribbean-stud")
    log = tmp_path / "c.csv.gz"
    simulate.write_rounds(log, order, 600, seed=4, share=0.01, kinds=kinds, multi_share=0.05)
    dedicated = audit_rounds([log], order)
    described = audit_stud_rounds(
        [_as_described(log, tmp_path / "d.csv")], load_rules(generic_caribbean(tmp_path))
    )
    assert described.verdict == dedicated.verdict == ("fail" if kinds else "pass")
    assert dedicated.meter.several_winners > 10
    assert _seen(described.findings) == _seen(dedicated.findings)
    assert len(described.findings) >= len(kinds)
    assert described.meter.as_json() == dedicated.meter.as_json()
    for spot in ("ante", "raise", "progressive"):
        assert (described.paid[spot], described.due[spot]) == (
            dedicated.paid[spot],
            dedicated.due[spot],
        )


def test_the_cli_audits_the_described_progressive(tmp_path: Path) -> None:
    game = generic_caribbean(tmp_path)
    bad = json.loads(json.dumps(CLEAN))
    bad[2]["meter_after"] = "45004.72"
    log = _write(tmp_path / "c.jsonl", [_described(r) for r in bad])
    run = tablecert(["audit", "rounds", "--game", str(game), str(log), "--json"])
    assert run.code == 1, run.stderr
    result = json.loads(run.stdout)
    assert [(f["kind"], f["round_id"], f["article"]) for f in result["findings"]] == [
        ("meter", "3", "第十条(八)"),
        ("meter", "4", "第十条(八)"),
    ]
    assert result["progressive"]["meter"]["rounds_with_meter_prizes"] == 3
    text = tablecert(["audit", "rounds", "--game", str(game), str(log)])
    assert "progressive meter: 4 rounds accounted for" in text.stdout


def test_a_meter_is_still_refused_where_the_game_has_no_progressive(tmp_path: Path) -> None:
    game = tmp_path / "no-progressive.toml"
    text = generic_caribbean(tmp_path).read_text(encoding="utf-8")
    game.write_text(text.split("# Progressive (Art. 10)")[0], encoding="utf-8")
    record = _described(dedicated_round(1, 1000, "1000", [dedicated_seat(1, FLUSH, None)]))
    for seat in record["seats"]:
        for part in ("bets", "paid"):
            seat[part].pop("progressive")
    run = tablecert(
        ["audit", "rounds", "--game", str(game), str(_write(tmp_path / "m.jsonl", [record]))]
    )
    assert run.code == 2
    assert "meter_before: the game has no progressive meter" in run.stderr


def _house_numbered(tmp_path: Path) -> Path:
    """The generic copy with its progressive cited by a house's own rules, not Art. 10."""
    path = generic_caribbean(tmp_path)
    head, marker, progressive = path.read_text(encoding="utf-8").partition(
        "# Progressive (Art. 10)"
    )
    path.write_text(head + marker + progressive.replace("第十条", "House §10"), "utf-8")
    return path


def test_several_winners_cite_the_file_s_own_articles(tmp_path: Path) -> None:
    """A progressive whose file cites its own rules: the straight flushes paid before the royal
    name the file's payment order, two royals sharing the meter the royal's meter share, and
    the meter its contribution (never a clause of the statute's Art. 10)."""
    game = load_rules(_house_numbered(tmp_path))
    wrong = json.loads(json.dumps(CLEAN))
    for seat in (*wrong[0]["seats"][:3], *wrong[3]["seats"]):
        seat["paid"]["progressive"] = "0"
    wrong[2]["meter_after"] = "45004.72"
    result = audit_stud_rounds([_write(tmp_path / "h.jsonl", [_described(r) for r in wrong])], game)
    assert sorted((f.round_id, f.seat, f.article) for f in result.findings) == [
        ("1", 1, "House §10(四)"),
        ("1", 2, "House §10(四)"),
        ("1", 4, "House §10(四)"),
        ("3", 0, "House §10(八)"),
        ("4", 0, "House §10(八)"),
        ("4", 3, "House §10(二)(1)"),
        ("4", 5, "House §10(二)(1)"),
    ]
    clean = audit_stud_rounds([_write(tmp_path / "c.jsonl", [_described(r) for r in CLEAN])], game)
    assert (clean.verdict, dict(clean.counts)) == ("pass", {})
    assert clean.by_article["House §10(四) progressive"].spots == 3
    assert not any("第十条" in name for name in clean.by_article)


def test_a_void_round_leaves_the_meter_unchanged(tmp_path: Path) -> None:
    """A void round: the progressive bets carried over, nothing contributed; a meter that moved
    is a meter finding under the described game's void round."""
    void_seat = dedicated_seat(1, FLUSH, 0) | {"paid": {"ante": 0, "raise": 0, "progressive": 0}}
    rounds = [
        dedicated_round(1, 1000, "1000.7", [dedicated_seat(1, FLUSH, 50)]),
        dedicated_round(2, "1000.7", "1000.7", [void_seat], events=["misdeal"]),
    ]
    game = load_rules(generic_caribbean(tmp_path))
    clean = audit_stud_rounds([_write(tmp_path / "v.jsonl", [_described(r) for r in rounds])], game)
    assert (clean.verdict, dict(clean.counts), clean.void_rounds) == ("pass", {}, 1)
    assert clean.meter.rounds == 2
    rounds[1]["meter_after"] = "1001.4"
    moved = audit_stud_rounds([_write(tmp_path / "w.jsonl", [_described(r) for r in rounds])], game)
    assert [(f.kind, f.round_id, f.article, f.paid, f.due) for f in moved.findings] == [
        ("meter", "2", "void round", Fraction("1001.4"), Fraction("1000.7"))
    ]


@pytest.mark.parametrize("name", ["sim.csv", "sim.jsonl"])
def test_a_simulated_log_of_the_game_has_its_progressive_columns(tmp_path: Path, name: str) -> None:
    """``simulate rounds --game FILE`` writes the progressive's columns and plays it (its
    meter: test_stud_simulate_progressive.py): its log audits clean."""
    game = load_rules(generic_caribbean(tmp_path))
    log = write_stud_rounds(tmp_path / name, game, 200, seed=3)
    if name.endswith(".csv"):
        header = log.read_text(encoding="utf-8").splitlines()[0].split(",")
        assert header[-6:] == [
            "ante_bet",
            "raise_bet",
            "progressive_bet",
            "ante_paid",
            "raise_paid",
            "progressive_paid",
        ]
    result = audit_stud_rounds([log], game)
    assert (result.verdict, dict(result.counts), result.rounds) == ("pass", {}, 200)
    assert result.meter.rounds == 200


def test_the_report_section_judges_the_meter_of_a_described_game(tmp_path: Path) -> None:
    """The round-audit section's checks of a described game with a progressive include the
    meter's, under its contribution's article: a meter error fails it, and only it."""
    rules = load_rules(generic_caribbean(tmp_path))
    bad = json.loads(json.dumps(CLEAN))
    bad[2]["meter_after"] = "45004.72"
    result = audit_stud_rounds([_write(tmp_path / "r.jsonl", [_described(r) for r in bad])], rules)
    verdicts = described_check_verdicts(result, stud_settlement(rules), "r")
    assert {v.requirement: (v.article, v.outcome) for v in verdicts} == {
        "r.deck": ("第七条", "pass"),
        "r.bet": ("第六条", "pass"),
        "r.settlement": ("第九条", "pass"),
        "r.meter": ("第十条", "fail"),
    }
