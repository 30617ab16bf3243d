"""The Python reading of round logs that the core's reader replaced, kept as the slow,
obviously correct reference the tests compare the core with (same chunks, same messages)."""

from __future__ import annotations

import csv
import gzip
import io
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.errors import CardError, RoundLogError
from tablecert.io.strict_json import StrictJsonError, loads
from tablecert.poker import check_game
from tablecert.rounds.log import (
    DECISIONS,
    EVENTS,
    GZIP_MAGIC,
    MAX_AMOUNT,
    MAX_ID_BYTES,
    METER_NOT_LOGGED,
    PLACES,
    ROUND_FIELDS,
    ROUNDS_PER_CHUNK,
    SCALE,
    SEAT_FIELDS,
    SPOTS,
    VOID_EVENTS,
    RoundArrays,
    RoundChunk,
    csv_columns,
)

CACHE_SIZE = 100_000
_AMOUNT = re.compile(rf"-?(0|[1-9][0-9]*)(\.[0-9]{{1,{PLACES}}})?")
_CODES = {_core.card_code(c): c for c in range(52)}
_CODES.update({k.lower(): v for k, v in list(_CODES.items())})
_CODES.update({k.upper(): v for k, v in list(_CODES.items())})


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

    def meter(self, value: Any, line: int, name: str) -> int:
        if value is None or value == "":
            return METER_NOT_LOGGED
        return self.amount(value, line, name)

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
        if isinstance(value, _Written) and "e" in value.written.lower():
            # an amount is a decimal as written: 1e1 is refused like the text "1e1"
            raise self.error(
                line,
                name,
                f"{value.written!r} is not an amount (a decimal with at most {PLACES} places)",
            )
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
        if name in ("table_id", "round_id") and len(text.encode()) > MAX_ID_BYTES:
            raise self.error(line, name, f"longer than {MAX_ID_BYTES} bytes")
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
            up = self.cards(upcard_text, line, "upcard", exact=False)
            if len(up) > 1:  # the old reader crashed here (an internal error): the core names it
                raise self.error(line, "upcard", f"{upcard_text!r} is more than one card")
            (upcard,) = up or (-1,)
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
        chunk.meter_before.append(self.meter(record.get("meter_before"), line, "meter_before"))
        chunk.meter_after.append(self.meter(record.get("meter_after"), line, "meter_after"))
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


class _Written(Decimal):
    """A JSON number with a fraction or an exponent, read exactly, with its text as written."""

    written: str

    @classmethod
    def of(cls, text: str) -> _Written:
        number = cls(text)
        number.written = text
        return number

    def __repr__(self) -> str:
        return f"Decimal('{self.written}')"  # as the log wrote it (1e+16, not 1E+16)


def _open_text(path: Path) -> tuple[Any, io.TextIOWrapper]:
    try:
        raw = path.open("rb")
    except OSError as exc:
        raise RoundLogError(f"{path}: cannot open: {exc.strerror}") from None
    magic = raw.read(2)
    raw.seek(0)
    binary: Any = gzip.GzipFile(fileobj=raw, mode="rb") if magic == GZIP_MAGIC else raw
    return raw, io.TextIOWrapper(binary, encoding="utf-8", newline="")


def reference_rounds(path: str | Path, game: str) -> Iterator[RoundChunk]:
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
            if first == "\ufeff":  # a byte order mark is no part of the first line
                first = text.read(1)
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
            continue  # a blank line holds nothing
        try:
            record = loads(line, str(reader.path), number, parse_float=_Written.of)
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
        if not row or (len(row) == 1 and not row[0].strip()):
            continue  # a blank line holds nothing
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
