"""Round logs of Q Poker and Caribbean Stud tables: one record per round, read strictly by the
core (``_core.RoundReader``) and streamed in chunks of NumPy arrays.

Two encodings of the same record (docs/formats/round-logs.md), plain or gzip (recognised by its
magic bytes): CSV with a header and one row per occupied seat (the round's own fields repeated on
each of its rows, which must agree), and JSON Lines with one object per round and its seats in
an array. Every line is counted; a line that cannot be read is an error naming the file, the
line and the field, and stops the read (nothing is skipped).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.errors import LogError, RoundLogError
from tablecert.poker import check_game

GZIP_MAGIC = b"\x1f\x8b"
#: Amounts are exact decimals with at most this many places; held as integers of 1/SCALE.
PLACES = 4
SCALE = 10**PLACES
#: What the core reader (rust/rounds) gives for a meter field left blank: the meter was
#: not logged for the round (no amount is this low), so its accounting is left unexamined.
METER_NOT_LOGGED = -(2**63)
MAX_AMOUNT = 10**12  # currency units: anything larger is a typo, not a bet
#: The longest table or round id, in UTF-8 bytes (an id is a short label; the audit keeps one
#: per round to find a round logged twice, so an id's length bounds its memory).
MAX_ID_BYTES = 256
ROUNDS_PER_CHUNK = 65_536

#: The spots of each game, in column order: Q Poker's 多寶 (pair plus) and 與莊荷博彩 (the bet
#: against the dealer: initial bet, then follow or fold); Caribbean Stud's ante, raise and
#: progressive.
SPOTS: dict[str, tuple[str, ...]] = {
    "q-poker": ("pair_plus", "play"),
    "caribbean-stud": ("ante", "raise", "progressive"),
}
DECISIONS: dict[str, tuple[str, ...]] = {
    "q-poker": ("", "follow", "fold"),
    "caribbean-stud": ("", "raise", "fold"),
}
#: Irregularity events (Art. 11): the first three make the round void (bets void, the
#: progressive bet carried over); the others leave it valid.
VOID_EVENTS = ("void", "misdeal", "shuffler-failure")
EVENTS = (*VOID_EVENTS, "exposed-card", "dealt-to-empty-spot")
#: The article that makes each void event void, by game: the two statutes number Art. 11
#: differently. Q Poker: (一) wrong order or card count, (三) the dealer's card exposed, (五)
#: the shuffler failing; Caribbean Stud: (一) wrong method, card count or two cards exposed,
#: (四) the shuffler failing. A bare ``void`` is any of the first kind.
VOID_ARTICLES: dict[str, dict[str, str]] = {
    "q-poker": {
        "void": "第十一條(一)(三)",
        "misdeal": "第十一條(一)",
        "shuffler-failure": "第十一條(五)",
    },
    "caribbean-stud": {
        "void": "第十一条(一)",
        "misdeal": "第十一条(一)",
        "shuffler-failure": "第十一条(四)",
    },
}


def void_article(game: str, events: Sequence[str]) -> str:
    """The article under which a round with ``events`` is void (its void events' articles,
    one article with the items of each: ``第十一條(一)(五)``)."""
    articles = [VOID_ARTICLES[game][e] for e in events if e in VOID_EVENTS]
    head = articles[0].split("(", 1)[0] if articles else ""
    items: list[str] = []
    for article in articles:
        for item in article[len(head) :].split(")")[:-1]:
            if item + ")" not in items:
                items.append(item + ")")
    return head + "".join(sorted(items, key=_ITEM_ORDER.index))


_ITEM_ORDER = tuple(f"({n})" for n in "一二三四五六七八九十")
#: The fields of a round and of a seat, in CSV column order (the core's reader defines them).
ROUND_FIELDS: tuple[str, ...] = tuple(_core.ROUND_LOG_FIELDS[0])
SEAT_FIELDS: tuple[str, ...] = tuple(_core.ROUND_LOG_FIELDS[1])


def csv_columns(game: str) -> tuple[str, ...]:
    """The CSV header of a dedicated engine's game's round log, in the documented order."""
    return LogSpec.dedicated(game).columns


@dataclass(frozen=True)
class RoundArrays:
    """The numeric columns of a chunk as NumPy arrays (the form to compute with). Round r's
    seats are rows ``seat_start[r]:seat_start[r + 1]`` of the seat arrays, in log order;
    amounts in 1/SCALE units; cards are ids 0..51, -1 where a void round logged fewer cards."""

    #: Per round (length = rounds): the line of its record (CSV: its first seat row).
    line: npt.NDArray[np.int64]
    #: (rounds, hand_size) dealer's cards.
    dealer: npt.NDArray[np.int16]
    #: The dealer's upcard, -1 when none was logged.
    upcard: npt.NDArray[np.int16]
    #: METER_NOT_LOGGED where the field was left blank.
    meter_before: npt.NDArray[np.int64]
    meter_after: npt.NDArray[np.int64]
    #: True where an event makes the round void (VOID_EVENTS).
    void: npt.NDArray[np.bool_]
    #: Per seat row (length = seats): the index of its round in the chunk.
    seat_round: npt.NDArray[np.int64]
    seat_number: npt.NDArray[np.int64]
    seat_line: npt.NDArray[np.int64]
    #: (seats, hand_size) player's cards.
    seat_cards: npt.NDArray[np.int16]
    #: Index into DECISIONS[game] (0: none).
    decision: npt.NDArray[np.int64]
    #: (seats, spots) in SPOTS[game] order.
    bets: npt.NDArray[np.int64]
    paid: npt.NDArray[np.int64]

    @property
    def seat_start(self) -> npt.NDArray[np.int64]:
        """(rounds + 1,) offsets of each round's seat rows."""
        counts = np.bincount(self.seat_round, minlength=len(self.line))
        out = np.zeros(len(self.line) + 1, dtype=np.int64)
        np.cumsum(counts, out=out[1:])
        return out


