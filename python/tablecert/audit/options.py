"""The shuffler audit's option values: what a command checks before it reads a log.

Its own module, free of imports, so that ``tablecert audit shuffler`` can check its options
and start reading (``tablecert.audit.started``) before NumPy and the battery are imported."""

from __future__ import annotations

INPUT_ORDERS = ("auto", "logged", "previous", "none")
"""What each output is judged against: ``auto`` (the default) its logged input when the record
has one, else its device's previous output; ``logged`` only the logged input; ``previous`` only
the previous output; ``none`` nothing (the order tests are skipped)."""
DEFAULT_INPUT_ORDER = "auto"
DEFAULT_DECK = "cards52"
DEFAULT_BATCH = 10_000
"""Shuffles per batch for the battery's second level."""
DEALINGS = ("packets", "round-robin")
"""How a poker game's hands are dealt from each shuffled deck."""
STATISTICS = ("types", "pairs", "honours")
"""What is tested of each dealt Mahjong hand: its tile types, pairs or honours."""
DEFAULT_WALL_STATISTIC = "types"


def keeps_orders(deck: str, wall_statistic: str) -> bool:
    """Whether an audit of ``deck`` keeps every order for its wall dealer: Mahjong walls whose
    hands are tested (``wall_statistic`` not ``none``)."""
    return deck != "cards52" and wall_statistic != "none"
