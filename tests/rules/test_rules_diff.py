"""``tablecert analyze diff OLD NEW``: two rule files of one game give every changed value
with its article and every figure of the analysis that changes, exactly."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from tablecert.games import q_poker
from tablecert.games.rules_diff import diff_rules, figures
from tablecert.rules import RULES_DIR, load_rules
from tests.support.cli_support import tablecert


def _variant(tmp_path: Path, old: str, new: str) -> Path:
    # The statute with one value changed (a casino's variant of the pay table).
    text = (RULES_DIR / "q-poker.macau.toml").read_text(encoding="utf-8")
    assert text.count(old) == 1
    path = tmp_path / "q-poker.variant.toml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def test_one_changed_payout_changes_its_value_and_only_its_bets_figures(tmp_path: Path) -> None:
    statute = load_rules("q-poker.macau")
    text = (RULES_DIR / "q-poker.macau.toml").read_text(encoding="utf-8")
    line = next(ln for ln in text.splitlines() if ln.startswith("flush = { value = 4"))
    variant = load_rules(_variant(tmp_path, line, line.replace("value = 4", "value = 3")))
    result = diff_rules(statute, variant)
    assert [(v.key, v.changed, v.article) for v in result.values] == [
        ("pair_plus.flush", ("value",), "第十條(四)")
    ]
    assert [f.path for f in result.figures] == [
        "pair_plus.house_edge",
        "pair_plus.rows[flush].value",
        "pair_plus.rows[flush].pays",
        "pair_plus.rows[flush].return",
    ]
    edge = next(f for f in result.figures if f.path == "pair_plus.house_edge")
    before = q_poker.analyze(statute).pair_plus.house_edge
    after = q_poker.analyze(variant).pair_plus.house_edge
    assert edge.difference == after - before
    assert edge.difference == Fraction(1096, 22100)  # 1,096 flushes of 22,100 hands, 1 unit less


def test_statute_against_standard_three_card_poker() -> None:
    result = diff_rules(load_rules("q-poker.macau"), load_rules("q-poker.standard"))
    values = {v.key: v for v in result.values}
    assert values["play.fold"].old is not None
    assert values["play.fold"].old.value == "-1/2"
    assert values["play.fold"].new is not None
    assert values["play.fold"].new.value == -1
    assert values["play.fold"].article == "第九條(三)"
    assert "pair_plus.flush" not in values or values["pair_plus.flush"].changed == ("note",)
    edge = next(f for f in result.figures if f.path == "play.house_edge")
    assert Fraction(edge.new["exact"]) == Fraction(686689, 20358520)  # 3.3730%, Wizard of Odds
    assert edge.difference == Fraction(686689, 20358520) - Fraction(11234169, 407170400)
    paths = {f.path for f in result.figures}
    assert "pair_plus.house_edge" not in paths  # the same pair-plus table in both
    assert not paths & {"rules", "rules_sha256", "title", "tablecert_version"}


def test_a_file_against_itself_differs_in_nothing() -> None:
    statute = load_rules("q-poker.macau")
    result = diff_rules(statute, statute)
    assert (result.values, result.figures) == ((), ())


def test_list_entries_are_named_by_their_event() -> None:
    doc = {
        "rows": [{"event": "fold", "n": 1}, {"event": "win", "n": 2}],
        "xs": [{"n": 1}, {"n": 1}],
    }
    assert figures(doc) == {"rows[fold].n": 1, "rows[win].n": 2, "xs[0].n": 1, "xs[1].n": 1}


def test_cli_json_and_the_input_error_of_two_games(tmp_path: Path) -> None:
    run = tablecert(["analyze", "diff", "q-poker.macau", "q-poker.standard", "--json"])
    assert run.code == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["schema"] == "tablecert.analyze-diff/1"
    assert doc["old"]["rules"] == "q-poker.macau.toml"
    assert any(v["key"] == "play.fold" for v in doc["values"])
    other = tablecert(["analyze", "diff", "q-poker.macau", "caribbean-stud.macau"])
    assert other.code == 2
    assert other.error_lines == [
        "error: q-poker.macau.toml is a q-poker rule file and caribbean-stud.macau.toml a "
        "caribbean-stud one: only two rule files of one game can be compared"
    ]
    text = tablecert(["analyze", "diff", "q-poker.macau", "q-poker.standard"])
    assert text.code == 0
    assert "play.house_edge" in text.stdout
    assert "第九條(三)" in text.stdout


def _copy_with(tmp_path: Path, name: str, old: str, new: str) -> Path:
    text = (RULES_DIR / f"{name}.toml").read_text(encoding="utf-8")
    assert text.count(old) == 1
    path = tmp_path / f"{name}.variant.toml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def test_a_side_bet_only_the_stud_engine_computes_is_compared(tmp_path: Path) -> None:
    # Three Card Poker with the 6 Card Bonus: the royal flush's 1000 to 1 becomes 500 to 1.
    old = 'royal-flush = { value = 1000, article = "6 Card Bonus: pay table"'
    variant = _copy_with(tmp_path, "q-poker.six-card-bonus", old, old.replace("1000", "500"))
    result = diff_rules(load_rules("q-poker.six-card-bonus"), load_rules(variant))
    assert [v.key for v in result.values] == ["side_bets.six-card-bonus.pays.royal-flush"]
    edge = next(f for f in result.figures if f.path == "side_bets[6 Card Bonus].house_edge")
    assert edge.difference == Fraction(188 * 500, 20_358_520)  # 188 royal flushes of C(52, 6)
    assert not any(f.path.startswith("play.") for f in result.figures)


def test_two_files_of_a_game_described_as_data(tmp_path: Path) -> None:
    # Caribbean Stud without an upcard: the full house's raise pays 7 to 1, then 8 to 1.
    text = (RULES_DIR / "caribbean-stud.no-upcard.toml").read_text(encoding="utf-8")
    line = next(ln for ln in text.splitlines() if ln.startswith("full-house = { value = 7"))
    variant = _copy_with(tmp_path, "caribbean-stud.no-upcard", line, line.replace("7", "8", 1))
    run = tablecert(["analyze", "diff", "caribbean-stud.no-upcard", str(variant), "--json"])
    assert run.code == 0, run.stderr
    data = json.loads(run.stdout)
    changed = [v["key"] for v in data["values"]]
    assert len(changed) == 1
    assert changed[0].endswith("full-house")
    edge = next(f for f in data["figures"] if f["path"] == "house_edge")
    assert Fraction(edge["difference"]["exact"]) < 0  # a better pay: a smaller house edge
