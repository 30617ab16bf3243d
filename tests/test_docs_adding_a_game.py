"""The adding-a-game walk-through shows the real bundled Four Card Poker rule file: each
excerpt it includes by line numbers is whole tables of the file, beginning where the page
says, so that an edit of the file cannot leave the page showing half a table. (Its commands
run with every page's, in tests/test_docs_examples.py.)"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "games" / "adding-a-game.md"
RULES = "fixtures/rules/four-card-poker.standard.toml"
EXCERPT = re.compile(r'--8<-- "' + re.escape(RULES) + r':(\d+):(\d+)"')


def test_excerpts_of_the_rule_file_are_whole_tables() -> None:
    lines = (ROOT / RULES).read_text(encoding="utf-8").splitlines()
    ranges = [(int(a), int(b)) for a, b in EXCERPT.findall(PAGE.read_text(encoding="utf-8"))]
    assert [lines[a - 1] for a, _ in ranges[:3]] == ["[game]", "[ranking]", "[qualifier]"]
    assert lines[ranges[3][0] - 1].startswith("# Aces Up: the player's own best four cards")
    for _, end in ranges:
        assert end == len(lines) or lines[end] == "", f"excerpt ending at line {end} cuts a table"
    shown = {lines[i - 1] for a, b in ranges for i in range(a, b + 1)}
    for table in (
        "[deal]",
        "[ranking.categories.high-card]",
        "[decision]",
        "[settlement.bonus]",
        "[side_bets.aces-up.pays]",
    ):
        assert table in shown
