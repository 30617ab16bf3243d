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


def test_a_bundled_file_by_name_is_read_once_and_never_stated_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Part of the installed package, like its code: a loop of evaluate calls on a bundled
    # described game costs no system call for the file.
    first = loader.load_rules("four-card-poker.standard")
    calls: list[object] = []
    real_stat = os.stat

    def counted(path: object, *args: object, **kwargs: object) -> os.stat_result:
        calls.append(path)
        return real_stat(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "stat", counted)
    for _ in range(10):
        assert loader.load_rules("four-card-poker.standard") is first
        poker.evaluate("four-card-poker.standard", "As Kd Qh Jc 9s")
    assert calls == []
    # A file by its path is still stated on every call (an edit is seen at once).
    path = FIXTURES / "rules" / "four-card-poker.standard.toml"
    loader.load_rules(path)
    calls.clear()
    loader.load_rules(path)
    assert calls == [str(path)]


def test_a_described_games_ordering_is_built_once_per_parsed_file(tmp_path: Path) -> None:
    rules = tmp_path / "four.toml"
    shutil.copy(FIXTURES / "rules" / "four-card-poker.standard.toml", rules)
    first = poker.game_ordering(str(rules))
    assert poker.game_ordering(str(rules)) is first
    assert first.articles[-1] == "Rules: hand ranks"
    text = rules.read_text(encoding="utf-8")
    # An edit of the top category's article is a new file, so a new ordering.
    top = 'value = ["rank of the four", "(cannot tie in one deck)"]\narticle = "Rules: hand ranks"'
    edited = text.replace(top, top.replace("hand ranks", "ranks, edited"), 1)
    assert edited != text
    rules.write_text(edited, encoding="utf-8")
    stat = rules.stat()
    os.utime(rules, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    second = poker.game_ordering(str(rules))
    assert second is not first
    assert second.articles[-1] == "Rules: ranks, edited"
