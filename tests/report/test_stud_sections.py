"""The report sections of a game its rule file describes (``stud-par-sheet``) and of two rule
files compared (``rules-diff``): exact data, verdicts with articles, and the failures they
must catch (a deal count that is not the closed form, figures changing with no value)."""

from __future__ import annotations

import math
import os
import shutil
from dataclasses import replace
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert import bundled
from tablecert.distributed import LocalExecutor
from tablecert.errors import PlanError
from tablecert.games import stud
from tablecert.games.par_export import read_xlsx
from tablecert.games.rules_diff import FigureChange, RulesDiff
from tablecert.judgement import Outcome
from tablecert.report import dsse
from tablecert.report.canonical import canonical_bytes
from tablecert.report.certify import certify, run_sections
from tablecert.report.entry import Section
from tablecert.report.plan import load_plan
from tablecert.report.sections import rules_diff, stud_par_sheet
from tablecert.report.signing import public_pem
from tablecert.rules import load_rules
from tablecert.rules.stud import describe
from tests.support.cli_support import tablecert
from tests.support.hostile import run_cli
from tests.support.plan_support import write_plan

SLOW = bool(os.environ.get("TABLECERT_SLOW"))
RULES = Path(__file__).resolve().parents[2] / "fixtures" / "rules"


def _section(folder: Path, body: str) -> Section:
    plan = write_plan(folder, '[certification]\ntitle = "t"\n\n' + body)
    (section,) = run_sections(load_plan(plan))
    canonical_bytes(section.data)  # exact data only: a float would raise here
    return section


def _outcomes(section: Section) -> dict[str, str]:
    return {
        v.requirement.rsplit(".", 2)[-2] + "." + v.requirement.rsplit(".", 1)[1]: v.outcome
        for v in section.verdicts
    }


@pytest.fixture(scope="module")
def six_card_bonus(tmp_path_factory: pytest.TempPathFactory) -> Section:
    return _section(
        tmp_path_factory.mktemp("stud"),
        '[[section]]\nkind = "stud-par-sheet"\nrules = "q-poker.six-card-bonus"\n',
    )


def test_stud_par_sheet_of_three_card_poker_with_the_six_card_bonus(
    six_card_bonus: Section,
) -> None:
    s = six_card_bonus
    assert s.id == "stud-par-sheet/q-poker.six-card-bonus"
    # Three Card Poker, ties push: 3.3730% of the ante, element of risk 2.0147%; pair plus
    # 40-30-6-4-1: 2.3167% (Wizard of Odds, "Three Card Poker").
    assert s.data["house_edge"]["exact"] == "686689/20358520"
    assert s.data["element_of_risk"]["decimal"] == "0.020146724015"
    pair_plus, bonus = s.data["side_bets"]
    assert pair_plus["house_edge"]["exact"] == "128/5525"
    assert [r["count"] for r in pair_plus["rows"]] == [48, 52, 720, 1096, 3744, 16440]
    # The 6 Card Bonus over C(52, 6) hands: 188 royal flushes (4 x C(47, 1) for the sixth
    # card, royal flushes with a sixth card of the same suit counted once).
    assert bonus["hands"] == math.comb(52, 6)
    assert bonus["rows"][0] == {**bonus["rows"][0], "event": "royal-flush", "count": 188}
    assert bonus["house_edge"]["exact"] == "12816/149695"
    assert s.data["situations"] == 22_100
    assert s.data["completions_per_situation"] == 18_424
    assert [(d["decision"], d["situations"]) for d in s.data["decisions"]] == [
        ("fold", 7_200),
        ("raise 1x", 14_900),
    ]
    assert _outcomes(s) == {
        "play.exhaustive": "pass",
        "play.returns": "pass",
        "strategy.exhaustive": "pass",
        "pair_plus.exhaustive": "pass",
        "pair_plus.returns": "pass",
        "six-card-bonus.exhaustive": "pass",
        "six-card-bonus.returns": "pass",
    }
    assert [v.article for v in s.verdicts] == [
        "第九條",
        "第九條",
        "第九條",
        "第十條",
        "第十條",
        "6 Card Bonus: rules",
        "6 Card Bonus: rules",
    ]
    assert s.verdicts[0].detail == "407,170,400 of 407,170,400 deals; probabilities sum to 1"
    assert "6 Card Bonus" in s.html
    assert "raise 1x" in s.html


