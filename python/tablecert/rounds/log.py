"""Round logs of Q Poker and Caribbean Stud tables: one record per round, read strictly and
streamed in chunks of NumPy arrays.

Two encodings of the same record (README, "Round logs"), plain or gzip (recognised by its magic
bytes): CSV with a header and one row per occupied seat (the round's own fields repeated on
each of its rows, which must agree), and JSON Lines with one object per round and its seats in
an array. Every line is counted; a line that cannot be read is an error naming the file, the
line and the field, and stops the read (nothing is skipped).
"""

from __future__ import annotations

import csv
import gzip
import io
import re
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.errors import CardError, RoundLogError
from tablecert.poker import check_game
from tablecert.strict_json import StrictJsonError, loads

GZIP_MAGIC = b"\x1f\x8b"
#: Amounts are exact decimals with at most this many places; held as integers of 1/SCALE.
PLACES = 4
SCALE = 10**PLACES
MAX_AMOUNT = 10**12  # currency units: anything larger is a typo, not a bet
ROUNDS_PER_CHUNK = 65_536
CACHE_SIZE = 100_000  # distinct amount spellings and hands remembered while reading

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
ROUND_FIELDS = (
    "table_id",
    "round_id",
    "timestamp",
    "dealer",
    "upcard",
    "meter_before",
    "meter_after",
    "events",
)
SEAT_FIELDS = ("seat", "cards", "decision")
_AMOUNT = re.compile(rf"-?(0|[1-9][0-9]*)(\.[0-9]{{1,{PLACES}}})?")
_CODES = {_core.card_code(c): c for c in range(52)}
_CODES.update({k.lower(): v for k, v in list(_CODES.items())})
_CODES.update({k.upper(): v for k, v in list(_CODES.items())})


def csv_columns(game: str) -> tuple[str, ...]:
    """The CSV header of a game's round log, in the documented order."""
    spots = SPOTS[game]
    return (
        *ROUND_FIELDS,
        *SEAT_FIELDS,
        *(f"{s}_bet" for s in spots),
        *(f"{s}_paid" for s in spots),
    )


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


@dataclass
class _Columns:
    """The rounds read so far into the current chunk, as lists (the Python reader)."""

    game: str
    path: str
    table_id: list[str] = field(default_factory=list)
    round_id: list[str] = field(default_factory=list)
    timestamp: list[str] = field(default_factory=list)
    line: list[int] = field(default_factory=list)
    events: list[tuple[str, ...]] = field(default_factory=list)
    dealer: list[tuple[int, ...]] = field(default_factory=list)
    upcard: list[int] = field(default_factory=list)
    meter_before: list[int] = field(default_factory=list)
    meter_after: list[int] = field(default_factory=list)
    seat_round: list[int] = field(default_factory=list)
    seat_number: list[int] = field(default_factory=list)
    seat_line: list[int] = field(default_factory=list)
    seat_cards: list[tuple[int, ...]] = field(default_factory=list)
    decision: list[int] = field(default_factory=list)
    bets: list[tuple[int, ...]] = field(default_factory=list)
    paid: list[tuple[int, ...]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.round_id)

    def chunk(self) -> RoundChunk:
        size = check_game(self.game)
        spots = len(SPOTS[self.game])

        def hands(rows: list[tuple[int, ...]]) -> npt.NDArray[np.int16]:
            out = np.full((len(rows), size), -1, dtype=np.int16)
            for i, hand in enumerate(rows):
                out[i, : len(hand)] = hand[:size]
            return out

        def ints(values: list[int]) -> npt.NDArray[np.int64]:
            return np.asarray(values, dtype=np.int64)

        return RoundChunk(
            self.game,
            self.path,
            self.table_id,
            self.round_id,
            self.timestamp,
            self.events,
            RoundArrays(
                line=ints(self.line),
                dealer=hands(self.dealer),
                upcard=np.asarray(self.upcard, dtype=np.int16),
                meter_before=ints(self.meter_before),
                meter_after=ints(self.meter_after),
                void=np.array(
                    [any(e in VOID_EVENTS for e in ev) for ev in self.events], dtype=bool
                ),
                seat_round=ints(self.seat_round),
                seat_number=ints(self.seat_number),
                seat_line=ints(self.seat_line),
                seat_cards=hands(self.seat_cards),
                decision=ints(self.decision),
                bets=np.asarray(self.bets, dtype=np.int64).reshape(-1, spots),
                paid=np.asarray(self.paid, dtype=np.int64).reshape(-1, spots),
            ),
        )


