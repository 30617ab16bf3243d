"""Slow, obviously-correct showdown counts by plain enumeration, for checking the game math.

Shares no code with tablecert: hands are card codes, strengths come from poker_reference.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from tests.reference import poker_reference as ref


def _qualifies(strength: tuple[int, ...], minimum: tuple[int, ...]) -> bool:
    """High card needs at least ``minimum`` as its top ranks; any pair or better qualifies."""
    return strength[0] > 0 or tuple(strength[1 : 1 + len(minimum)]) >= minimum


def _tally(
    mine: tuple[int, ...], strengths: Iterable[tuple[int, ...]], minimum: tuple[int, ...]
) -> tuple[int, int, int, int]:
    """(dealer does not qualify, player wins, push, dealer wins) over the dealer strengths."""
    nq = won = tied = lost = 0
    for theirs in strengths:
        if not _qualifies(theirs, minimum):  # the suit field sits after the ranks
            nq += 1
        elif mine > theirs:
            won += 1
        elif mine == theirs:
            tied += 1
        else:
            lost += 1
    return nq, won, tied, lost


def q_poker_counts(player: list[str], suits: bool) -> tuple[int, int, int, int]:
    """Over all 18,424 dealer hands: (not qualifying, player wins, push, dealer wins)."""
    rest = [c for c in ref.DECK if c not in player]
    return _tally(
        ref.q_poker_strength(player, suits=suits),
        (ref.q_poker_strength(list(d), suits=suits) for d in itertools.combinations(rest, 3)),
        (12,),
    )


def caribbean_counts(player: list[str], upcard: str, suits: bool) -> tuple[int, int, int, int]:
    """Over all 163,185 dealer completions of the upcard: (not qualifying, player wins, push,
    dealer wins)."""
    rest = [c for c in ref.DECK if c not in player and c != upcard]
    return _tally(
        ref.caribbean_strength(player, suits=suits),
        (
            ref.caribbean_strength([*four, upcard], suits=suits)
            for four in itertools.combinations(rest, 4)
        ),
        (14, 13),
    )