def test_stud_par_sheet_signs_what_was_analysed_and_no_path(six_card_bonus: Section) -> None:
    rules = load_rules("q-poker.six-card-bonus")
    data = canonical_bytes(six_card_bonus.data)
    assert six_card_bonus.data["rules_sha256"] == rules.sha256
    assert "rules" not in six_card_bonus.data
    assert str(RULES.parent).encode() not in data
    assert b"/" + rules.path.parent.name.encode() + b"/" not in data
    assert rules.sha256 in six_card_bonus.html


def test_deal_counts_are_the_closed_form() -> None:
    four = describe(load_rules("four-card-poker.standard")).deal
    # Five cards to the player, one dealer card face up, five more of the other 46.
    assert stud_par_sheet.deals(four) == (math.comb(52, 5) * 47, math.comb(46, 5))
    hidden = describe(load_rules("caribbean-stud.no-upcard")).deal
    assert stud_par_sheet.deals(hidden) == (2_598_960, math.comb(47, 5))


def test_stud_par_sheet_fails_when_the_engine_misses_deals(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An analysis that lost a situation, its lines still summing to its own total, fails
    exhaustiveness against the closed form's deals; a strategy that leaves a situation
    undecided fails the strategy verdict."""
    real = stud.analyze

    def short(rules: object, **kw: object) -> stud.StudAnalysis:
        a = real(rules, **kw)  # type: ignore[arg-type]
        total = a.rows[0].total - a.completions  # one situation lost, consistently
        rows = [replace(r, total=total) for r in a.rows]
        rows[0] = replace(rows[0], count=rows[0].count - a.completions)
        fold = replace(a.decisions[0], situations=a.decisions[0].situations - 1)
        return replace(a, rows=tuple(rows), decisions=(fold, *a.decisions[1:]))

    monkeypatch.setattr(stud, "analyze", short)
    s = _section(
        tmp_path, '[[section]]\nkind = "stud-par-sheet"\nrules = "q-poker.six-card-bonus"\n'
    )
    outcomes = _outcomes(s)
    assert outcomes["play.exhaustive"] == "fail"
    assert outcomes["strategy.exhaustive"] == "fail"
    assert outcomes["pair_plus.exhaustive"] == "pass"
    assert s.verdicts[0].detail.startswith("407,151,976 of 407,170,400 deals")


def test_stud_par_sheet_refuses_a_file_that_describes_no_stud_game(tmp_path: Path) -> None:
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n\n[[section]]\nkind = "stud-par-sheet"\n'
        'rules = "mahjong-simple.macau"\n',
    )
    with pytest.raises(
        PlanError,
        match=r"plan.toml:6: section 1 \(stud-par-sheet\): rules: "
        r"mahjong-simple.macau.toml describes no game the stud engine computes",
    ):
        load_plan(plan)


@pytest.mark.slow
@pytest.mark.skipif(not SLOW, reason="long run: set TABLECERT_SLOW=1 (and -m slow)")
def test_stud_par_sheet_of_four_card_poker(tmp_path: Path) -> None:
    s = _section(
        tmp_path, '[[section]]\nkind = "stud-par-sheet"\nrules = "four-card-poker.standard"\n'
    )
    assert s.id == "stud-par-sheet/four-card-poker.standard"
    assert set(_outcomes(s).values()) == {"pass"}
    total = math.comb(52, 5) * 47 * math.comb(46, 5)
    assert s.verdicts[0].detail == f"{total:,} of {total:,} deals; probabilities sum to 1"
    assert [b["id"] for b in s.data["side_bets"]] == ["aces-up"]


def _one_payout(folder: Path, name: str, old: str, new: str) -> tuple[Path, Path]:
    """The bundled ``name`` and a copy with one line's ``old`` text replaced by ``new``."""
    source = RULES / f"{name}.toml"
    before = folder / f"{name}.toml"
    shutil.copyfile(source, before)
    text = source.read_text(encoding="utf-8")
    assert text.count(old) == 1
    after = folder / f"{name}.changed.toml"
    after.write_text(text.replace(old, new), encoding="utf-8")
    return before, after


def _diff_plan(folder: Path, old: Path, new: Path) -> str:
    return f'[[section]]\nkind = "rules-diff"\nold = "{old.name}"\nnew = "{new.name}"\n'


def test_rules_diff_of_a_stud_game_with_one_payout_changed(tmp_path: Path) -> None:
    old, new = _one_payout(
        tmp_path,
        "caribbean-stud.no-upcard",
        'royal-flush = { value = 100, article = "Rules: raise pays"',
        'royal-flush = { value = 50, article = "Rules: raise pays"',
    )
    s = _section(tmp_path, _diff_plan(tmp_path, old, new))
    assert s.id == "rules-diff/caribbean-stud.no-upcard/caribbean-stud.no-upcard.changed"
    (value,) = s.data["values"]
    assert (value["key"], value["article"], value["changed"]) == (
        "settlement.raise.win.royal-flush",
        "Rules: raise pays",
        ["value"],
    )
    assert (value["old"]["value"], value["new"]["value"]) == (100, 50)
    figures = {f["path"]: f for f in s.data["figures"]}
    line = "rows[raise 2x: player wins with royal-flush]"
    # The line pays ante 1 + raise 2 x 100 = 201, then 1 + 2 x 50 = 101.
    assert figures[f"{line}.value"]["difference"]["exact"] == "-100/1"
    # The house edge grows by exactly what the royal flush line returns less: its old return
    # x 100/201 (the same deals, each paying 100 units less).
    old_return = Fraction(figures[f"{line}.return"]["old"]["exact"])
    edge = figures["house_edge"]
    assert Fraction(edge["difference"]["exact"]) == old_return * 100 / 201
    assert Fraction(edge["new"]["exact"]) - Fraction(edge["old"]["exact"]) == old_return * 100 / 201
    assert sorted(figures) == sorted(
        ["house_edge", "element_of_risk", f"{line}.value", f"{line}.pays", f"{line}.return"]
    )
    assert {v.requirement.rsplit(".", 1)[1]: v.outcome for v in s.verdicts} == {
        "exact": "pass",
        "articles": "pass",
        "figures-follow-values": "pass",
    }
    assert {v.article for v in s.verdicts} == {"Rules: raise pays"}
    assert str(tmp_path) not in canonical_bytes(s.data).decode()


def test_rules_diff_of_a_statute_game(tmp_path: Path) -> None:
    old, new = _one_payout(
        tmp_path,
        "q-poker.macau",
        'straight = { value = 6, article = "第十條(三)"',
        'straight = { value = 5, article = "第十條(三)"',
    )
    s = _section(tmp_path, _diff_plan(tmp_path, old, new))
    (value,) = s.data["values"]
    assert value["key"] == "pair_plus.straight"
    figures = {f["path"]: f for f in s.data["figures"]}
    # 720 straights of 22,100 hands each pay one unit less: the edge grows by 720/22100.
    assert figures["pair_plus.house_edge"]["difference"]["exact"] == str(Fraction(720, 22_100))
    assert all(v.outcome == "pass" for v in s.verdicts)


def test_rules_diff_says_when_a_changed_value_changes_no_figure(tmp_path: Path) -> None:
    """The table's seats are no figure of the par sheet: a changed seat count changes no
    figure, which the section cannot judge."""
    old, new = _one_payout(
        tmp_path,
        "q-poker.six-card-bonus",
        'seats = { value = 8, article = "第二條(一)"',
        'seats = { value = 9, article = "第二條(一)"',
    )
    s = _section(tmp_path, _diff_plan(tmp_path, old, new))
    assert s.data["figures"] == []
    agreement = s.verdicts[2]
    assert agreement.outcome == "inconclusive"
    assert agreement.detail.startswith("table.seats changed")


def test_rules_diff_fails_figures_that_change_with_no_value() -> None:
    diff = RulesDiff(
        "q-poker",
        "a.toml",
        "0" * 64,
        "b.toml",
        "1" * 64,
        (),
        (
            FigureChange(
                "house_edge",
                {"exact": "1/2", "decimal": "0.5"},
                {"exact": "1/3", "decimal": "0.3"},
                Fraction(1, 2),
            ),
        ),
    )
    exact, articles, agreement = rules_diff._verdicts("p", diff)
    assert agreement.outcome == Outcome.FAIL
    assert agreement.detail == "1 figure(s) changed and no rule value did: house_edge"
    assert exact.outcome == Outcome.FAIL  # 1/2 is not 1/3 - 1/2
    assert exact.detail.endswith("; not exact: house_edge")
    assert articles.outcome == Outcome.NOT_APPLICABLE


def test_rules_diff_refuses_two_games_when_the_plan_is_read(tmp_path: Path) -> None:
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n\n[[section]]\nkind = "rules-diff"\n'
        'old = "q-poker.macau"\nnew = "four-card-poker.standard"\n',
    )
    with pytest.raises(
        PlanError,
        match=r"plan.toml:7: section 1 \(rules-diff\): new: "
        r"four-card-poker.standard.toml is a stud rule file and q-poker.macau.toml a q-poker one",
    ):
        load_plan(plan)


