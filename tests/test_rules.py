"""Rule files: every value cites its article, and errors name the file, key and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablecert.errors import RuleFileError
from tablecert.poker import ordering
from tablecert.rules import RULES_DIR, load_rules


@pytest.mark.parametrize("path", sorted(RULES_DIR.glob("*.toml")), ids=lambda p: p.stem)
def test_bundled_rule_files_load(path: Path) -> None:
    rules = load_rules(path)
    assert rules.require("game.id").article


def test_readings_are_marked_and_configurable() -> None:
    rules = load_rules("q-poker.macau")
    reading = rules.require("ranking.ace_low_straight_suit")
    assert reading.reading
    assert reading.value == "top-of-sequence"


def test_alternative_reading_from_a_user_file(tmp_path: Path) -> None:
    text = (RULES_DIR / "q-poker.macau.toml").read_text(encoding="utf-8")
    variant = tmp_path / "q-poker.ace-suit.toml"
    variant.write_text(
        text.replace(
            'ace_low_straight_suit = { value = "top-of-sequence"',
            'ace_low_straight_suit = { value = "ace"',
        ),
        encoding="utf-8",
    )
    import tablecert

    # A-2-3 vs A-2-3: the 3s beats the 3h under the default; the As beats the Ad under "ace".
    a, b = "Ad 2d 3s", "As 2s 3h"
    assert tablecert.compare("q-poker", a, b) > 0
    assert tablecert.compare("q-poker", a, b, rules=variant) < 0
    assert ordering("q-poker", variant).tie_breaks.ace_low_straight_suit == "ace"


def test_bad_value_names_key_and_line(tmp_path: Path) -> None:
    text = (RULES_DIR / "q-poker.macau.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('value = "top-of-sequence"', 'value = "middle"'), encoding="utf-8")
    line = next(i for i, s in enumerate(bad.read_text().splitlines(), 1) if '"middle"' in s)
    with pytest.raises(
        RuleFileError,
        match=rf"bad.toml:{line}: ranking.ace_low_straight_suit: "
        r"'middle' is not one of top-of-sequence, ace",
    ):
        ordering("q-poker", bad)


def test_missing_article_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "no-article.toml"
    bad.write_text('[game]\nid = { value = "q-poker" }\nvariant = { value = "x", article = "a" }\n')
    with pytest.raises(
        RuleFileError, match=r"no-article.toml:2: game.id: every rule value must cite"
    ):
        load_rules(bad)


def test_invalid_toml_and_missing_file(tmp_path: Path) -> None:
    bad = tmp_path / "broken.toml"
    bad.write_text("[game\n")
    with pytest.raises(RuleFileError, match=r"broken\.toml: invalid TOML"):
        load_rules(bad)
    with pytest.raises(RuleFileError, match="no bundled rule file 'nope'"):
        load_rules("nope")


def test_rule_file_for_the_wrong_game() -> None:
    with pytest.raises(RuleFileError, match="is for 'caribbean-stud', not 'q-poker'"):
        ordering("q-poker", "caribbean-stud.macau")