def amount_text(units: int) -> str:
    """An amount in 1/SCALE units as the shortest exact decimal."""
    sign = "-" if units < 0 else ""
    whole, frac = divmod(abs(units), SCALE)
    return f"{sign}{whole}.{frac:0{PLACES}d}".rstrip("0").rstrip(".") if frac else f"{sign}{whole}"


class _Reader:
    """Strict reading of one file's records into RoundChunks."""

    def __init__(self, path: Path, game: str) -> None:
        self.path = path
        self.game = game
        self.size = check_game(game)
        self.spots = SPOTS[game]
        self.decisions = DECISIONS[game]
        self.lines = 0
        self.rounds = 0
        self.seen: set[tuple[str, str]] = set()
        self.round_seats: set[int] = set()
        self.known_amounts: dict[str, int] = {}
        self.known_hands: dict[tuple[str, bool], tuple[int, ...]] = {}
        self.bet_names = {p: tuple(f"{p}{s}_bet" for s in self.spots) for p in ("",)}
        self.paid_names = {p: tuple(f"{p}{s}_paid" for s in self.spots) for p in ("",)}

    def error(self, line: int, field_name: str, message: str) -> RoundLogError:
        where = f"{self.path}:{line}"
        return RoundLogError(
            f"{where}: {field_name}: {message}" if field_name else f"{where}: {message}"
        )

    def cards(self, text: Any, line: int, name: str, *, exact: bool) -> tuple[int, ...]:
        if type(text) is str:  # a dealer's hand is repeated on every seat row of a CSV round
            known = self.known_hands.get((text, exact))
            if known is not None:
                return known
        hand = self._cards(text, line, name, exact=exact)
        if type(text) is str:
            if len(self.known_hands) >= CACHE_SIZE:
                self.known_hands.clear()
            self.known_hands[text, exact] = hand
        return hand

    def _cards(self, text: Any, line: int, name: str, *, exact: bool) -> tuple[int, ...]:
        if isinstance(text, list):
            tokens = text
        elif isinstance(text, str):
            tokens = text.replace(",", " ").replace(";", " ").split()
        else:
            raise self.error(line, name, f"expected cards as text or a list, got {text!r}")
        out = []
        for token in tokens:
            if not isinstance(token, str):
                raise self.error(line, name, f"expected a card code, got {token!r}")
            card = _CODES.get(token)
            if card is None:
                try:
                    parsed = _core.parse_hand(token)
                except (CardError, ValueError) as exc:
                    raise self.error(line, name, f"{token!r} is not a card ({exc})") from None
                if len(parsed) != 1:
                    raise self.error(line, name, f"{token!r} is not one card")
                card = parsed[0]
            out.append(card)
        if exact and len(out) != self.size:
            raise self.error(
                line, name, f"a {self.game} hand has {self.size} cards, got {len(out)}"
            )
        if len(out) > self.size:
            raise self.error(line, name, f"more than {self.size} cards ({len(out)})")
        return tuple(out)

    def amount(self, value: Any, line: int, name: str, *, optional: bool = False) -> int:
        if value is None or value == "":
            if optional:
                return 0
            raise self.error(line, name, "missing amount")
        if type(value) is str:  # logs repeat a few stakes: read each spelling once
            known = self.known_amounts.get(value)
            if known is not None:
                return known
        units = self._amount(value, line, name)
        if type(value) is str and len(self.known_amounts) < CACHE_SIZE:
            self.known_amounts[value] = units
        return units

    def _amount(self, value: Any, line: int, name: str) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, str, Decimal)):
            raise self.error(line, name, f"expected an amount, got {value!r}")
        text = str(value)
        if isinstance(value, Decimal) or not _AMOUNT.fullmatch(text):
            if isinstance(value, Decimal) and value.is_finite():
                text = format(value, "f")
            if not _AMOUNT.fullmatch(text):
                raise self.error(
                    line,
                    name,
                    f"{text!r} is not an amount (a decimal with at most {PLACES} places)",
                )
        whole, _, frac = text.lstrip("-").partition(".")
        if int(whole) > MAX_AMOUNT or (int(whole) == MAX_AMOUNT and frac.strip("0")):
            raise self.error(line, name, f"{text} is larger than {MAX_AMOUNT:,}")
        units: int = int(whole) * SCALE + int(frac.ljust(PLACES, "0") or "0")
        return -units if text.startswith("-") else units

    def text(self, value: Any, line: int, name: str) -> str:
        if isinstance(value, bool) or not isinstance(value, (str, int)):
            raise self.error(line, name, f"expected text, got {value!r}")
        text = str(value)
        if not text:
            raise self.error(line, name, "missing")
        return text

    def events(self, value: Any, line: int) -> tuple[str, ...]:
        if value is None or value == "":
            return ()
        items = value if isinstance(value, list) else re.split(r"[;|]", str(value))
        out = []
        for item in items:
            if not isinstance(item, str) or item.strip() not in EVENTS:
                raise self.error(
                    line, "events", f"unknown event {item!r} (known: {', '.join(EVENTS)})"
                )
            out.append(item.strip())
        return tuple(out)

    def add_round(self, chunk: _Columns, record: dict[str, Any], line: int) -> None:
        """The round's own fields; its seats are added with add_seat."""
        table = self.text(record.get("table_id"), line, "table_id")
        round_id = self.text(record.get("round_id"), line, "round_id")
        if (table, round_id) in self.seen:
            raise self.error(
                line, "round_id", f"round {round_id!r} of table {table!r} is logged twice"
            )
        self.seen.add((table, round_id))
        self.round_seats = set()
        events = self.events(record.get("events"), line)
        void = any(e in VOID_EVENTS for e in events)
        dealer = self.cards(record.get("dealer"), line, "dealer", exact=not void)
        upcard_text = record.get("upcard")
        upcard = -1
        if upcard_text not in (None, ""):
            (upcard,) = self.cards(upcard_text, line, "upcard", exact=False) or (-1,)
            if upcard not in dealer:
                raise self.error(
                    line, "upcard", f"{upcard_text!r} is not one of the dealer's cards"
                )
        elif self.game == "caribbean-stud" and not void:
            raise self.error(
                line, "upcard", "missing (Caribbean Stud deals one dealer card face up)"
            )
        chunk.table_id.append(table)
        chunk.round_id.append(round_id)
        chunk.timestamp.append(self.text(record.get("timestamp"), line, "timestamp"))
        chunk.line.append(line)
        chunk.events.append(events)
        chunk.dealer.append(dealer)
        chunk.upcard.append(upcard)
        chunk.meter_before.append(
            self.amount(record.get("meter_before"), line, "meter_before", optional=True)
        )
        chunk.meter_after.append(
            self.amount(record.get("meter_after"), line, "meter_after", optional=True)
        )
        self.rounds += 1

    def add_seat(
        self,
        chunk: _Columns,
        seat: dict[str, Any],
        bets: dict[str, Any],
        paid: dict[str, Any],
        line: int,
        prefix: str = "",
    ) -> None:
        number = seat.get("seat")
        try:
            n = int(str(number))
        except ValueError:
            raise self.error(
                line, f"{prefix}seat", f"expected a seat number, got {number!r}"
            ) from None
        if not 1 <= n <= 99 or isinstance(number, bool):
            raise self.error(line, f"{prefix}seat", f"seat {number!r} is out of range 1..99")
        r = len(chunk) - 1
        if n in self.round_seats:
            raise self.error(line, f"{prefix}seat", f"seat {n} appears twice in the round")
        void = any(e in VOID_EVENTS for e in chunk.events[r])
        cards = self.cards(seat.get("cards"), line, f"{prefix}cards", exact=not void)
        decision = seat.get("decision") or ""
        if decision not in self.decisions:
            raise self.error(
                line,
                f"{prefix}decision",
                f"{decision!r} is not a decision (expected {' or '.join(self.decisions[1:])}, "
                "or empty without a bet against the dealer)",
            )
        if prefix not in self.bet_names:
            self.bet_names[prefix] = tuple(f"{prefix}{s}_bet" for s in self.spots)
            self.paid_names[prefix] = tuple(f"{prefix}{s}_paid" for s in self.spots)
        bet_units = tuple(
            self.amount(bets.get(s), line, n, optional=True)
            for s, n in zip(self.spots, self.bet_names[prefix], strict=True)
        )
        paid_units = tuple(
            self.amount(paid.get(s), line, n, optional=True)
            for s, n in zip(self.spots, self.paid_names[prefix], strict=True)
        )
        for s, b in zip(self.spots, bet_units, strict=True):
            if b < 0:
                raise self.error(line, f"{prefix}{s}_bet", "a bet cannot be negative")
        self.round_seats.add(n)
        chunk.seat_round.append(r)
        chunk.seat_number.append(n)
        chunk.seat_line.append(line)
        chunk.seat_cards.append(cards)
        chunk.decision.append(self.decisions.index(decision))
        chunk.bets.append(bet_units)
        chunk.paid.append(paid_units)


