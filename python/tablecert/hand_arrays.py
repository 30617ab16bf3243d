"""NumPy-level bulk access to the core: evaluate arrays of hands, fetch the full key tables."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.errors import CardError
from tablecert.poker import RulesSource, check_game, ordering, parse_hand


def strength_keys(
    game: str, hands: npt.ArrayLike, rules: RulesSource = None
) -> npt.NDArray[np.uint32]:
    """Strength keys of hands, one per hand: an (n, hand_size) array of card ids (0..51), or
    card text wherever ids are accepted (a list of hands ``["As Kh Td", ...]`` or rows of card
    codes ``[["As", "Kh", "Td"], ...]``); a perfect-hash lookup per hand in the exhaustive key
    table, on every core."""
    size = check_game(game)
    array = _card_ids(hands, size)
    if array.ndim != 2 or array.shape[1] != size:
        raise CardError(f"expected an array of shape (n, {size}), got {array.shape}")
    if array.size and (array.min() < 0 or array.max() > 51):
        bad = array[(array < 0) | (array > 51)][0]
        raise CardError(f"card id {bad} is out of range 0..51")
    out = np.empty(len(array), dtype=np.uint32)
    key_table(game, rules).keys_into(np.ascontiguousarray(array, dtype=np.uint8), out)
    return out


def _card_ids(hands: npt.ArrayLike, size: int) -> npt.NDArray[np.int64]:
    """Card ids of hands given as ids, hand text or card codes (parsed as everywhere)."""
    try:
        array = np.asarray(hands)
    except ValueError:  # ragged rows: let the hand-size check name the bad one
        array = np.asarray(hands, dtype=object)
    if array.dtype.kind in "iu":
        return array.astype(np.int64, copy=False)
    if array.ndim == 1 and all(isinstance(h, str) for h in array):
        return np.array([parse_hand(h, size) for h in array], dtype=np.int64).reshape(-1, size)
    if array.ndim == 2 and array.dtype.kind in "OU":
        try:
            rows = [parse_hand(tuple(row), size) for row in array.tolist()]
        except TypeError as exc:
            raise CardError(f"expected card ids or card codes, got {array.tolist()!r}") from exc
        return np.array(rows, dtype=np.int64).reshape(-1, size)
    if array.dtype.kind in "fbc" or array.ndim != 2:
        raise CardError(
            f"expected an array of shape (n, {size}) of card ids or card codes, or a list of "
            f"hands such as 'As Kh Td'; got {array.dtype} of shape {array.shape}"
        )
    return array.astype(np.int64)


# The perfect-hash tables built so far: (tie-break rules, table). Compared with ==, so that any
# field the rules add to TieBreaks distinguishes tables; a handful of orderings at most.
_TABLES: list[tuple[_core.TieBreaks, _core.KeyTable]] = []


def key_table(game: str, rules: RulesSource = None) -> _core.KeyTable:
    """The game's perfect-hash evaluator under the rule file (built once per ordering, about
    35 ms for the 2,598,960 five-card hands, then reused)."""
    size = check_game(game)
    tie_breaks = ordering(game, rules).tie_breaks
    for known, table in _TABLES:
        if known == tie_breaks and table.hand_size == size:
            return table
    table = _core.KeyTable(size, tie_breaks)
    _TABLES.append((tie_breaks, table))
    return table


def all_strength_keys(game: str, rules: RulesSource = None) -> npt.NDArray[np.uint32]:
    """Every hand's strength key, indexed by the hand's colex index (see ``_core.hand_at``)."""
    size = check_game(game)
    raw = _core.all_strength_keys(size, ordering(game, rules).tie_breaks)
    return np.frombuffer(raw, dtype="<u4").astype(np.uint32)