def _tuples(rows: npt.NDArray[np.integer[Any]]) -> list[tuple[int, ...]]:
    return [tuple(x for x in row if x >= 0) for row in rows.tolist()]


@dataclass
class RoundChunk:
    """Up to ROUNDS_PER_CHUNK rounds of one log: the text columns as lists, the numeric ones
    as NumPy arrays in ``arrays`` (see RoundArrays). The numeric columns are also readable
    under their own names as Python lists (``chunk.dealer``: a tuple of card ids per round,
    ``chunk.bets``: a tuple of amounts per seat row...): convenient for a few rounds, slow
    for many; computations use ``chunk.arrays``."""

    game: str
    path: str
    table_id: list[str]
    round_id: list[str]
    timestamp: list[str]
    events: list[tuple[str, ...]]
    arrays: RoundArrays

    def __len__(self) -> int:
        return len(self.round_id)

    @property
    def seats(self) -> int:
        return len(self.arrays.seat_round)

    @property
    def line(self) -> list[int]:
        return [int(x) for x in self.arrays.line.tolist()]

    @property
    def dealer(self) -> list[tuple[int, ...]]:
        return _tuples(self.arrays.dealer)

    @property
    def upcard(self) -> list[int]:
        return [int(x) for x in self.arrays.upcard.tolist()]

    @property
    def meter_before(self) -> list[int]:
        return [int(x) for x in self.arrays.meter_before.tolist()]

    @property
    def meter_after(self) -> list[int]:
        return [int(x) for x in self.arrays.meter_after.tolist()]

    @property
    def seat_round(self) -> list[int]:
        return [int(x) for x in self.arrays.seat_round.tolist()]

    @property
    def seat_number(self) -> list[int]:
        return [int(x) for x in self.arrays.seat_number.tolist()]

    @property
    def seat_line(self) -> list[int]:
        return [int(x) for x in self.arrays.seat_line.tolist()]

    @property
    def seat_cards(self) -> list[tuple[int, ...]]:
        return _tuples(self.arrays.seat_cards)

    @property
    def decision(self) -> list[int]:
        return [int(x) for x in self.arrays.decision.tolist()]

    @property
    def bets(self) -> list[tuple[int, ...]]:
        return [tuple(row) for row in self.arrays.bets.tolist()]

    @property
    def paid(self) -> list[tuple[int, ...]]:
        return [tuple(row) for row in self.arrays.paid.tolist()]

    def cards_array(self, hands: Sequence[tuple[int, ...]]) -> npt.NDArray[np.int16]:
        """Hands as an (n, hand_size) array; a short hand (void rounds only) padded with -1."""
        size = check_game(self.game)
        out = np.full((len(hands), size), -1, dtype=np.int16)
        for i, hand in enumerate(hands):
            out[i, : len(hand)] = hand[:size]
        return out

    def void(self) -> npt.NDArray[np.bool_]:
        return self.arrays.void


