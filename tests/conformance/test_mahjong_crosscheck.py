"""Vendor mahjong scorers against the statute: fan and payments on a corpus of game records."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.conformance import mahjong_crosscheck as mc
from tablecert.conformance.evaluator_protocol import open_evaluator
from tablecert.errors import MahjongError
from tablecert.mahjong.record import settle_record

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "fixtures" / "evaluators" / "vendor_mahjong.py"
CORPUS = ROOT / "fixtures" / "mahjong" / "corpus-traditional.jsonl"


def run(spec: str, records: list[dict[str, object]] | None = None) -> mc.ScorerReport:
    records = records if records is not None else mc.load_corpus(CORPUS)
    return mc.crosscheck("mahjong-traditional", records, open_evaluator(spec, 10), spec)


def test_bundled_corpus_is_settled_by_the_statute_scorer() -> None:
    report = run(f"{VENDOR}:statute")
    assert report.passed
    assert report.records == 300


def test_expected_answer_of_a_worked_record() -> None:
    """Non-dealer S wins by self-draw at 100/200 with a dragon pung and all pungs (1 + 1 = 2
    fan, 第六条(甲)(2)): a 2 fan share is the upper limit, 200; the dealer pays a double share
    (400), W and N a single share (200) (第七条); commission 40 is taken from the winner
    (第八条(甲)): S nets 800 - 40 = 760."""
    record = {
        "game": "mahjong-traditional",
        "limit": "100/200",
        "winner": "S",
        "hand": "1m 1m 1m 5p 5p 5p 9s 9s 9s Rd Rd Rd E E",
        "context": {"round_wind": "E", "win_by": "self-drawn"},
    }
    answer = json.loads(json.dumps(mc.expected_answer(settle_record(record))))
    assert answer == {
        "fan": 2,
        "net": {"E": -400, "S": 760, "W": -200, "N": -200},
        "commission": 40,
    }


def test_uncapped_scorer_is_caught_and_named() -> None:
    report = run(f"{VENDOR}:uncapped")
    assert not report.passed
    assert {d.field for d in report.defects} == {"fan"}
    assert all(
        "raw fan above the cap of 2 (第六条(甲)(3))" in d.common_features for d in report.defects
    )


def test_single_share_dealer_is_caught_and_named() -> None:
    report = run(f"{VENDOR}:single_share_dealer")
    top = report.defects[0]
    assert (top.field, top.kind) == ("net result, the dealer's (E)", "non-dealer wins (第七条)")
    assert top.count == top.of  # every non-dealer win


def test_corpus_generation_is_seeded_and_valid() -> None:
    a = mc.generate_corpus("mahjong-simple", 50, seed=3)
    assert a == mc.generate_corpus("mahjong-simple", 50, seed=3)
    report = mc.crosscheck("mahjong-simple", a, open_evaluator(f"{VENDOR}:statute"), "statute")
    assert report.passed


def scorer_failed(report: mc.ScorerReport, pattern: str) -> None:
    """A scorer that fails part way fails the crosscheck with the reason, never passes."""
    assert re.search(pattern, report.error), report.error
    assert report.verdict == "deviates"
    assert report.as_json()["error"] == report.error


def test_bad_scorer_answers_and_corpora(tmp_path: Path) -> None:
    records = mc.generate_corpus("mahjong-traditional", 5, seed=1)
    bad = tmp_path / "bad.py"
    bad.write_text(
        "def text(r):\n    return 'two fan'\ndef partial(r):\n    return '{\"fan\": 1}'\n"
    )
    scorer_failed(run(f"{bad}:text", records), "not JSON")
    scorer_failed(run(f"{bad}:partial", records), "expected an object with fan, net, commission")
    hang = tmp_path / "hang.py"
    hang.write_text("import time\ntime.sleep(30)\n")
    scorer_failed(
        mc.crosscheck(
            "mahjong-traditional",
            records,
            open_evaluator(f"cmd:{sys.executable} {hang}", 1.0),
            "hang",
        ),
        "hung",
    )
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\ndef f(r):\n    sys.exit(0)\n")
    scorer_failed(run(f"{exits}:f", records), "scorer|evaluator raised SystemExit")
    short = tmp_path / "short.txt"
    requests = [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in records]
    answers = [json.dumps(mc.expected_answer(settle_record(r))) for r in records]
    short.write_text("".join(f"{r}\t{a}\n" for r, a in zip(requests[:2], answers, strict=False)))
    scorer_failed(run(f"file:{short}", records), "ends at line 3")

    broken = tmp_path / "corpus.jsonl"
    broken.write_text('{"game": "mahjong-traditional"}\n{not json\n')
    with pytest.raises(MahjongError, match=r"corpus\.jsonl:2: invalid JSON"):
        mc.load_corpus(broken)
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    with pytest.raises(MahjongError, match="the corpus is empty"):
        mc.load_corpus(empty)


def test_cli_mahjong_crosscheck() -> None:
    runner = CliRunner()
    args = ["crosscheck", "mahjong", "mahjong-traditional", "--corpus", str(CORPUS)]
    good = runner.invoke(app, [*args, "--scorer", f"{VENDOR}:statute", "--json"])
    assert good.exit_code == 0, good.output
    assert json.loads(good.stdout)["verdict"] == "conforms"
    bad = runner.invoke(app, [*args, "--scorer", f"{VENDOR}:uncapped"])
    assert bad.exit_code == 1
    assert "fan differs" in bad.stdout
