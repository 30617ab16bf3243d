"""The statute's constraints on a value, written beside it in the rule file: read strictly by
the loader (a malformed one is refused naming the file, line, key and field), and what the
configuration check and the statute in force take from them."""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

from tablecert.conformance.configuration import ConfigurationError, check_configuration
from tablecert.errors import RuleFileError
from tablecert.rules import RULES_DIR, load_rules
from tablecert.rules.submission import EffectiveRules, in_force

CARIBBEAN = RULES_DIR / "caribbean-stud.macau.toml"
Q_POKER = RULES_DIR / "q-poker.macau.toml"
CASINO_A = (
    Path(__file__).resolve().parents[2] / "fixtures" / "configs" / "caribbean-stud.casino-a.toml"
)
OWN_TEXT = "the statute's own text, not a setting a configuration submits"
ROYAL_RANGE = 'range = ["play.royal_option.minimum", "play.royal_option.maximum"]'


def edited(tmp_path: Path, source: Path, old: str, new: str) -> tuple[Path, int]:
    """A copy of a bundled rule file with one edit, and the line the edit is on."""
    text = source.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    line = text[: text.index(old)].count("\n") + 1
    path = tmp_path / source.name
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path, line


@pytest.mark.parametrize(
    ("source", "old", "new", "key", "message"),
    [
        (CARIBBEAN, 'none", kind = "amount", house_choice = true',
         'none", kind = "amount", house_choice = "yes"',
         "play.cap.maximum_payout",
         "house_choice: expected true or false, got 'yes'"),
        (CARIBBEAN, 'kind = "share-below-one"', 'kind = "fraction"', "progressive.contribution",
         "kind: 'fraction' is not one of count, whole, positive, amount, share, share-below-one"),
        (CARIBBEAN, ROYAL_RANGE, 'range = ["play.royal_option.minimum"]',
         "play.raise_pays.royal-flush", "range: expected [minimum key, maximum key]"),
        (CARIBBEAN, ROYAL_RANGE, 'range = "play.royal_option"',
         "play.raise_pays.royal-flush", "range: expected a list, got 'play.royal_option'"),
        (CARIBBEAN, ROYAL_RANGE, 'range = ["play.royal_option.least", "play.royal_option.maximum"]',
         "play.raise_pays.royal-flush",
         "range: 'play.royal_option.least' is not a number of this file"),
        (CARIBBEAN, ROYAL_RANGE, 'range = ["play.royal_option", "play.royal_option.maximum"]',
         "play.raise_pays.royal-flush", "range: 'play.royal_option' is not a number of this file"),
        (CARIBBEAN, ROYAL_RANGE, 'range = ["ranking.ordering", "play.royal_option.maximum"]',
         "play.raise_pays.royal-flush", "range: 'ranking.ordering' is not a number of this file"),
        (CARIBBEAN, ROYAL_RANGE,
         'range = ["play.royal_option.maximum", "play.royal_option.minimum"]',
         "play.raise_pays.royal-flush", "range: the minimum 100 is above the maximum 50"),
        (CARIBBEAN, 'duty = "第十三条', 'duty = "", houses_choice = "',
         "play.raise_pays.royal-flush",
         "unknown field(s) houses_choice"),
        (Q_POKER, "at_least = true", "at_least = 1", "table.seats",
         "at_least: expected true or false, got 1"),
        (Q_POKER, 'note = "the dealer plays with Q-high or better"',
         'note = "Q-high", kind = "count"', "play.dealer_qualifier",
         "kind: qualifies a number, not ['Q']"),
        (Q_POKER, 'fold = { value = "-1/2", article = "第九條(三)"',
         'fold = { value = "-1/2", article = "第九條(三)", one_of = true', "play.fold",
         "one_of: qualifies a list of names to choose from"),
        (Q_POKER, 'ordering = { value = "statute", article = "第八條"',
         'ordering = { value = "statute", article = "第八條", at_least = true', "ranking.ordering",
         "at_least: qualifies a number, not 'statute'"),
        (Q_POKER, '(一)(三)", reading = true', '(一)(三)", reading = "yes"',
         "ranking.ace_low_straight_suit",
         "reading: expected true or false, got 'yes'"),
        (Q_POKER, 'article = "第八條(一)"\nsubmittable = false',
         'article = "第八條(一)"\nsubmittable = "no"', "ranking.categories.straight-flush",
         "submittable: expected true or false, got 'no'"),
    ],
)  # fmt: skip
def test_a_malformed_constraint_is_refused_naming_its_line_and_key(
    tmp_path: Path, source: Path, old: str, new: str, key: str, message: str
) -> None:
    path, line = edited(tmp_path, source, old, new)
    with pytest.raises(RuleFileError) as caught:
        load_rules(path)
    text = str(caught.value)
    found = re.match(rf"{re.escape(str(path))}:(\d+): {re.escape(key)}: (.*)$", text)
    assert found is not None, text
    assert found.group(2) == message
    # A value written as a table is located at its ``value =`` line, the others at theirs.
    assert int(found.group(1)) == (line - 1 if "categories" in key else line)


def test_an_empty_duty_is_refused(tmp_path: Path) -> None:
    text = CARIBBEAN.read_text(encoding="utf-8")
    path = tmp_path / "empty-duty.toml"
    path.write_text(re.sub(r'duty = "[^"]*"', 'duty = ""', text), encoding="utf-8")
    with pytest.raises(
        RuleFileError, match=r": play\.raise_pays\.royal-flush: duty: expected text"
    ):
        load_rules(path)


