"""``tablecert simulate rounds --game FILE``: the package's simulator of a game described by its
rule file. Every bet it settles agrees with the slow reading of the rule text
(``tests/support/stud_rounds.py``); what it writes is audited clean by ``audit rounds --game
FILE``, the same bytes for a seed (for a game without a progressive, the bytes it wrote before
it played the progressive); the tests' generator draws the very same rounds from it; the
dedicated games' options are refused. The progressive: test_stud_simulate_progressive.py."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from tablecert.games.stud_settle import stud_settlement
from tablecert.rounds.stud_simulate import round_record, simulate, write_stud_rounds
from tablecert.rules import load_rules
from tests.support.cli_support import tablecert
from tests.support.stud_rounds import Rules, capped_rules, make_log, settle

FOUR = "four-card-poker.standard"
DESCRIBED = (
    FOUR,
    "caribbean-stud.no-upcard",
    "caribbean-stud.pair-qualifier",
    "q-poker.six-card-bonus",
    "q-poker.macau",
    "caribbean-stud.macau",
)


@pytest.mark.parametrize("game", DESCRIBED)
def test_every_simulated_bet_is_settled_as_the_rule_text_settles_it(game: str) -> None:
    st = stud_settlement(load_rules(game))
    rules = Rules.read(game)
    seats = 0
    decisions = set()
    for rnd in simulate(st, 1500, seed=17, seats=4):
        for seat in rnd.seats:
            # the progressive (caribbean-stud.macau's): its meter's test file
            bets = {b: seat.paid[b] for b in st.bets}
            assert bets == settle(rules, seat, rnd.dealer), (game, rnd.round_id, seat)
            seats += 1
            decisions.add(seat.decision)
    assert seats > 1500
    assert decisions == set(st.decisions)  # every decision of the game is played


def test_a_capped_raise_is_simulated_as_the_rule_text_caps_it(tmp_path: Path) -> None:
    path = capped_rules(tmp_path)
    st = stud_settlement(load_rules(path))
    rules = Rules.read(path)
    capped = 0
    for rnd in simulate(st, 1000, seed=4, seats=4):
        for seat in rnd.seats:
            assert seat.paid == settle(rules, seat, rnd.dealer), (rnd.round_id, seat)
            pay, _ = rules.value(f"settlement.raise.win.{rules.category(seat.cards)}")
            capped += seat.paid["raise"] == 150 < seat.stakes["raise"] * pay
    assert capped >= 3  # the cap decides some seats' raise


def test_the_tests_generator_draws_the_simulator_s_rounds() -> None:
    st = stud_settlement(load_rules(FOUR))
    log = make_log(FOUR, 200, seed=7, seats=3)
    ours = [round_record(st, rnd, i) for i, rnd in enumerate(simulate(st, 200, seed=7))]
    assert log.records() == ours


#: sha256 of 300 rounds of Four Card Poker, seed 2026, as written before the simulator played
#: the progressive (commit ac2aaef): a game without one is simulated byte for byte as then.
GOLDEN = {
    "golden.csv": "cf633fdd8b433c72c74583da4df748cd7dddf68eb448d0ae5b64d4cc44108b22",
    "golden.jsonl": "5e92687d1f5bafad6b9d1b66984a432b2b62108f421f4cc5383b125b0edf22e2",
}


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_a_game_without_a_progressive_is_simulated_as_before(tmp_path: Path, name: str) -> None:
    path = write_stud_rounds(tmp_path / name, load_rules(FOUR), 300, seed=2026)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == GOLDEN[name]


def _simulate(path: Path, game: str, *extra: str) -> None:
    run = tablecert(["simulate", "rounds", "--game", game, "-o", str(path), *extra])
    assert run.code == 0, run.stderr
    assert f"wrote 2,000 rounds of {Path(game).stem.removesuffix('.toml')}" in run.stderr


@pytest.mark.parametrize(
    ("game", "name"), [(FOUR, "log.csv.gz"), ("q-poker.six-card-bonus", "log.jsonl")]
)
def test_a_simulated_log_is_audited_clean_and_the_same_for_a_seed(
    tmp_path: Path, game: str, name: str
) -> None:
    first, again, other = tmp_path / "a" / name, tmp_path / "b" / name, tmp_path / "c" / name
    for path, seed in ((first, "5"), (again, "5"), (other, "6")):
        path.parent.mkdir()
        _simulate(path, game, "--rounds", "2000", "--seed", seed)
    assert first.read_bytes() == again.read_bytes()
    assert first.read_bytes() != other.read_bytes()
    assert not first.with_name(name + ".planted.json").exists()
    if name.endswith(".gz"):
        text = gzip.decompress(first.read_bytes()).decode()
        assert text.startswith("table_id,round_id,timestamp,dealer,upcard,")
    else:
        text = first.read_text(encoding="utf-8")
        assert json.loads(text.splitlines()[0])["round_id"] == "1"
    run = tablecert(["audit", "rounds", "--game", game, str(first), "--json"])
    assert run.code == 0, run.stdout + run.stderr
    result = json.loads(run.stdout)
    assert (result["verdict"], result["rounds"], result["findings_by_kind"]) == ("pass", 2000, {})
    assert result["seats"] > 2000


def test_the_game_is_named_by_its_file_path_too(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    run = tablecert(
        [
            "simulate",
            "rounds",
            "--game",
            str(load_rules(FOUR).path),
            "--rounds",
            "20",
            "-o",
            str(path),
        ]
    )
    assert run.code == 0, run.stderr
    assert path.read_text(encoding="utf-8").count("\nT1,") >= 20


@pytest.mark.parametrize(
    "option",
    [
        ["--error-share", "0.01"],
        ["--kinds", "pay-line"],
        ["--config", "x.toml"],
        ["--multi-share", "0.01"],
    ],
)
def test_options_of_the_dedicated_simulator_are_refused_for_a_described_game(
    tmp_path: Path, option: list[str]
) -> None:
    path = tmp_path / "log.csv"
    run = tablecert(
        ["simulate", "rounds", "--game", FOUR, "--rounds", "5", "-o", str(path), *option]
    )
    assert run.code == 2
    assert option[0] in run.stderr
    assert "described by its rule file" in run.stderr
    assert not path.exists()
