"""Certification plans: errors name the file, line and key before anything runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablecert.errors import PlanError
from tablecert.report.plan import load_plan
from tablecert.rules import RULES_DIR
from tests.support.plan_support import write_plan

PLANS = Path(__file__).resolve().parents[2] / "fixtures" / "plans"
HEADER = '[certification]\ntitle = "t"\n\n'


def _plan(tmp_path: Path, body: str) -> Path:
    return write_plan(tmp_path, HEADER + body)


def test_bundled_main_plan() -> None:
    plan = load_plan(PLANS / "main.toml")
    assert plan.title.startswith("Macau table games")
    kinds = [e.kind.name for e in plan.entries]
    assert set(kinds) == {
        "hand-categories",
        "par-sheet",
        "configuration",
        "evaluator-crosscheck",
        "shuffler-audit",
        "rng-audit",
        "mahjong-tables",
    }
    # All three statutes: every game's rule file is named.
    games = {Path(f).name for e in plan.entries for f in e.files() if f.parent == RULES_DIR}
    assert {"q-poker.macau.toml", "caribbean-stud.macau.toml"} <= games
    assert {"mahjong-traditional.macau.toml", "mahjong-simple.macau.toml"} <= games
    first = plan.entries[0]
    assert first.line is not None
    assert Path(first.values["rules"]) == RULES_DIR / "q-poker.macau.toml"
    assert PLANS.joinpath("main.toml").read_text().splitlines()[first.line - 1] == "[[section]]"
    assert first.key_lines == {
        "kind": first.line + 1,
        "game": first.line + 2,
        "rules": first.line + 3,
    }
    audit = next(e for e in plan.entries if e.kind.name == "shuffler-audit")
    assert [p.name for p in audit.paths("logs")] == ["shuffler-fair-52.csv.gz"]
    assert audit.files()[0].stat().st_size < 2_000_000  # bundled logs stay small


def test_bundled_rule_name_resolves(tmp_path: Path) -> None:
    plan = load_plan(
        _plan(
            tmp_path,
            '[[section]]\nkind = "hand-categories"\ngame = "q-poker"\nrules = "q-poker.standard"\n',
        )
    )
    assert plan.entries[0].files() == (RULES_DIR / "q-poker.standard.toml",)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '[[section]]\nkind = "house-magic"\n',
            r"plan\.toml:5: section 1: kind: 'house-magic' is not a section kind; known: "
            "configuration, evaluator-crosscheck, hand-categories, mahjong-tables, par-sheet, "
            "rng-audit, round-audit, rules-diff, shuffler-audit, stud-par-sheet",
        ),
        (
            '[[section]]\nkind = "hand-categories"\ngame = "q-poker"\nrules = "q-poker.macau"\n'
            "decks = 2\n",
            r"plan\.toml:8: section 1 \(hand-categories\): decks: unknown key; "
            "hand-categories accepts game, rules",
        ),
        (
            '[[section]]\nkind = "hand-categories"\ngame = "q-poker"\n',
            r"plan\.toml:4: section 1 \(hand-categories\): missing key 'rules'",
        ),
        (
            '[[section]]\nkind = "hand-categories"\ngame = "q-poker"\nrules = "nope.toml"\n',
            r"plan\.toml:7: section 1 \(hand-categories\): rules: no such file 'nope.toml'",
        ),
        (
            '[[section]]\nkind = "hand-categories"\ngame = 3\nrules = "q-poker.macau"\n',
            r"plan\.toml:6: section 1 \(hand-categories\): game: expected a non-empty string",
        ),
        ("", r"no \[\[section\]\] entries"),
        ('[[sections]]\nkind = "x"\n', r"unknown table or key 'sections'"),
        ("x = ", r"invalid TOML"),
    ],
)
def test_errors_name_file_line_and_key(tmp_path: Path, body: str, message: str) -> None:
    with pytest.raises(PlanError, match=message):
        load_plan(_plan(tmp_path, body))


def test_certification_table_checked(tmp_path: Path) -> None:
    path = write_plan(
        tmp_path, '[certification]\nlab = "x"\n\n[[section]]\nkind = "hand-categories"\n'
    )
    with pytest.raises(PlanError, match=r"plan\.toml:1: certification\.title: missing"):
        load_plan(path)
    path.write_text('[certification]\ntitle = "t"\nlabs = "x"\n')
    with pytest.raises(PlanError, match=r"plan\.toml:3: certification\.labs"):
        load_plan(path)


def test_bad_rule_file_named(tmp_path: Path) -> None:
    rules = tmp_path / "mine.toml"
    rules.write_text('[game]\nid = "q-poker"\n')
    with pytest.raises(PlanError, match=r"rules: bad rule file: .*mine\.toml:2: game\.id"):
        load_plan(
            _plan(
                tmp_path,
                '[[section]]\nkind = "hand-categories"\ngame = "q-poker"\nrules = "mine.toml"\n',
            )
        )


def test_error_lines_skip_keys_written_inside_multiline_strings(tmp_path: Path) -> None:
    # A line inside a multi-line string is text, not a key: the error names the real key's line.
    path = write_plan(
        tmp_path,
        '[certification]\nscope_notes = """\ntitle = "in the notes"\n"""\n'
        'title = "bad\\u001b"\n\n[[section]]\nkind = "hand-categories"\ngame = "q-poker"\n',
    )
    with pytest.raises(PlanError, match=r"plan\.toml:5: certification\.title: control"):
        load_plan(path)
