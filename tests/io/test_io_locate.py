"""The one JSON and the one TOML key-line locator: the line of each key, in file order."""

from __future__ import annotations

from tablecert.io.locate import (
    TomlBlock,
    bracket_depth,
    json_key_line,
    json_keys,
    toml_blocks,
    toml_key_lines,
    toml_keys,
)

JSON = '{\n  "a": 1,\n  "b": {"c": [1, {"d": 2}],\n    "e\\u00e9": "x: \\"a\\": 1"},\n  "a": 3\n}'


def test_json_keys_give_each_path_and_line_in_file_order() -> None:
    assert json_keys(JSON) == [
        (("a",), 2),
        (("b",), 3),
        (("b", "c"), 3),
        (("b", "c", "d"), 3),
        (("b", "eé"), 4),
        (("a",), 5),
    ]


def test_json_key_line_counts_occurrences_and_offsets() -> None:
    assert json_key_line(JSON, "a") == 2
    assert json_key_line(JSON, "a", occurrence=1) == 5
    assert json_key_line(JSON, "a", first_line=10, occurrence=1) == 14
    assert json_key_line(JSON, "a", occurrence=2) is None
    assert json_key_line(JSON, "missing") is None


TOML = (
    "[game]\n"
    'id = { value = "q-poker" }\n'
    "list = [\n"
    "  1, # ] not a close\n"
    "  'x]',\n"
    "]\n"
    'text = """\n'
    "k = 1\n"
    '"""\n'
    "[play.cap]\n"
    'maximum."payout" = 5\n'
)


def test_toml_keys_skip_multiline_values_and_split_dotted_keys() -> None:
    assert list(toml_keys(tuple(TOML.splitlines()))) == [
        (["game"], 1),
        (["game", "id"], 2),
        (["game", "list"], 3),
        (["game", "text"], 7),
        (["play", "cap"], 10),
        (["play", "cap", "maximum", "payout"], 11),
    ]
    lines = toml_key_lines(tuple(TOML.splitlines()))
    assert lines["play"] == 10
    assert lines["play.cap.maximum"] == 11
    assert "k" not in lines
    assert "game.k" not in lines


def test_bracket_depth_skips_strings_and_toml_comments() -> None:
    assert bracket_depth('[{"a": "[[{"}, [1]]') == (0, 2)
    assert bracket_depth('["\\"]", [') == (2, 2)
    assert bracket_depth("[ # [[", toml=True) == (1, 1)
    assert bracket_depth("[ # [[") == (3, 3)
    assert bracket_depth('[\'[\', "\\"["', toml=True) == (1, 1)
    assert bracket_depth("x = [ # [\n[", toml=True) == (2, 2)


def test_toml_blocks_give_each_table_as_written_with_its_own_keys() -> None:
    text = 'top = 1\n[[s]]\nkind = "a"\nx.y = 2\n[s.sub]\nz = 3\n[[s]]\nkind = "b"\n'
    assert toml_blocks(tuple(text.splitlines())) == [
        TomlBlock((), 0, {"top": 1}),
        TomlBlock(("s",), 2, {"kind": 3, "x": 4}),
        TomlBlock(("s", "sub"), 5, {"z": 6}),
        TomlBlock(("s",), 7, {"kind": 8}),
    ]
