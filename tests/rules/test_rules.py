"""Rule files: every value cites its article, and errors name the file, key and line."""

from __future__ import annotations

import re
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


def _variant(tmp_path: Path, name: str, old: str, new: str, source: str = "q-poker.macau") -> Path:
    text = (RULES_DIR / f"{source}.toml").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / f"{name}.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return path


def _line(path: Path, needle: str) -> int:
    return next(i for i, s in enumerate(path.read_text().splitlines(), 1) if needle in s)


STATUTE_SUITS = '["spades", "hearts", "clubs", "diamonds"]'


def test_the_suit_order_of_the_rule_file_decides(tmp_path: Path) -> None:
    import tablecert
    from tablecert.poker import decide

    diamonds_first = _variant(
        tmp_path, "diamonds-first", STATUTE_SUITS, '["diamonds", "spades", "hearts", "clubs"]'
    )
    a, b = "9s 9h 5d", "9c 9d 5s"
    assert decide("q-poker", a, b).explanation == (
        "第八條(五): the kicker's suit (spades over diamonds) decides"
    )
    assert tablecert.compare("q-poker", a, b) < 0
    assert tablecert.compare("q-poker", a, b, rules=diamonds_first) > 0
    assert decide("q-poker", a, b, diamonds_first).explanation == (
        "第八條(五): the kicker's suit (diamonds over spades) decides"
    )
    # Caribbean Stud: the suit of a pair is its higher suit in the file's order.
    hearts_first = _variant(
        tmp_path,
        "hearts-first",
        STATUTE_SUITS,
        '["hearts", "spades", "clubs", "diamonds"]',
        "caribbean-stud.macau",
    )
    p, q = "9s 9d 5d 3d 2d", "9h 9c 5c 3c 2c"
    assert tablecert.compare("caribbean-stud", p, q) > 0
    assert tablecert.compare("caribbean-stud", p, q, rules=hearts_first) < 0
    assert decide("caribbean-stud", p, q, hearts_first).explanation == (
        "第八条(九): suit of the pair (hearts over spades) decides"
    )


@pytest.mark.parametrize(
    ("key", "old", "new", "message"),
    [
        (
            "ranking.suit_order",
            STATUTE_SUITS,
            '["spades", "hearts", "clubs"]',
            "expected the four suits spades, hearts, clubs, diamonds, each once",
        ),
        (
            "ranking.rank_order",
            '"A K Q J 10 9 8 7 6 5 4 3 2"',
            '"K A Q J 10 9 8 7 6 5 4 3 2"',
            "the core implements only 'A K Q J 10 9 8 7 6 5 4 3 2'",
        ),
        (
            "ranking.categories.pair",
            """["pair rank", "kicker rank", "the kicker's suit"]""",
            """["pair rank", "kicker rank", "the pair's suit"]""",
            "other tie-break steps",
        ),
        (
            "ranking.pair_suit",
            'pair_suit = { value = "higher"',
            'pair_suit = { value = "lower"',
            "has no effect on 3-card hands",
        ),
    ],
)
def test_values_the_core_does_not_implement_are_refused_at_their_line(
    tmp_path: Path, key: str, old: str, new: str, message: str
) -> None:
    path = _variant(tmp_path, "variant", old, new)
    line = _line(path, new)
    with pytest.raises(RuleFileError, match=rf"variant\.toml:{line}: {re.escape(key)}: ") as info:
        ordering("q-poker", path)
    assert message in str(info.value)


def test_suit_values_are_refused_where_suits_never_decide(tmp_path: Path) -> None:
    path = _variant(
        tmp_path,
        "rank-only",
        STATUTE_SUITS,
        '["diamonds", "clubs", "hearts", "spades"]',
        "q-poker.standard",
    )
    with pytest.raises(RuleFileError, match=r"ranking.suit_order: has no effect when"):
        ordering("q-poker", path)


def test_unknown_keys_and_tables_are_errors_with_their_line(tmp_path: Path) -> None:
    key = _variant(
        tmp_path, "key", "[pair_plus]\n", '[pair_plus]\nroyal = { value = 9, article = "x" }\n'
    )
    with pytest.raises(RuleFileError, match=rf"key\.toml:{_line(key, 'royal =')}: "):
        load_rules(key)
    table = _variant(tmp_path, "table", "[pair_plus]\n", "[bonus]\n[pair_plus]\n")
    with pytest.raises(
        RuleFileError, match=rf"table\.toml:{_line(table, '[bonus]')}: bonus: unknown table"
    ):
        load_rules(table)
    dotted = _variant(
        tmp_path,
        "dotted",
        "[pair_plus]\n",
        '"pair_plus.straight" = { value = 7, article = "x" }\n[pair_plus]\n',
    )
    with pytest.raises(RuleFileError, match=r"pair_plus\.straight: a quoted key with a dot"):
        load_rules(dotted)


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + (RULES_DIR / "q-poker.macau.toml").read_bytes())
    assert load_rules(path).game == "q-poker"


def test_a_missing_category_is_reported_at_the_categories_table(tmp_path: Path) -> None:
    text = (RULES_DIR / "q-poker.macau.toml").read_text(encoding="utf-8")
    start = text.index("[ranking.categories.straight]\n")
    end = text.index("[ranking.categories.flush]")
    path = tmp_path / "no-straight.toml"
    path.write_text(text[:start] + text[end:], encoding="utf-8")
    first = _line(path, "[ranking.categories.")
    with pytest.raises(
        RuleFileError,
        match=rf"no-straight\.toml:{first}: ranking\.categories\.straight: missing "
        r"\(not in table \[ranking\.categories\]\)",
    ):
        ordering("q-poker", path)


def test_a_statute_text_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    path = _variant(tmp_path, "statute", '"q-poker.zh-Hant.txt"', '"q-poker.txt"')
    with pytest.raises(RuleFileError, match=rf"statute\.toml:{_line(path, 'q-poker.txt')}: "):
        load_rules(path)
