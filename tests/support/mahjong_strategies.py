"""Hypothesis strategies for mahjong hands and rule-file variants, shared by the mahjong tests."""

from __future__ import annotations

from pathlib import Path

from hypothesis import strategies as st

from tablecert.rules import RULES_DIR
from tests.reference import mahjong_reference as ref


def complete_hand(draw: st.DrawFn, sets: int, kinds: list[str]) -> list[str]:
    """A random complete hand (sets + pair); a set that would make a fifth copy of a tile moves
    on to the next kind, so every draw gives a valid hand (and shrinks well)."""
    hand: list[str] = []

    def fits(group: list[str]) -> bool:
        return all(hand.count(t) + group.count(t) <= 4 for t in group)

    def group_at(i: int, chow: bool, size: int) -> list[str]:
        start = kinds[i % len(kinds)]
        if chow and start not in ref.HONOURS and start[0] <= "7":
            n, s = int(start[0]), start[1]
            return [f"{n}{s}", f"{n + 1}{s}", f"{n + 2}{s}"]
        return [start] * size

    for size in [2] + [3] * sets:
        i = draw(st.integers(0, len(kinds) - 1))
        chow = size == 3 and draw(st.booleans())
        while not fits(group := group_at(i, chow, size)):
            i += 1
        hand += group
    return hand


ONE_SUIT = ref.TRADITIONAL[:9]
TERMINALS_HONOURS = ["1m", "9m", "1p", "9p", "1s", "9s", *ref.HONOURS]


@st.composite
def complete_hands(draw: st.DrawFn) -> list[str]:
    """Complete 14-tile hands, often one suit, honour-heavy or terminals-only, where several
    readings and the rarer patterns are common."""
    kinds = draw(
        st.sampled_from(
            [
                ONE_SUIT,
                [*ONE_SUIT, "E", "Rd"],
                [*ONE_SUIT, *ref.HONOURS],
                ref.HONOURS,
                ["E", "S", "W", "N", "5p", "6p", "7p"],
                ["Rd", "Gd", "Wd", "1s", "2s", "3s", "E"],
                TERMINALS_HONOURS,
                ref.TRADITIONAL,
            ]
        )
    )
    return complete_hand(draw, 4, kinds)


def variant_rules(directory: Path, game: str, old: str, new: str) -> str:
    """Write a lab's variant of a bundled mahjong rule file (one text replaced) and return its
    path; the replaced text must be there, so a variant can never silently equal the original."""
    text = (RULES_DIR / f"{game}.macau.toml").read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path = directory / f"{game}.variant.toml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return str(path)
