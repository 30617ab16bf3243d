"""Strict JSON from outside (game records, configurations, envelopes): text only."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablecert.io import strict_json
from tests.support.cli_support import tablecert
from tests.support.plan_support import write_plan

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_a_lone_surrogate_is_not_text(tmp_path: Path) -> None:
    """``"\\ud800"`` decodes to no character: refused, naming its line; a surrogate pair
    that makes one character is kept."""
    with pytest.raises(
        strict_json.StrictJsonError, match=r"f.json:3: a string holds a lone surrogate \(U\+DC00"
    ):
        strict_json.loads('{\n"b": 1,\n"\\uDC00k": 2}', "f.json")
    assert strict_json.loads('{"ok": "\\ud83d\\ude00"}', "f.json") == {"ok": "\U0001f600"}
    record = (FIXTURES / "mahjong" / "games-traditional.jsonl").read_text().splitlines()[0]
    bad = tmp_path / "bad.json"
    bad.write_text(record.replace('"AMT-TRAD"', '"AMT-\\ud800"'), encoding="utf-8")
    run = tablecert(["mahjong", "replay", str(bad)])
    assert run.code == 2, run.stderr
    assert run.error_lines == [
        f"error: {bad}:1: a string holds a lone surrogate (U+D800), which is not a character"
    ]


def test_messages_show_values_in_the_input_s_notation(tmp_path: Path) -> None:
    from decimal import Decimal

    from tablecert.notation import written

    assert [written(v) for v in (True, Decimal("1.0"), "A", ["A", "K"], {"a": 1})] == [
        "true",
        "1.0",
        "'A'",
        "['A', 'K']",
        "{'a' = 1}",
    ]
    assert written("it's") == '"it\'s"'
    assert written("x" * 200).endswith("...")
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n[[section]]\nkind = "rng-audit"\nfiles = ["a.bin"]\n'
        "bits = true\n",
    )
    (tmp_path / "a.bin").write_bytes(b"\x00" * 16)
    run = tablecert(["certify", str(plan), "-o", str(tmp_path / "out")])
    assert run.code == 2, run.stderr
    assert run.stderr.rstrip().endswith("bits: expected an integer, got true")


def test_a_byte_order_mark_is_no_part_of_a_json_input(tmp_path: Path) -> None:
    assert strict_json.loads('\ufeff{"a": 1}', "f.json") == {"a": 1}
    record = (FIXTURES / "mahjong" / "games-traditional.jsonl").read_text().splitlines()[0]
    with_bom = tmp_path / "record.json"
    with_bom.write_text("\ufeff" + record, encoding="utf-8")
    run = tablecert(["mahjong", "replay", str(with_bom)])
    assert run.code == 0, run.stderr
    assert "utf-8-sig" not in run.stderr


def test_an_outside_value_in_an_error_is_escaped_once() -> None:
    run = tablecert(["hands", "q\x1b[2J"])
    assert run.code == 2
    assert "unknown game 'q\\x1b[2J'" in run.stderr  # one backslash, as the repr wrote it
    assert "\\\\x1b" not in run.stderr
    assert "\x1b" not in run.stderr
