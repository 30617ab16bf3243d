"""Whole hands of play replayed under the statute (tablecert.mahjong.replay): the seeded corpus
in fixtures/mahjong/ (every legal record valid and settled as the engine settles its final
state, every illegal one refused with the article it breaks), and hand-made hands for each
rule the corpus does not reach."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tablecert import mahjong
from tablecert.cli import app
from tablecert.errors import MahjongError
from tablecert.mahjong.corpus import SIMPLE, TRAD, corpus, legal_game
from tablecert.mahjong.replay import Replay, replay
from tests.support.cli_support import tablecert_process
from tests.support.mahjong_support import (
    FED,
    FILLER,
    FLUSH,
    SOUTH_WAITS_5P,
    game_record,
    paid,
    turns,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "mahjong"
runner = CliRunner()


def lines(name: str) -> list[dict[str, Any]]:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.mark.parametrize("name", ["traditional", "simple"])
def test_every_legal_record_is_valid_and_settles_as_the_engine(name: str) -> None:
    records = lines(f"games-{name}.jsonl")
    assert len(records) == 40
    outcomes = set()
    for record in records:
        played = replay(record)
        assert played.valid, [v.text for v in played.violations]
        outcomes.add(played.outcome)
        assert played.settlement is not None
        if played.outcome == "drawn":
            assert played.settlement.payments == ()
            assert played.final_record is None
            continue
        engine = mahjong.settle_record(played.final_record)
        assert engine.settlement == played.settlement
        assert (engine.fan.fan if engine.fan else None) == (played.fan.fan if played.fan else None)
    assert outcomes == {"win", "false-win", "drawn"}


@pytest.mark.parametrize("name", ["traditional", "simple"])
def test_every_illegal_record_is_refused_with_its_article(name: str) -> None:
    items = lines(f"games-illegal-{name}.jsonl")
    kinds = {item["mutation"] for item in items}
    assert len(kinds) >= 9
    for item in items:
        played = replay(item["record"])
        assert not played.valid, item["mutation"]
        assert played.violations[0].article == item["breaks"], (
            item["mutation"],
            played.violations[0].text,
        )
        assert played.settlement is None


def test_the_corpus_is_what_the_script_generates() -> None:
    """scripts/mahjong-game-corpus.py (seed 19, 40 legal records per game) regenerates the
    bundled files exactly."""
    for game, name in ((TRAD, "traditional"), (SIMPLE, "simple")):
        legal, illegal = corpus(game, 40, 19)
        assert json.loads(json.dumps(legal)) == lines(f"games-{name}.jsonl")
        assert json.loads(json.dumps(illegal)) == lines(f"games-illegal-{name}.jsonl")


# --- hand-made hands (a deal instead of a wall: every draw states its tile) ------------------


def trad(events: list[dict[str, Any]], **deal: str) -> dict[str, Any]:
    return game_record({"N": FILLER, **deal}, events)


def first(played: Replay) -> tuple[int, str]:
    v = played.violations[0]
    return v.event, v.article


# E discards 5p first; South waits on 5p (chows) and so does West (pung of 5p).
TWO_WAIT = {
    "E": "5p 1s 1s 1s 3s 3s 3s 9p 9p 9p E E E Wd",
    "S": SOUTH_WAITS_5P,
    "W": "1p 2p 3p 5s 6s 7s 8s 8s 8s N N 5p 5p",
}


def test_several_winners_first_counter_clockwise_from_the_discarder() -> None:
    """第五条(甲)(6): South and West both win on East's first discard; South sits first
    counter-clockwise from East, so South wins (an earthly hand, 2 fan: East pays 400, West
    and North 200). Awarding it to West is refused."""
    claims = [{"seat": "W", "win": {}}, {"seat": "S", "win": {}}]
    ok = replay(
        trad([{"seat": "E", "discard": "5p"}, {"claims": claims, "awarded": "S"}], **TWO_WAIT)
    )
    assert ok.valid
    assert ok.winner == "S"
    assert ok.fan is not None
    assert "earthly_hand" in {i.name for i in ok.fan.items}
    assert paid(ok) == {("E", "S"): 400, ("W", "S"): 200, ("N", "S"): 200}
    wrong = replay(
        trad([{"seat": "E", "discard": "5p"}, {"claims": claims, "awarded": "W"}], **TWO_WAIT)
    )
    assert first(wrong) == (2, "第五条(甲)(6)")
    assert "first counter-clockwise from the discarder, S" in wrong.violations[0].message


def test_pung_before_chow_and_chow_only_from_the_left() -> None:
    """第五条(甲)(3): South may chow East's 5p (4p 6p in hand) but West's pung takes it; West
    cannot chow it at all (only South, East's 下家, may)."""
    claims = [
        {"seat": "S", "chow": "4p 5p 6p"},
        {"seat": "W", "pung": "5p 5p 5p"},
    ]
    chow_wins = replay(
        trad([{"seat": "E", "discard": "5p"}, {"claims": claims, "awarded": "S"}], **TWO_WAIT)
    )
    assert first(chow_wins) == (2, "第五条(甲)(3)")
    pung = replay(
        trad(
            [{"seat": "E", "discard": "5p"}, {"claims": claims, "awarded": "W"}],
            **TWO_WAIT,
        )
    )
    # The pung is legal; the record then ends before the hand does (第四条).
    assert first(pung) == (2, "第四条")
    west_chow = replay(
        trad(
            [{"seat": "E", "discard": "5p"}, {"seat": "W", "chow": "5p 6p 7p"}],
            **TWO_WAIT,
        )
    )
    assert first(west_chow) == (2, "第五条(甲)(3)")


def test_heavenly_hand_is_derived_from_the_play() -> None:
    """The dealer's dealt 14 tiles are complete and the dealer wins at once: 天糊, 2 fan."""
    played = replay(
        trad(
            [{"seat": "E", "win": {}}],
            E="1m 1m 1m 4m 5m 6m 7m 8m 9m 1p 2p 3p 5s 5s",
            S="1s 1s 1s 2s 2s 2s 3s 3s 3s 4s 4s 4s 6s",
            W="7p 7p 7p 8p 8p 8p 9p 9p 9p N N N E",
        )
    )
    assert played.valid
    assert played.fan is not None
    assert [i.name for i in played.fan.items] == ["heavenly_hand"]
    assert played.final_record is not None
    assert played.final_record["context"]["heavenly"]


WRONG_CHOW = {
    "E": "3m 1s 1s 1s 3s 3s 3s 9p 9p 9p E E E Wd",
    "S": "4m 5m 6m 1p 2p 3p 7s 8s 9s 9m 9m N N",
    "W": "1m 2m 4p 4p 4p 5p 5p 5p 6p 6p 6p 2s 2s",
}


def test_wrong_chow_corrected_within_a_round_then_a_valid_win() -> None:
    """10(甲)(7): South chows 3m with 4m 6m (拈错) and corrects it at once to 3m 4m 5m; South
    then wins on West's N (pung of N, pair of 9m): a valid win."""
    events: list[dict[str, Any]] = [
        {"seat": "E", "discard": "3m"},
        {"seat": "S", "chow": "3m 4m 6m"},
        {"seat": "S", "correct": "3m 4m 5m"},
        {"seat": "S", "discard": "6m"},
        *turns("W N N"),
        {"seat": "S", "win": {}},
    ]
    played = replay(trad(events, **WRONG_CHOW))
    assert played.valid
    assert played.outcome == "win"
    assert played.winner == "S"


def test_wrong_chow_never_corrected_makes_the_win_a_false_win() -> None:
    """10(甲)(7)/(8): the wrong chow stays; South's win is 詐糊: a non-dealer pays the dealer
    as 2 fan (double share of the upper limit, 400) and the others as 1 fan (100 each)."""
    events: list[dict[str, Any]] = [
        {"seat": "E", "discard": "3m"},
        {"seat": "S", "chow": "3m 4m 6m"},
        {"seat": "S", "discard": "N"},
        *turns("W 9m 9m"),
        {"seat": "S", "win": {}},
    ]
    played = replay(trad(events, **WRONG_CHOW))
    assert played.valid
    assert played.outcome == "false-win"
    assert paid(played) == {("S", "E"): 400, ("S", "W"): 100, ("S", "N"): 100}


def test_wrong_chow_corrected_after_a_round_is_refused() -> None:
    events = [
        {"seat": "E", "discard": "3m"},
        {"seat": "S", "chow": "3m 4m 6m"},
        {"seat": "S", "discard": "N"},
        # Two rounds and more pass before South corrects the chow.
        *turns("W 2p 2p", "N 7s 7s", "E 8s 8s", "S 7p 7p", "W 1p 1p", "N 8p 8p", "E 9s 9s"),
        *turns("S 3p 3p", "W 2m 2m", "N 1m 1m", "E 6s 6s"),
        {"seat": "S", "draw": "5s"},
        {"seat": "S", "correct": "3m 4m 5m"},
    ]
    played = replay(trad(events, **WRONG_CHOW))
    assert first(played) == (len(events), "第十条(甲)(7)")


def test_robbing_only_a_kong_added_to_an_exposed_pung() -> None:
    """第六条(甲)(2) 抢别家明杠（先碰出，再开杠）: West pungs East's 5s, later draws the fourth 5s
    and adds it; North (4s 6s waiting) robs it: robbing_kong, 1 fan. Robbing a concealed kong
    is refused."""
    hands = {
        "E": "5s 1p 1p 1p 3p 3p 3p 9p 9p 9p E E E Wd",
        "S": "1m 1m 1m 2m 2m 2m 3m 3m 3m 7s 7s 7s 9m",
        "W": "5s 5s 2p 2p 2p 8s 8s 8s 9s 9s 9s W W",
        "N": "4s 6s 4m 5m 6m 4p 5p 6p 7m 8m 9m Rd Rd",
    }
    events = [
        {"seat": "E", "discard": "5s"},
        {"seat": "W", "pung": "5s 5s 5s"},
        {"seat": "W", "discard": "W"},
        *turns("N Gd Gd", "E Gd Gd", "S Gd Gd"),
        {"seat": "W", "draw": "5s"},
        {"seat": "W", "kong": "5s", "from": "pung"},
        {"seat": "N", "win": {}},
    ]
    played = replay(game_record(hands, events))
    assert played.valid, [v.text for v in played.violations]
    assert played.fan is not None
    assert [i.name for i in played.fan.items] == ["robbing_kong"]
    assert played.final_record is not None
    assert played.final_record["context"]["win_by"] == "robbed-kong"
    concealed = {
        **hands,
        "E": "Wd 1p 1p 1p 3p 3p 3p 9p 9p 9p E E E Wd",
        "W": "5s 5s 5s 2p 2p 2p 8s 8s 8s 9s 9s 9s W",
    }
    robbed = [
        {"seat": "E", "discard": "E"},
        *turns("S Gd Gd"),
        {"seat": "W", "draw": "5s"},
        {"seat": "W", "kong": "5s", "from": "hand"},
        {"seat": "N", "win": {}},
    ]
    refused = replay(game_record(concealed, robbed))
    assert first(refused) == (6, "第六条(甲)(2)")


def test_simple_game_claimed_win_with_an_invalid_hand_is_a_false_win() -> None:
    """10(乙)(3): South claims East's 9s with a hand that is no set and pair: 詐糊, South pays
    the dealer and West a 1 fan share each (dealer double: 200; West 100; North 100)."""
    record = {
        "game": SIMPLE,
        "limit": "100/200",
        "deal": {
            "E": "9s 1m 1m 1m 2p",
            "S": "3m 4m 7p 7p",
            "W": "5s 5s 5s 6s",
            "N": "Gd Gd Gd 8p",
        },
        "play": [{"seat": "E", "discard": "9s"}, {"seat": "S", "win": {}}],
    }
    played = replay(record)
    assert played.valid
    assert played.outcome == "false-win"
    assert paid(played) == {("S", "E"): 200, ("S", "W"): 100, ("S", "N"): 100}


def test_malformed_records_are_errors_naming_the_event_and_key(tmp_path: Path) -> None:
    bad = trad([{"seat": "E", "discard": 5}], **TWO_WAIT)
    with pytest.raises(MahjongError, match=r"play\[0\]\.discard: expected tile codes"):
        replay(bad)
    with pytest.raises(MahjongError, match=r"play\[0\]: an event is exactly one of"):
        replay(trad([{"seat": "E", "discard": "5p", "draw": "5p"}], **TWO_WAIT))
    with pytest.raises(MahjongError, match=r"deal\.S: S is dealt 13 tiles"):
        replay(trad([{"seat": "E", "discard": "5p"}], **{**TWO_WAIT, "S": "1m 2m"}))


def test_cli_replay_exit_codes(tmp_path: Path) -> None:
    """0 valid, 1 violations (each with its event and article), 2 malformed input."""
    legal = tmp_path / "legal.json"
    legal.write_text(json.dumps(lines("games-traditional.jsonl")[0]), encoding="utf-8")
    result = runner.invoke(app, ["mahjong", "replay", str(legal), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["verdict"] == "valid"
    item = lines("games-illegal-traditional.jsonl")[0]
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps(item["record"]), encoding="utf-8")
    result = runner.invoke(app, ["mahjong", "replay", str(illegal)])
    assert result.exit_code == 1
    assert f"({item['breaks']})" in result.stdout
    assert "violation: event " in result.stdout
    broken = tmp_path / "broken.json"
    broken.write_text('{"game": "mahjong-traditional", "play": [], "play": []}', "utf-8")
    done = tablecert_process(["mahjong", "replay", str(broken)])
    assert done.returncode == 2
    assert f"{broken}:1: duplicate key 'play'" in done.stderr


def test_crosscheck_takes_game_records(tmp_path: Path) -> None:
    """A scorer answering for whole game records: the statute scorer conforms; one that has
    the dealer pay a single share deviates on the non-dealer wins."""
    from tablecert.conformance import mahjong_crosscheck
    from tablecert.conformance.evaluator_protocol import open_evaluator

    records = mahjong_crosscheck.load_corpus(FIXTURES / "games-traditional.jsonl")
    spec = str(
        Path(__file__).resolve().parents[2] / "fixtures" / "evaluators" / "vendor_mahjong.py"
    )
    good = mahjong_crosscheck.crosscheck(
        TRAD, records, open_evaluator(f"{spec}:statute", 10), "statute"
    )
    assert good.passed
    assert good.records == 40
    bad = mahjong_crosscheck.crosscheck(
        TRAD, records, open_evaluator(f"{spec}:single_share_dealer", 10), "single"
    )
    assert not bad.passed
    assert "non-dealer wins (第七条)" in {d.kind for d in bad.defects}
    assert "dealer's wins (第七条)" not in {d.kind for d in bad.defects}


TWELFTH = {"liability": "fed_twelfth_full_flush_tile"}


def test_fed_twelfth_full_flush_tile_pays_for_one_round() -> None:
    """第十条(甲)(2) 供清一色十二章者，包摸一輪: East fed South's fourth exposed pung of a 萬子
    full flush; South self-draws the 9m pair on the next draw: East pays all (full flush 2 +
    all pungs 1, capped at 2: 400 + 200 + 200 = 800). A round later it is refused."""
    events = [*FED, {"seat": "S", "draw": "9m"}, {"seat": "S", "win": TWELFTH}]
    played = replay(trad(events, **FLUSH))
    assert played.valid, [v.text for v in played.violations]
    assert paid(played) == {("E", "S"): 800}
    late = [
        *FED,
        *turns("S 8p 8p", "W 1s 1s", "N 2s 2s", "E 3s 3s"),
        {"seat": "S", "draw": "9m"},
        {"seat": "S", "win": TWELFTH},
    ]
    refused = replay(trad(late, **FLUSH))
    assert first(refused) == (len(late), "第十条(甲)(2)")


def test_game_records_are_a_shuffler_audit_log() -> None:
    """The corpus lines carry device_id, timestamp and shuffle_id: the shuffler audit reads
    them as a JSON Lines log (the wall is the output order) with no bad record, and deals each
    wall for the dealt-hand test."""
    path = FIXTURES / "games-traditional.jsonl"
    result = runner.invoke(app, ["audit", "shuffler", str(path), "--deck", "mahjong136", "--json"])
    assert result.exit_code in (0, 1, 3), result.output
    data = json.loads(result.stdout)
    assert data["integrity"]["bad_count"] == 0
    assert data["integrity"]["records"] == 40


def _fresh_seeds(count: int) -> None:
    for game in (TRAD, SIMPLE):
        for seed in range(10**6, 10**6 + count):
            record = legal_game(game, seed)
            played = replay(record)
            assert played.valid, (game, seed, [v.text for v in played.violations])
            if played.final_record is not None:
                assert mahjong.settle_record(played.final_record).settlement == played.settlement


def test_fresh_seeds_replay_valid_and_settle_as_the_engine() -> None:
    """Beyond the bundled corpus: hands from seeds it does not use."""
    _fresh_seeds(15)


@pytest.mark.slow
def test_many_fresh_seeds_replay_valid_and_settle_as_the_engine() -> None:
    _fresh_seeds(400)


def test_result_that_the_play_does_not_give_is_refused() -> None:
    """The record says West won, the play gives South: 第四条(甲), the record itself (event 0)."""
    record = lines("games-traditional.jsonl")[0]
    played = replay(record)
    assert played.winner == "S"
    wrong = replay({**record, "result": {"winner": "W"}})
    assert first(wrong) == (0, "第四条(甲)")
    assert replay({**record, "result": {"winner": "S"}}).valid
