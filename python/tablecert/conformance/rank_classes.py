"""Rank classes of a game's hands, and which hands can meet: the pairs that are evidence.

A *rank class* is the set of hands whose statute keys are equal but for the suit field (the
key with its two lowest bits cleared); the classes, sorted by key, are the statute's order of
categories and ranks. Only hands with no card in common can meet in one deal from one deck, so
only such a pair can show that an evaluator orders two hands wrongly: a pair that shares a card
could not have gone either way in play and is never evidence. Every check of an evaluator, on
the line protocol and natively, takes its pairs from here.

Two rank classes *can meet* when some hand of one shares no card with some hand of the other.
Neighbours in the order need not (2-2-2-3-3 and 2-2-2-4-4 need six deuces), and an evaluator may
order hands that never meet any way it likes: the statute (e.g. Caribbean Stud Art. 8(4),
full houses by the three alone) often does not order them at all.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

SUIT_FIELD = np.uint32(3)
"""The key's suit field: cleared, the key is the hand's rank class."""
_CELLS = 1 << 22
"""The most hand pairs compared in one array (bounds memory to a few tens of megabytes)."""

Pair = tuple[int, int]


def masks_of(hands: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint64]:
    """The 52-bit card mask of every hand (rows of card ids)."""
    masks = np.zeros(len(hands), dtype=np.uint64)
    for column in range(hands.shape[1]):
        masks |= np.left_shift(np.uint64(1), hands[:, column].astype(np.uint64))
    return masks


@dataclass(frozen=True)
class RankClasses:
    """The hands of a game grouped into rank classes, lowest class first."""

    order: npt.NDArray[np.int64]
    """Hand indices sorted by key (so each class is a contiguous run)."""
    starts: npt.NDArray[np.int64]
    ends: npt.NDArray[np.int64]
    masks: npt.NDArray[np.uint64]
    """The card mask of every hand, by hand index."""

    @classmethod
    def of(cls, keys: npt.NDArray[np.uint32], masks: npt.NDArray[np.uint64]) -> RankClasses:
        order = np.argsort(keys, kind="stable").astype(np.int64)
        ranked = (keys & ~SUIT_FIELD)[order]
        starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]]).astype(np.int64)
        ends = np.r_[starts[1:], len(order)].astype(np.int64)
        return cls(order, starts, ends, masks)

    def __len__(self) -> int:
        return len(self.starts)

    def members(self, c: int) -> npt.NDArray[np.int64]:
        """The hand indices of class ``c``."""
        return self.order[self.starts[c] : self.ends[c]]

    def sizes(self) -> npt.NDArray[np.int64]:
        return self.ends - self.starts

    def class_of(self) -> npt.NDArray[np.int64]:
        """The class of every hand, by hand index."""
        out = np.empty(len(self.order), dtype=np.int64)
        out[self.order] = np.repeat(np.arange(len(self.starts)), self.sizes())
        return out

    def disjoint_pair(self, a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> Pair | None:
        """A hand of ``a`` and a hand of ``b`` with no card in common, or None if none exists
        (the search is exhaustive)."""
        return first_pair(self.masks, a, b)

    def can_meet(self, i: int, j: int) -> bool:
        """Whether some hand of class ``i`` shares no card with some hand of class ``j``."""
        return self.disjoint_pair(self.members(i), self.members(j)) is not None

    def within_pairs(self, c: int) -> npt.NDArray[np.int64]:
        """Every unordered pair of disjoint hands inside class ``c`` (rows a, b; a before b in
        the class)."""
        members = self.members(c)
        m = self.masks[members]
        i, j = np.nonzero(np.triu((m[:, None] & m[None, :]) == 0, 1))
        return np.stack([members[i], members[j]], axis=1).astype(np.int64)


def first_pair(
    masks: npt.NDArray[np.uint64],
    a: npt.NDArray[np.int64],
    b: npt.NDArray[np.int64],
    scores: tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]] | None = None,
) -> Pair | None:
    """The first (hand of ``a``, hand of ``b``) with no card in common, and, given ``scores``
    (the scores of ``a`` and of ``b``), with the ``a`` hand's score at least the ``b`` hand's:
    an exhaustive search, in blocks of rows that grow so that the usual early hit is cheap."""
    if not len(a) or not len(b):
        return None
    mb = masks[b]
    rows = 4
    start = 0
    while start < len(a):
        stop = min(len(a), start + rows)
        hit = (masks[a[start:stop], None] & mb[None, :]) == 0
        if scores is not None:
            hit &= scores[0][start:stop, None] >= scores[1][None, :]
        flat = int(np.argmax(hit))
        if hit.flat[flat]:
            r, col = divmod(flat, len(b))
            return int(a[start + r]), int(b[col])
        start = stop
        rows = max(1, min(rows * 4, _CELLS // len(b)))
    return None


@dataclass(frozen=True)
class ClassOrder:
    """Every pair of rank classes that can meet, checked against a vendor's scores.

    ``boundaries`` counts the neighbouring classes that can meet (the evidence of the order);
    ``not_evidence`` the neighbours that cannot (not counted); ``beyond`` the classes further
    apart that can meet and whose scores overlap (each searched for a disjoint pair scored out
    of order). ``wrong`` holds, per wrongly ordered class pair, one disjoint pair (the hand of
    the lower class, the hand of the upper) whose scores the vendor orders wrongly;
    ``unsearched`` the overlapping class pairs left unsearched once the order was already
    found wrong (only then)."""

    classes: int
    boundaries: int
    not_evidence: int
    beyond: int
    wrong: tuple[Pair, ...]
    unsearched: int

    @property
    def checked(self) -> int:
        return self.boundaries + self.beyond


BEYOND_BUDGET = 200_000
"""Overlapping class pairs searched beyond the neighbours once the order is already wrong."""


def check_class_order(
    classes: RankClasses, scores: npt.NDArray[np.int32], *, budget: int = BEYOND_BUDGET
) -> ClassOrder:
    """Whether every two hands that can meet are ordered by ``scores`` as the classes are:
    for every two classes i < j, every disjoint pair (a of i, b of j) needs score a < score b.

    Where class i's best score is below class j's worst, every such pair holds. Otherwise the
    pair of classes is searched exhaustively for a disjoint pair out of order; one that shares
    a card is not evidence. So a boundary between neighbours that cannot meet is not counted,
    and scores that order such neighbours any way (equal, say) are not a defect, while a wrong
    order of classes that do meet is found even across such a boundary."""
    s = scores.astype(np.int64)
    k = len(classes)
    sorted_scores = s[classes.order]
    low = np.minimum.reduceat(sorted_scores, classes.starts) if k else np.empty(0, np.int64)
    high = np.maximum.reduceat(sorted_scores, classes.starts) if k else np.empty(0, np.int64)
    wrong: list[Pair] = []
    boundaries = not_evidence = beyond = unsearched = 0
    for i in range(k - 1):
        found = None if high[i] < low[i + 1] else _out_of_order(classes, s, i, i + 1, low, high)
        if found is not None:
            wrong.append(found)
        if found is not None or classes.can_meet(i, i + 1):
            boundaries += 1
        else:
            not_evidence += 1
    for i, j in _overlapping(low, high):
        if wrong and beyond >= budget:
            unsearched += 1
            continue
        found = _out_of_order(classes, s, i, j, low, high)
        if found is not None:
            beyond += 1
            wrong.append(found)
        elif classes.can_meet(i, j):
            beyond += 1
    return ClassOrder(k, boundaries, not_evidence, beyond, tuple(wrong), unsearched)


def _out_of_order(
    classes: RankClasses,
    s: npt.NDArray[np.int64],
    i: int,
    j: int,
    low: npt.NDArray[np.int64],
    high: npt.NDArray[np.int64],
) -> Pair | None:
    """A disjoint pair (hand of class i, hand of class j > i) that ``s`` does not put i below
    j, or None: only the hands whose scores reach into the other class's range can be one."""
    a = classes.members(i)
    a = a[s[a] >= low[j]]
    b = classes.members(j)
    b = b[s[b] <= high[i]]
    return first_pair(classes.masks, a, b, scores=(s[a], s[b]))


def _overlapping(
    low: npt.NDArray[np.int64], high: npt.NDArray[np.int64]
) -> Iterator[tuple[int, int]]:
    """The class pairs (i, j) with j > i + 1 whose score ranges overlap (i's best at least j's
    worst), row by row."""
    k = len(low)
    rows = max(1, _CELLS // max(k, 1))
    columns = np.arange(k)
    for start in range(0, max(k - 2, 0), rows):
        i = np.arange(start, min(start + rows, k - 2))
        hit = (low[None, :] <= high[i, None]) & (columns[None, :] > i[:, None] + 1)
        for r, j in zip(*np.nonzero(hit), strict=True):
            yield int(i[r]), int(j)
