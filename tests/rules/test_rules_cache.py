"""A rule file is read once per process while it is unchanged, and read afresh when edited."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tablecert import poker
from tablecert.errors import CardError, GameError
from tablecert.io.inputs import read_input
from tablecert.rules import loader

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def test_an_unchanged_file_is_not_read_again_and_an_edited_one_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = tmp_path / "q.toml"
    shutil.copy(FIXTURES / "rules" / "q-poker.macau.toml", rules)
    reads: list[Path] = []

    def counted(path: Path) -> bytes:
        reads.append(path)
        return read_input(path)

    monkeypatch.setattr(loader, "read_input", counted)
    first = loader.load_rules(rules)
    assert loader.load_rules(rules) is first
    assert loader.load_rules(str(rules)) is first  # the same content parses once
    assert len(reads) == 2  # one read per spelling of the source, then none
    for _ in range(100):
        loader.load_rules(rules)
    assert len(reads) == 2
    # an edit (a title changed: same size, new mtime) is seen at once
    text = rules.read_text(encoding="utf-8")
    rules.write_text(
        text.replace("(Macau statute 89/2004)", "(Macau statute 89/2005)", 1), encoding="utf-8"
    )
    stat = rules.stat()
    os.utime(rules, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    edited = loader.load_rules(rules)
    assert edited is not first
    assert edited.sha256 != first.sha256
    assert len(reads) == 3


def test_the_statute_ordering_is_built_once() -> None:
    assert poker.ordering("q-poker") is poker.ordering("q-poker")
    assert poker.ordering("q-poker").rules.path.name == "q-poker.macau.toml"
    with pytest.raises(GameError, match="unknown game"):
        poker.ordering("q-pokr")


def test_compare_agrees_with_decide() -> None:
    pairs = [("As Ks Qs", "2h 3h 4h"), ("9s 9h 5d", "9c 9d 5s"), ("2c 3d 5h", "2d 3c 5s")]
    for a, b in pairs:
        assert poker.compare("q-poker", a, b) == poker.decide("q-poker", a, b).outcome
    with pytest.raises(CardError, match="share"):
        poker.compare("q-poker", "As Ks Qs", "As 2h 3h")
