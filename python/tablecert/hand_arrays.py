"""NumPy-level bulk access to the core: evaluate arrays of hands, fetch the full key tables."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.errors import CardError
from tablecert.poker import RulesSource, check_game, ordering


def strength_keys(
    game: str, hands: npt.ArrayLike, rules: RulesSource = None
) -> npt.NDArray[np.uint32]:
    """Strength keys of an (n, hand_size) array of card ids (0..51), one row per hand."""
    size = check_game(game)
    array = np.asarray(hands)
    if array.ndim != 2 or array.shape[1] != size:
        raise CardError(f"expected an array of shape (n, {size}), got {array.shape}")
    if array.size and (array.min() < 0 or array.max() > 51):
        bad = array[(array < 0) | (array > 51)][0]
        raise CardError(f"card id {bad} is out of range 0..51")
    order = ordering(game, rules)
    raw = _core.strength_keys(
        np.ascontiguousarray(array, dtype=np.uint8).tobytes(), size, order.tie_breaks
    )
    return np.frombuffer(raw, dtype="<u4").astype(np.uint32)


def all_strength_keys(game: str, rules: RulesSource = None) -> npt.NDArray[np.uint32]:
    """Every hand's strength key, indexed by the hand's colex index (see ``_core.hand_at``)."""
    size = check_game(game)
    raw = _core.all_strength_keys(size, ordering(game, rules).tie_breaks)
    return np.frombuffer(raw, dtype="<u4").astype(np.uint32)
