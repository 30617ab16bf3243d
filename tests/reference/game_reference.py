"""Slow, obviously-correct showdown counts by plain enumeration, for checking the game math.

Shares no code with tablecert: hands are card codes, strengths come from poker_reference.
"""

from __future__ import annotations

import itertools

from tests.reference import poker_reference as ref


def _qualifies(strength: tuple[int, ...], minimum: tuple[int, ...]) -> bool:
    """High card needs at least ``minimum`` as its top ranks; any pair or better qualifies."""
    return strength[0] > 0 or tuple(strength[1 : 1 + len(minimum)]) >= minimum


def q_poker_counts(player: list[str], suits: bool) -> tuple[int, int, int, int]:
    """Over all 18,424 dealer hands: (not qualifying, player wins, push, dealer wins)."""
    mine = ref.q_poker_strength(player, suits=suits)
    rest = [c for c in ref.DECK if c not in player]
    nq = won = tied = lost = 0
    for dealer in itertools.combinations(rest, 3):
        theirs = ref.q_poker_strength(list(dealer), suits=suits)
        if not _qualifies(theirs, (12,)):
            nq += 1
        elif mine > theirs:
            won += 1
        elif mine == theirs:
            tied += 1
        else:
            lost += 1
    return nq, won, tied, lost


def caribbean_counts(player: list[str], upcard: str, suits: bool) -> tuple[int, int, int, int]:
    """Over all 163,185 dealer completions of the upcard: (not qualifying, player wins, push,
    dealer wins)."""
    mine = ref.caribbean_strength(player, suits=suits)
    rest = [c for c in ref.DECK if c not in player and c != upcard]
    nq = won = tied = lost = 0
    for four in itertools.combinations(rest, 4):
        dealer = [*four, upcard]
        theirs = ref.caribbean_strength(dealer, suits=suits)
        if not _qualifies(theirs, (14, 13)):  # the suit field sits after the ranks
            nq += 1
        elif mine > theirs:
            won += 1
        elif mine == theirs:
            tied += 1
        else:
            lost += 1
    return nq, won, tied, lost
