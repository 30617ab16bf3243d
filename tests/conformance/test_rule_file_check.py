"""``tablecert rules check FILE``: what each engine of the file's game can compute from it,
and what it refuses, naming the key and its line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablecert.conformance.rule_file_check import check_rule_file
from tablecert.rules import RULES_DIR, load_rules
from tests.support.cli_support import tablecert

BUNDLED = sorted(p.stem for p in RULES_DIR.glob("*.toml"))


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_rule_file_is_computable(name: str) -> None:
    result = check_rule_file(load_rules(name))
    assert result.computable, [c.refused for c in result.capabilities if c.refused]
    run = tablecert(["rules", "check", name, "--json"])
    assert run.code == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["schema"] == "tablecert.rules-check/1"
    assert doc["file"] == f"{name}.toml"
    assert all(c["computable"] for c in doc["capabilities"])


def test_readings_house_choices_and_duties_are_listed() -> None:
    doc = check_rule_file(load_rules("caribbean-stud.macau")).as_json()
    assert "ranking.ace_low_straight_suit" in doc["readings"]
    assert "progressive.seed" in doc["house_choices"]
    assert list(doc["duties"]) == ["play.raise_pays.royal-flush"]
    assert {c["name"].split(" (")[0] for c in doc["capabilities"]} == {
        "hand ranking",
        "round settlement",
        "par sheet and strategy",
        "progressive and its meter",
    }


def _variant(tmp_path: Path, line: int, old: str, new: str) -> Path:
    lines = (RULES_DIR / "q-poker.macau.toml").read_text(encoding="utf-8").splitlines()
    assert lines[line - 1].startswith(old), lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    path = tmp_path / "q-poker.variant.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _line(key: str) -> int:
    # The line of a table's key in the bundled statute (e.g. "flush = { value = 4").
    lines = (RULES_DIR / "q-poker.macau.toml").read_text(encoding="utf-8").splitlines()
    return next(i for i, text in enumerate(lines, 1) if text.startswith(key))


def test_a_payout_the_engines_cannot_read_is_refused_where_it_is_needed(tmp_path: Path) -> None:
    line = _line("flush = { value = 4")
    path = _variant(tmp_path, line, "flush = { value = 4", 'flush = { value = "four"')
    result = check_rule_file(load_rules(path))
    refused = {c.name.split(" (")[0]: c.refused for c in result.capabilities}
    assert refused["hand ranking"] == ""  # the ranking does not read the pay table
    for name in ("round settlement", "par sheet and strategy"):
        assert f":{line}: pair_plus.flush: expected an integer or a fraction" in refused[name]
    run = tablecert(["rules", "check", str(path)])
    assert run.code == 2
    assert run.error_lines[-1] == (
        "error: q-poker.variant.toml: refused for round settlement (audit rounds, simulate "
        "rounds); par sheet and strategy (analyze q-poker)"
    )


def test_a_ranking_the_engine_does_not_have_is_refused_everywhere(tmp_path: Path) -> None:
    line = _line("ace_low_straight = ")
    path = _variant(
        tmp_path,
        line,
        'ace_low_straight = { value = "lowest"',
        'ace_low_straight = { value = "highest"',
    )
    result = check_rule_file(load_rules(path))
    assert not result.computable
    assert all(
        f":{line}: ranking.ace_low_straight: 'highest' is not one of lowest" in c.refused
        for c in result.capabilities
    )


def test_an_unreadable_file_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "broken.toml"
    path.write_text('[game]\nid = { value = "q-poker" }\n', encoding="utf-8")
    run = tablecert(["rules", "check", str(path)])
    assert run.code == 2
    assert "every rule value must cite its article" in run.stderr
