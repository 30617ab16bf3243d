"""The progressive of a game described by its rule file (``analyze game``, ``rules check``).

Caribbean Stud's progressive stays byte for byte what it was on every bundled file that has
one (``data/progressive-caribbean.json`` was written by the dedicated path before the
progressive was read as part of a game's description; both bundled files set the same
progressive); the statute's game written in the generic layout gives exactly the statute
file's progressive figures; ``analyze game`` prints and emits the progressive's sheet, and
``rules check`` lists it as computable, or refused with the reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablecert.games import stud
from tablecert.games.progressive import progressive, progressive_of
from tablecert.poker import ordering
from tablecert.rules import load_rules
from tablecert.rules.stud import describe
from tests.support.cli_support import tablecert
from tests.support.games_support import caribbean
from tests.support.generic_caribbean import generic_caribbean
from tests.support.hostile import run_cli

GOLDEN = Path(__file__).resolve().parent / "data" / "progressive-caribbean.json"


def _text(data: object) -> str:
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


@pytest.mark.parametrize("rules", ["caribbean-stud.macau", "caribbean-stud.standard"])
def test_caribbeans_progressive_is_byte_identical(rules: str) -> None:
    order = ordering("caribbean-stud", rules)
    assert _text(progressive(order.rules, order.tie_breaks).as_json()) == GOLDEN.read_text(
        encoding="utf-8"
    )


def test_analyze_caribbean_stud_emits_the_same_progressive(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    caribbean("caribbean-stud.macau")  # fills the test cache the CLI reads
    run = run_cli(
        ["analyze", "caribbean-stud", "--rules", "caribbean-stud.macau", "--json"],
        monkeypatch,
        capsys,
    )
    assert run.code == 0, run.err
    assert json.loads(run.out)["progressive"] == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_the_generic_copy_gives_the_statutes_progressive(tmp_path: Path) -> None:
    d = describe(load_rules(generic_caribbean(tmp_path)))
    assert d.progressive is not None
    described = progressive_of(d.progressive, d.ranking)
    order = ordering("caribbean-stud", "caribbean-stud.macau")
    statute = progressive(order.rules, order.tie_breaks)
    assert described == statute  # every prize, count, article and reading
    assert _text(described.as_json()) == GOLDEN.read_text(encoding="utf-8")
    assert described.article == "第十条"


@pytest.fixture(scope="module")
def no_upcard(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The generic copy with the dealer's cards all face down: a quick full analysis."""
    return generic_caribbean(tmp_path_factory.mktemp("progressive"), upcards=0)


def test_analyze_game_emits_the_progressive(no_upcard: Path) -> None:
    run = tablecert(["analyze", "game", str(no_upcard), "--json"])
    assert run.code == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["progressive"] == json.loads(GOLDEN.read_text(encoding="utf-8"))
    assert data["progressive"]["return_at_meter"]["decimal"] == "-0.184827777265"
    assert data["progressive"]["long_run"]["player_advantage"] is True
    # The bet against the dealer is the no-upcard game's, computed beside it.
    assert data["house_edge"]["exact"] == "155834621/2931357429"


def test_analyze_game_prints_the_progressive(no_upcard: Path) -> None:
    run = tablecert(["analyze", "game", str(no_upcard)], env={"COLUMNS": "120"})
    assert run.code == 0, run.stderr
    out = run.stdout
    assert "progressive (第十条): prizes per unit bet 1, meter 200,000" in out
    rows = {
        line.split("第十条")[0].strip(): line.split("第十条", 1)[1].split()
        for line in out.replace("│", " ").splitlines()
        if "第十条(二)(" in line
    }
    assert rows["royal flush"] == ["(二)(1)", "4", "0.000001539", "0", "100.00%", "200,000"]
    assert rows["four of a kind"] == ["(二)(3)", "624", "0.000240096", "100", "-", "100"]
    assert (
        "progressive: return -18.4828% at meter 200,000; break-even meter 263,205.26; with 7 "
        "players sharing royals -18.4830%"
    ) in out
    assert "progressive over the meter's cycles: PLAYER ADVANTAGE: the prizes pay 1.0073" in out


def test_a_game_without_a_progressive_has_none() -> None:
    sheet = stud.analyze("q-poker.standard")
    assert sheet.progressive is None
    assert "progressive" not in sheet.as_json()


def test_rules_check_lists_the_progressive(tmp_path: Path) -> None:
    path = generic_caribbean(tmp_path)
    run = tablecert(["rules", "check", str(path), "--json"])
    assert run.code == 0, run.stderr
    capabilities = {c["name"]: c for c in json.loads(run.stdout)["capabilities"]}
    jackpot = capabilities["progressive and its meter (analyze game)"]
    assert jackpot == {**jackpot, "needs": "[progressive]", "computable": True, "refused": None}
    bad = tmp_path / "bad.toml"
    text = path.read_text(encoding="utf-8")
    bad.write_text(
        text.replace(
            'players = { value = 7, article = "第二条"', 'players = { value = 0, article = "第二条"'
        ),
        encoding="utf-8",
    )
    again = tablecert(["rules", "check", str(bad), "--json"])
    capabilities = {c["name"]: c for c in json.loads(again.stdout)["capabilities"]}
    refused = capabilities["progressive and its meter (analyze game)"]["refused"]
    assert refused.endswith(": progressive.players: between 1 and 7 player seats")
    assert str(bad) in refused
