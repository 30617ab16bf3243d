"""The judgement layer: one outcome type, its words, its roll-up, its exit statuses, and no
verdict word spelt anywhere else in the package."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import tablecert
from tablecert.cli.common import EXIT_HELP, ExitCode, exit_for
from tablecert.judgement import (
    EXIT_MEANINGS,
    EXIT_STATUS,
    JudgementError,
    Outcome,
    Verdict,
    overall,
    verdict_words,
)

PACKAGE = Path(tablecert.__file__).parent
VERDICTS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "methodology" / "verdicts.md"

#: Every word a verdict is said in, in any domain.
VERDICT_WORDS = frozenset(
    {o.value for o in Outcome}
    | {o.word(d) for o in Outcome for d in ("test", "conformance", "validity")}
)

#: The presentation layer: it may name a word to style or print it, never to decide one.
PRESENTATION = ("cli/", "report/html.py", "report/templates/")


def test_domain_words_are_views_of_one_outcome() -> None:
    assert Outcome.PASS.word("conformance") == "conforms"
    assert Outcome.FAIL.word("conformance") == "deviates"
    assert Outcome.PASS.word("validity") == "valid"
    assert Outcome.FAIL.word("validity") == "invalid"
    assert Outcome.INCONCLUSIVE.word("conformance") == "inconclusive"
    assert Outcome.NOT_APPLICABLE.word("test") == "skipped"
    for outcome in Outcome:
        for word in verdict_words(outcome):
            assert Outcome.parse(word) is outcome
            assert Outcome.parse(word.upper()) is outcome
    with pytest.raises(ValueError, match="not a verdict word"):
        Outcome.parse("ok")


def test_overall_counts_only_what_was_judged() -> None:
    assert overall(["pass", "pass"]) is Outcome.PASS
    assert overall(["pass", "inconclusive"]) is Outcome.INCONCLUSIVE
    assert overall(["inconclusive", "fail", "pass"]) is Outcome.FAIL
    assert overall([]) is Outcome.INCONCLUSIVE  # nothing judged certifies nothing
    # A house choice or a check with nothing to examine is not evidence either way.
    assert overall([Outcome.PASS, Outcome.HOUSE_CHOICE, Outcome.NOT_APPLICABLE]) is Outcome.PASS
    assert overall([Outcome.HOUSE_CHOICE, Outcome.NOT_APPLICABLE]) is Outcome.INCONCLUSIVE
    assert overall([Outcome.FAIL, Outcome.HOUSE_CHOICE]) is Outcome.FAIL


def test_of_never_passes_what_examined_nothing() -> None:
    assert Outcome.of(False) is Outcome.PASS
    assert Outcome.of(True) is Outcome.FAIL
    assert Outcome.of(False, judged=False) is Outcome.INCONCLUSIVE
    assert Outcome.of(True, judged=False) is Outcome.FAIL  # a failure is evidence at any size


def test_exit_statuses_follow_the_scheme() -> None:
    assert dict(EXIT_STATUS) == {Outcome.PASS: 0, Outcome.FAIL: 1, Outcome.INCONCLUSIVE: 3}
    assert sorted(EXIT_MEANINGS) == [int(c) for c in ExitCode]
    for outcome, status in EXIT_STATUS.items():
        for word in verdict_words(outcome):
            assert exit_for(word).exit_code == status
        assert exit_for(outcome).exit_code == status
    for unjudged in (Outcome.HOUSE_CHOICE, Outcome.NOT_APPLICABLE):
        with pytest.raises(ValueError, match="not a verdict word"):
            exit_for(unjudged)
    assert EXIT_HELP == (
        "Exit status: 0 pass/conforms/valid, 1 fail/deviates/invalid, 2 usage or input error, "
        "3 inconclusive, 4 internal error."
    )


def test_a_verdict_must_cite_its_article_and_a_known_outcome() -> None:
    with pytest.raises(JudgementError, match="cites its article"):
        Verdict("x", "", "s", Outcome.PASS, "d")
    with pytest.raises(JudgementError, match="unknown outcome"):
        Verdict("x", "第一條", "s", "ok", "d")  # type: ignore[arg-type]
    made = Verdict("x", "第一條", "s", "deviates", "d")  # type: ignore[arg-type]
    assert made.outcome is Outcome.FAIL
    assert made.as_json()["verdict"] == "fail"
    shown = Verdict("x", "第一條", "s", Outcome.PASS, "d", values=("2", "A-K"))
    assert shown.as_json()["values"] == ["2", "A-K"]


def _verdict_literals(path: Path) -> list[tuple[int, str]]:
    """String constants in ``path`` that are verdict words (docstrings and f-string text
    excluded: a docstring may explain a word, only a value can decide one)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    # names listed in __all__ are names, not values
    exported = {
        id(element)
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)
        and isinstance(node.value, ast.List | ast.Tuple)
        for element in node.value.elts
    }
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings | exported
            and node.value.lower() in VERDICT_WORDS
        ):
            found.append((node.lineno, node.value))
    return found


def test_no_verdict_word_is_built_outside_the_judgement_layer() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel == "judgement.py" or rel.startswith(PRESENTATION) or rel.startswith("data/"):
            continue
        offenders += [f"{rel}:{line}: {word!r}" for line, word in _verdict_literals(path)]
    assert offenders == []


def test_the_scan_finds_a_verdict_word(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text(
        '"""pass is fine here."""\nSTATE = "conforms" if x else "Deviates"\n__all__ = ["skipped"]\n'
    )
    assert _verdict_literals(probe) == [(2, "conforms"), (2, "Deviates")]


def test_documented_exit_table_is_the_judgement_layer() -> None:
    """The exit-code table of the verdicts page is the judgement layer's, status by status."""
    text = VERDICTS_PAGE.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| *(\d) \| [^|]*\| *([^|]*?) *\|$", text, re.MULTILINE))
    for outcome, status in EXIT_STATUS.items():
        words = [w.strip("` ") for w in rows[str(status)].split(",")]
        assert tuple(words) == verdict_words(outcome)


def test_a_judged_result_words_its_outcome_in_its_domain() -> None:
    from tablecert.conformance.poker_crosscheck import CheckResult as EvaluatorCheck
    from tablecert.stats import CheckResult as StatisticalTest

    failed = EvaluatorCheck("keys", 10, 1, (), (), 0.1)
    assert (failed.outcome, failed.verdict, failed.passed) == (Outcome.FAIL, "deviates", False)
    test = StatisticalTest("k", "name", "cites", 1.0, 1, 0.5, None, "", "", 0.01)
    assert (test.outcome, test.verdict, test.passed) == (Outcome.PASS, "pass", True)