def amount_text(units: int) -> str:
    """An amount in 1/SCALE units as the shortest exact decimal."""
    sign = "-" if units < 0 else ""
    whole, frac = divmod(abs(units), SCALE)
    return f"{sign}{whole}.{frac:0{PLACES}d}".rstrip("0").rstrip(".") if frac else f"{sign}{whole}"


@dataclass(frozen=True)
class LogSpec:
    """What a game's round log holds, as the core's reader takes it: the cards of a seat and
    of the dealer, the spots in column order, the decisions (the first, ``""``: none), and
    whether the dealer's upcard is required."""

    game: str
    hand_size: int
    dealer_size: int
    spots: tuple[str, ...]
    decisions: tuple[str, ...]
    upcard_required: bool

    @classmethod
    def dedicated(cls, game: str) -> LogSpec:
        """The log of a game with an engine of its own (Q Poker, Caribbean Stud)."""
        size = check_game(game)
        return cls(game, size, size, SPOTS[game], DECISIONS[game], game == "caribbean-stud")

    @property
    def columns(self) -> tuple[str, ...]:
        """The CSV header, in the documented order."""
        return (
            *ROUND_FIELDS,
            *SEAT_FIELDS,
            *(f"{s}_bet" for s in self.spots),
            *(f"{s}_paid" for s in self.spots),
        )


def _chunk(spec: LogSpec, path: str, columns: dict[str, Any]) -> RoundChunk:
    def array(name: str, dtype: type[np.generic], width: int = 0) -> Any:
        out = np.frombuffer(columns[name], dtype=np.dtype(dtype).newbyteorder("<"))
        out = out.astype(dtype, copy=False)
        return out.reshape(-1, width) if width else out

    return RoundChunk(
        spec.game,
        path,
        columns["table_id"],
        columns["round_id"],
        columns["timestamp"],
        columns["events"],
        RoundArrays(
            line=array("line", np.int64),
            dealer=array("dealer", np.int16, spec.dealer_size),
            upcard=array("upcard", np.int16),
            meter_before=array("meter_before", np.int64),
            meter_after=array("meter_after", np.int64),
            void=array("void", np.uint8).view(np.bool_),
            seat_round=array("seat_round", np.int64),
            seat_number=array("seat_number", np.int64),
            seat_line=array("seat_line", np.int64),
            seat_cards=array("seat_cards", np.int16, spec.hand_size),
            decision=array("decision", np.int64),
            bets=array("bets", np.int64, len(spec.spots)),
            paid=array("paid", np.int64, len(spec.spots)),
        ),
    )


def read_rounds(path: str | Path, game: str) -> Iterator[RoundChunk]:
    """The rounds of one log of a game with an engine of its own, chunk by chunk (see
    :func:`read_log`)."""
    return read_log(path, LogSpec.dedicated(game))


def read_log(path: str | Path, spec: LogSpec) -> Iterator[RoundChunk]:
    """The rounds of one log, chunk by chunk (CSV or JSON Lines, told apart by the first
    character: ``{`` starts JSON Lines; plain or gzip, told apart by the magic bytes). The
    core reads, decompresses (on a thread of its own) and checks; the first failure raises
    RoundLogError naming the file, the line and the field."""
    path = Path(path)
    # a dealer dealt as many cards as a seat is the reader's default
    dealer = {} if spec.dealer_size == spec.hand_size else {"dealer_hand_size": spec.dealer_size}
    reader = _core.RoundReader(
        str(path),
        spec.game,
        spec.hand_size,
        list(spec.spots),
        list(spec.decisions),
        list(EVENTS),
        len(VOID_EVENTS),
        spec.upcard_required,
        ROUNDS_PER_CHUNK,
        **dealer,
    )
    try:
        reader.open(str(path))
        while (ready := reader.next_chunks()) is not None:
            # each chunk let go of once handed on: none is kept while the next are made
            ready.reverse()
            while ready:
                yield _chunk(spec, str(path), ready.pop())
    except LogError as exc:
        raise RoundLogError(str(exc)) from None
