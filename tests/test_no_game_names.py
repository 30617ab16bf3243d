"""A game that exists only as data is named by no source: no Python or Rust file of the
package (outside the bundled data and its rule files) spells its name, so that no code path can
treat it specially. Four Card Poker, its Aces Up side bet, the six-card bonus and the two
Caribbean Stud variants are computed from their rule files alone.

The names are the ones these games go by, and every name the bundled files give a game that
has no engine of its own (its file's name) and every side bet (its id and its name), so that a
game added as data is covered when its file is. Names are matched whole, in any case, with any
of ``-``, ``_``, ``.``, a space or nothing between their words (``FourCardPoker``, ``aces_up``).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from pathlib import Path

import pytest

from tablecert.bundled import RULES_DIR, bundled_games

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "tablecert"
SOURCES = (PACKAGE, ROOT / "rust")
SUFFIXES = {".py", ".pyi", ".rs", ".j2", ".html", ".json", ".css", ".toml"}
#: The games with an engine of their own, whose names code may use.
DEDICATED = {"q-poker", "caribbean-stud", "mahjong-traditional", "mahjong-simple"}
#: The names the data-only games go by (the statutes' games' own names are not among them).
KNOWN_NAMES = (
    "four-card-poker",
    "six-card-bonus",
    "6 Card Bonus",
    "aces-up",
    "caribbean-stud.no-upcard",
    "caribbean-stud.pair-qualifier",
)


def data_names() -> set[str]:
    """The names the bundled rule files give data-only games and every side bet."""
    names = {
        name for game, files in bundled_games().items() if game not in DEDICATED for name in files
    }
    for path in RULES_DIR.glob("*.toml"):
        bets = tomllib.loads(path.read_text(encoding="utf-8-sig")).get("side_bets", {})
        for bet_id, bet in bets.items():
            names.add(bet_id)
            names.add(str(bet["name"]["value"]))
    return names


def pattern(names: Iterable[str]) -> re.Pattern[str]:
    """One regex for the names: whole words, any case, any separator or none between them."""
    spelled = [
        r"[-_. ]?".join(re.escape(word) for word in re.split(r"[-_. ]+", name))
        for name in sorted(set(names))
    ]
    return re.compile(r"(?<![A-Za-z0-9])(?:" + "|".join(spelled) + r")(?![A-Za-z0-9])", re.I)


def named(roots: Iterable[Path], names: re.Pattern[str], skip: Path) -> list[str]:
    """Every ``path:line: text`` of a source file under ``roots`` (not under ``skip``) where
    one of the names appears."""
    found = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file() or path.is_relative_to(skip):
                continue
            if "__pycache__" in path.parts:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for number, line in enumerate(text.splitlines(), 1):
                if names.search(line):
                    found.append(f"{path.relative_to(root.parent)}:{number}: {line.strip()}")
    return found


def test_the_names_cover_every_data_only_game_and_side_bet() -> None:
    names = data_names()
    assert {
        "four-card-poker.standard",
        "caribbean-stud.no-upcard",
        "caribbean-stud.pair-qualifier",
        "aces-up",
        "Aces Up",
        "six-card-bonus",
        "6 Card Bonus",
    } <= names
    assert not names & DEDICATED


def test_no_source_names_a_game_that_exists_only_as_data() -> None:
    found = named(SOURCES, pattern((*KNOWN_NAMES, *data_names())), PACKAGE / "data")
    assert found == [], "a data-only game named in code:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "line",
    [
        'DEFAULT = "four-card-poker.standard"',
        "if game == FourCardPoker:",
        "// Four Card Poker's order",
        "aces_up = 50",
        "the 6-card bonus pays",
        "SIX_CARD_BONUS",
        'load_rules("caribbean-stud.no-upcard")',
        "Caribbean_Stud.Pair_Qualifier",
    ],
)
def test_a_name_in_a_source_is_found(tmp_path: Path, line: str) -> None:
    source = tmp_path / "src" / "module.py"
    source.parent.mkdir()
    source.write_text(f"x = 1\n{line}\n", encoding="utf-8")
    found = named([tmp_path / "src"], pattern(KNOWN_NAMES), tmp_path / "data")
    assert found == [f"src/module.py:2: {line}"]


@pytest.mark.parametrize(
    "line",
    [
        "the dealer's six cards, best four of them",
        "a 4-card hand; four cards at a time",
        "Q Poker has no upcard",
        "two aces upward",
    ],
)
def test_words_of_the_rules_are_no_names(tmp_path: Path, line: str) -> None:
    source = tmp_path / "src" / "module.rs"
    source.parent.mkdir()
    source.write_text(line, encoding="utf-8")
    assert named([tmp_path / "src"], pattern(KNOWN_NAMES), tmp_path / "data") == []


def test_the_bundled_data_is_not_searched(tmp_path: Path) -> None:
    data = tmp_path / "src" / "data"
    data.mkdir(parents=True)
    (data / "game.toml").write_text('variant = "four-card-poker"\n', encoding="utf-8")
    assert named([tmp_path / "src"], pattern(KNOWN_NAMES), data) == []