def test_a_house_choice_added_by_a_lab_is_recorded_not_judged(tmp_path: Path) -> None:
    statute, _ = edited(
        tmp_path,
        Q_POKER,
        'straight = { value = 6, article = "第十條(三)", note = "一賠六" }',
        'straight = { value = 6, article = "第十條(三)", note = "一賠六", house_choice = true }',
    )
    config = tmp_path / "config.toml"
    config.write_text('[submission]\ngame = "q-poker"\n[pair_plus]\nstraight = 5\n', "utf-8")
    bundled = check_configuration(config)
    assert [(ln.verdict, ln.note) for ln in bundled.lines if ln.key == "pair_plus.straight"] == [
        ("deviates", "")
    ]
    lab = check_configuration(config, statute)
    line = next(ln for ln in lab.lines if ln.key == "pair_plus.straight")
    assert (line.verdict, line.note, line.submitted) == (
        "house choice",
        "the statute leaves this to the house",
        5,
    )
    assert lab.outcome.name == "INCONCLUSIVE"


def test_a_duty_on_any_value_is_an_open_point_when_the_value_is_used(tmp_path: Path) -> None:
    statute, _ = edited(
        tmp_path,
        Q_POKER,
        "at_least = true }",
        'at_least = true, duty = "more seats need the DICJ\'s approval" }',
    )
    config = tmp_path / "config.toml"
    config.write_text('[submission]\ngame = "q-poker"\n[table]\nseats = 9\n', "utf-8")
    line = next(ln for ln in check_configuration(config, statute).lines if ln.key == "table.seats")
    assert (line.verdict, line.duty) == ("conforms", "more seats need the DICJ's approval")
    config.write_text('[submission]\ngame = "q-poker"\n[table]\nseats = 7\n', "utf-8")
    line = next(ln for ln in check_configuration(config, statute).lines if ln.key == "table.seats")
    assert (line.verdict, line.duty) == ("deviates", "")


def test_the_statute_in_force_holds_the_submitted_values() -> None:
    rules = in_force(CASINO_A)
    assert isinstance(rules, EffectiveRules)
    assert rules.require("play.raise_pays.royal-flush").value == 80
    assert rules.require("progressive.contribution").value == "7/10"
    assert rules.require("play.fold").value == -1  # not submitted: the statute's value
    assert rules.statute.path == CARIBBEAN
    assert rules.locate("play.cap.ante") == (f"{CASINO_A}:29", "")
    assert rules.sha256 != rules.statute.sha256
    assert rules.sha256 == check_configuration(CASINO_A).effective_rules.sha256


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[play.royal_option]\nminimum = 60\n",
         f"play.royal_option.minimum: {OWN_TEXT}"),
        ("[ranking.categories]\nflush = []\n", f"ranking.categories.flush: {OWN_TEXT}"),
        ("[play]\nbluff = 1\n",
         "play.bluff: not a rule of caribbean-stud (the statute rule file "
         "caribbean-stud.macau.toml has no such key)"),
    ],
)  # fmt: skip
def test_the_statute_in_force_refuses_what_the_check_refuses(
    tmp_path: Path, body: str, message: str
) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[submission]\ngame = "caribbean-stud"\n{body}', "utf-8")
    expected = f"{config}:4: {message}"
    for read in (in_force, check_configuration):
        with pytest.raises(ConfigurationError) as caught:
            read(config)
        assert str(caught.value) == expected


def test_a_submitted_value_in_force_need_not_be_what_its_constraints_qualify(
    tmp_path: Path,
) -> None:
    """A constraint qualifies the statute file's own value, checked when it is loaded; the
    statute in force holds whatever was submitted (a name where a ranged number belongs), and
    the checks that read it say what they can."""
    config = tmp_path / "config.toml"
    config.write_text(
        '[submission]\ngame = "caribbean-stud"\n[play.raise_pays]\nroyal-flush = "x"\n', "utf-8"
    )
    report = check_configuration(config)
    line = next(ln for ln in report.lines if ln.key == "play.raise_pays.royal-flush")
    assert (line.verdict, line.note) == (
        "deviates",
        "'x' is not a number: nothing can be computed under it",
    )
    assert [(c.name, c.passed, c.detail) for c in report.consistency] == [
        (
            "hand categories rarer as they rank higher",
            True,
            "royal flush 4, straight flush 36, four of a kind 624, full house 3,744, "
            "flush 5,108, straight 10,200, three of a kind 54,912, two pair 123,552, "
            "one pair 1,098,240, high card 1,302,540",
        ),
        ("play.raise_pays: every outcome paid exactly once", True, "one entry per category"),
        (
            "play.raise_pays: payouts never fall as the hand rises",
            False,
            "cannot be compared: play.raise_pays.royal-flush is not a number",
        ),
        ("progressive.fixed: every outcome paid exactly once", True, "one entry per category"),
    ]


@pytest.mark.parametrize(
    "module",
    [
        "tablecert.conformance.configuration",
        "tablecert.rules.constraints",
        "tablecert.rules.loader",
        "tablecert.rules.numbers",
    ],
)
def test_the_judgement_names_no_game(module: str) -> None:
    """What the statute allows is the rule files' to say: the code that judges a submitted
    value and reads the constraints names no game and cites no article (docstrings and
    comments aside, which give examples)."""
    path = Path(importlib.import_module(module).__file__ or "")
    texts = code_strings(path.read_text(encoding="utf-8"))
    assert texts
    for text in texts:
        assert not re.search(r"q-poker|caribbean|mahjong|第[一二三四五六七八九十]+[条條]", text), (
            text
        )


def code_strings(source: str) -> list[str]:
    """Every string literal of a module's code, its docstrings left out."""
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docstrings.add(id(first.value))
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docstrings
    ]