def _open_text(path: Path) -> tuple[Any, io.TextIOWrapper]:
    try:
        raw = path.open("rb")
    except OSError as exc:
        raise RoundLogError(f"{path}: cannot open: {exc.strerror}") from None
    magic = raw.read(2)
    raw.seek(0)
    binary: Any = gzip.GzipFile(fileobj=raw, mode="rb") if magic == GZIP_MAGIC else raw
    return raw, io.TextIOWrapper(binary, encoding="utf-8", newline="")


def read_rounds(path: str | Path, game: str) -> Iterator[RoundChunk]:
    """The rounds of one log, chunk by chunk (CSV or JSON Lines, told apart by the first
    character: ``{`` starts JSON Lines)."""
    path = Path(path)
    reader = _Reader(path, game)
    raw, text = _open_text(path)
    try:
        with raw, text:
            try:
                first = text.read(1)
            except UnicodeDecodeError as exc:
                raise RoundLogError(f"{path}:1: invalid UTF-8 ({exc.reason})") from None
            if not first:
                raise RoundLogError(f"{path}: empty file")
            if first == "{":
                yield from _jsonl(reader, first, text)
            else:
                yield from _csv(reader, first, text)
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise RoundLogError(f"{path}: corrupt or truncated gzip data: {exc}") from None
    except UnicodeDecodeError as exc:
        raise RoundLogError(
            f"{path}: invalid UTF-8 after line {reader.lines} ({exc.reason})"
        ) from None
    if reader.rounds == 0:
        raise RoundLogError(f"{path}: no rounds")