def test_the_bundled_four_card_poker_plan_certifies_and_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bundled plan, with a fast stud file in place of Four Card Poker (half a minute),
    gives a signed certificate that ``tablecert verify`` accepts with its plan."""
    written = '"../rules/four-card-poker.standard.toml"'
    text = (bundled.PLANS_DIR / "four-card-poker.toml").read_text(encoding="utf-8")
    assert text.count(written) == 1
    assert load_plan("four-card-poker").entries[0].kind.name == "stud-par-sheet"
    plan = write_plan(tmp_path, text.replace(written, '"caribbean-stud.no-upcard"'))
    key = Ed25519PrivateKey.generate()
    run = certify(plan, key, tmp_path / "certificate")
    assert run.data["verdict"] == "pass"
    (section,) = run.data["sections"]
    assert section["id"] == "stud-par-sheet/caribbean-stud.no-upcard"
    assert section["data"]["rules_sha256"] == load_rules("caribbean-stud.no-upcard").sha256
    pub = tmp_path / "lab.pub"
    pub.write_bytes(public_pem(key.public_key()))
    verified = run_cli(
        ["verify", str(run.envelope), "--pubkey", str(pub), "--inputs", str(plan)],
        monkeypatch,
        capsys,
    )
    assert verified.code == 0, verified.out + verified.err
    assert "certified: Four Card Poker (standard rules): par sheet" in verified.out
    assert "  verdict: PASS" in verified.out


class _CountingExecutor(LocalExecutor):
    """Local shards, counting what it was given: the section must send its work here."""

    def __init__(self) -> None:
        self.shards: list[Any] = []

    def map(self, fn: Any, shards: Any, progress: Any = None) -> list[Any]:
        self.shards += list(shards)
        return super().map(fn, shards, progress)


def test_stud_par_sheet_on_a_cluster_is_bit_identical_to_the_local_run(tmp_path: Path) -> None:
    body = '[[section]]\nkind = "stud-par-sheet"\nrules = "q-poker.standard"\n'
    plan = load_plan(write_plan(tmp_path, '[certification]\ntitle = "t"\n\n' + body))
    (local,) = run_sections(plan)
    executor = _CountingExecutor()
    (remote,) = run_sections(plan, executor=executor)
    assert len(executor.shards) == stud.SHARDS_PER_THREAD * executor.parallelism
    assert {s.part for s in executor.shards} == {(0, 2), (1, 2)}
    assert canonical_bytes(remote.data) == canonical_bytes(local.data)
    assert remote.html == local.html
    assert remote.verdicts == local.verdicts
    assert local.data["house_edge"]["exact"] == "686689/20358520"


def test_stud_par_sheet_exports_the_par_sheet_and_certify_signs_it(tmp_path: Path) -> None:
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n[[section]]\nkind = "stud-par-sheet"\n'
        'rules = "q-poker.standard"\nexport = "xlsx"\n',
    )
    key = Ed25519PrivateKey.generate()
    run = certify(plan, key, tmp_path / "out")
    sheet = tmp_path / "out" / "par-q-poker.standard.xlsx"
    assert run.data["outputs"] == ["par-q-poker.standard.xlsx"]
    data = run.data["sections"][0]["data"]
    book = dict(read_xlsx(sheet))
    assert list(book) == ["Summary", "Against the dealer", "pair plus", "Strategy"]
    against = next(r for r in book["Summary"] if r[:1] == ["Against the dealer"])
    assert against[2] == data["house_edge"]["exact"] == "686689/20358520"
    rows = book["Against the dealer"]
    assert [(r[0], r[5]) for r in rows[1:-1]] == [(r["event"], r["count"]) for r in data["rows"]]
    assert ["rule file", "q-poker.standard.toml"] in book["Summary"]  # the name, no path
    result = dsse.verify_file(run.envelope, [key.public_key()], [sheet])
    assert result.valid, result.reasons
    assert [c.subject for c in result.inputs] == ["par-q-poker.standard.xlsx"]
    # The certificate's folder, export included, is replaced whole by the next run.
    again = certify(plan, key, tmp_path / "out")
    assert again.data["outputs"] == ["par-q-poker.standard.xlsx"]
    # The CSV is the same writer's, row for row.
    plan.write_text(plan.read_text().replace('"xlsx"', '"csv"'), encoding="utf-8")
    csv_run = certify(plan, key, tmp_path / "out-csv")
    text = (tmp_path / "out-csv" / "par-q-poker.standard.csv").read_text(encoding="utf-8-sig")
    assert csv_run.data["outputs"] == ["par-q-poker.standard.csv"]
    assert "Summary,Against the dealer,0.033729809436,686689/20358520" in text


def test_stud_par_sheet_refuses_an_unknown_export_when_the_plan_is_read(tmp_path: Path) -> None:
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n[[section]]\nkind = "stud-par-sheet"\n'
        'rules = "q-poker.standard"\nexport = "ods"\n',
    )
    with pytest.raises(PlanError, match=r"section 1 \(stud-par-sheet\): export: 'ods'"):
        load_plan(plan)


def test_stud_par_sheet_states_the_cap_it_judged_under(tmp_path: Path) -> None:
    text = (RULES / "caribbean-stud.no-upcard.toml").read_text(encoding="utf-8")
    cap = (
        '\n[settlement.cap]\nmaximum_payout = { value = 150, article = "Rules: <cap>", '
        'kind = "amount", house_choice = true }\n'
        'ante = { value = 5, article = "Rules: <cap>", kind = "positive", house_choice = true }\n'
        'categories = { value = ["royal-flush"], article = "Rules: <cap>" }\n'
        'bets = { value = ["raise"], article = "Rules: <cap>" }\n'
    )
    rules = tmp_path / "capped.toml"
    rules.write_text(text + cap, encoding="utf-8")
    section = _section(
        tmp_path, f'[[section]]\nkind = "stud-par-sheet"\nrules = "{rules.as_posix()}"\n'
    )
    assert section.data["per_round_cap"]["antes"]["exact"] == "30/1"
    assert (
        "<td>per-round maximum payout (Rules: &lt;cap&gt;)</td><td>150 against an ante of 5 "
        "(30 antes): raise on royal-flush</td>"
    ) in section.html
    royal = [r for r in section.data["rows"] if "royal-flush" in r["event"]]
    assert [r["event"] for r in royal] == ["raise 2x: player wins with royal-flush (capped)"]
    assert royal[0]["value"]["exact"] == "31/1"  # the ante 1 to 1, the raise capped at 30
    assert section.outcome == Outcome.PASS


def test_stud_par_sheet_exports_the_strategy_as_analyze_game_does(tmp_path: Path) -> None:
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n[[section]]\nkind = "stud-par-sheet"\n'
        'rules = "q-poker.standard"\nstrategy = true\n',
    )
    key = Ed25519PrivateKey.generate()
    run = certify(plan, key, tmp_path / "out")
    assert run.data["outputs"] == ["strategy-q-poker.standard.csv"]
    exported = (tmp_path / "out" / "strategy-q-poker.standard.csv").read_bytes()
    cli = tablecert(["analyze", "game", "q-poker.standard", "--export", str(tmp_path / "cli")])
    assert cli.code == 0, cli.stderr
    assert exported == (tmp_path / "cli" / "strategy.csv").read_bytes()
    assert b"\r\nhigh-card,Q 6 4,all hidden,0,60,raise 1x\r\n" in exported
    result = dsse.verify_file(
        run.envelope, [key.public_key()], [tmp_path / "out" / "strategy-q-poker.standard.csv"]
    )
    assert result.valid, result.reasons


def test_stud_par_sheet_carries_the_progressive(tmp_path: Path) -> None:
    """The statute's progressive in a described game (the dealer's cards all face down, for
    a quick analysis): its pay table and long run in the report, its sheet in the signed
    data, reported and not judged."""
    from tests.support.generic_caribbean import generic_caribbean

    path = generic_caribbean(tmp_path, upcards=0)
    s = _section(tmp_path, f'[[section]]\nkind = "stud-par-sheet"\nrules = "{path}"\n')
    prog = s.data["progressive"]
    assert prog["return_at_meter"]["exact"] == "-4003/21658"
    assert [p["count"] for p in prog["prizes"]] == [4, 36, 624, 3744, 5108]
    assert prog["long_run"]["player_advantage"] is True
    assert "<h3>Progressive (第十条): prizes per unit bet 1 at the meter 200,000</h3>" in s.html
    assert '<td>flush</td><td>第十条(二)(5)</td><td class="num">5,108</td>' in s.html
    assert "<strong>Player advantage:</strong>" in s.html
    assert "progressive return at the meter" in s.html
    assert "the progressive: all 2,598,960 hands of the player's five cards" in s.scope.exhaustive
    assert "the progressive is reported at the meter of the rule file, not judged" in (
        s.scope.limitations
    )
    assert not any("progressive" in v.requirement for v in s.verdicts)