def _jsonl(reader: _Reader, first: str, text: io.TextIOWrapper) -> Iterator[RoundChunk]:
    chunk = _Columns(reader.game, str(reader.path))
    lines = _prepend(first, text)
    for number, line in enumerate(lines, start=1):
        reader.lines = number
        if not line.strip():
            raise reader.error(number, "", "empty line (every line must be a round)")
        try:
            record = loads(line, str(reader.path), number, parse_float=Decimal)
        except StrictJsonError as exc:
            raise RoundLogError(str(exc)) from None
        if not isinstance(record, dict):
            raise reader.error(number, "", "expected a JSON object")
        unknown = set(record) - {*ROUND_FIELDS, "seats"}
        if unknown:
            raise reader.error(number, sorted(unknown)[0], "unknown field")
        reader.add_round(chunk, record, number)
        seats = record.get("seats")
        if not isinstance(seats, list) or not seats:
            raise reader.error(number, "seats", "expected a non-empty array of seats")
        for i, seat in enumerate(seats):
            prefix = f"seats[{i}]."
            if not isinstance(seat, dict):
                raise reader.error(number, f"seats[{i}]", "expected an object")
            unknown = set(seat) - {*SEAT_FIELDS, "bets", "paid"}
            if unknown:
                raise reader.error(number, prefix + sorted(unknown)[0], "unknown field")
            bets, paid = seat.get("bets", {}), seat.get("paid", {})
            for name, value in (("bets", bets), ("paid", paid)):
                if not isinstance(value, dict) or set(value) - set(reader.spots):
                    raise reader.error(
                        number,
                        prefix + name,
                        f"expected an object with keys among {', '.join(reader.spots)}",
                    )
            reader.add_seat(chunk, seat, bets, paid, number, prefix)
        if len(chunk) >= ROUNDS_PER_CHUNK:
            yield chunk.chunk()
            chunk = _Columns(reader.game, str(reader.path))
    if len(chunk):
        yield chunk.chunk()


def _prepend(first: str, text: io.TextIOWrapper) -> Iterator[str]:
    rest = text.readline()
    yield first + rest
    yield from text


def _csv(reader: _Reader, first: str, text: io.TextIOWrapper) -> Iterator[RoundChunk]:
    rows = csv.reader(_prepend(first, text), strict=True)
    try:
        header = next(rows)
    except csv.Error as exc:
        raise reader.error(1, "", f"unreadable CSV header: {exc}") from None
    expected = csv_columns(reader.game)
    header = [h.strip() for h in header]
    missing = [c for c in expected if c not in header]
    unknown = [c for c in header if c not in expected]
    if missing or unknown or len(set(header)) != len(header):
        problem = (
            f"missing column {missing[0]!r}"
            if missing
            else f"unknown column {unknown[0]!r}"
            if unknown
            else "a column is named twice"
        )
        raise reader.error(1, "", f"{problem}; a {reader.game} log has {','.join(expected)}")
    reader.lines = 1
    chunk = _Columns(reader.game, str(reader.path))
    current: tuple[str, ...] | None = None
    round_fields = [header.index(c) for c in ROUND_FIELDS]
    while True:
        try:
            row = next(rows)
        except StopIteration:
            break
        except csv.Error as exc:
            raise reader.error(rows.line_num, "", f"unreadable CSV row: {exc}") from None
        number = rows.line_num
        reader.lines = number
        if len(row) != len(header):
            raise reader.error(number, "", f"{len(row)} fields, the header has {len(header)}")
        record = dict(zip(header, row, strict=True))
        key = tuple(row[i] for i in round_fields)
        if current is None or key[:2] != current[:2]:
            if len(chunk) >= ROUNDS_PER_CHUNK:
                yield chunk.chunk()
                chunk = _Columns(reader.game, str(reader.path))
            reader.add_round(chunk, record, number)
            current = key
        elif key != current:
            differs = next(ROUND_FIELDS[i] for i in range(len(key)) if key[i] != current[i])
            raise reader.error(
                number, differs, "differs from the round's first row (round fields must agree)"
            )
        bets = {s: record[f"{s}_bet"] for s in reader.spots}
        paid = {s: record[f"{s}_paid"] for s in reader.spots}
        reader.add_seat(chunk, record, bets, paid, number)
    if len(chunk):
        yield chunk.chunk()
