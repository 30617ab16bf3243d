"""Type stubs of the Rust core, ``tablecert._core`` (rust/bindings/)."""

from collections.abc import Callable, Sequence
from typing import Any, Final, TypeAlias, final

import numpy.typing as npt
from typing_extensions import Buffer

# The functions only the tests call are in the submodule (rust/bindings/testing.rs).
from tablecert._core import _testing as _testing

# The core raises tablecert.errors' classes (rust/bindings/errors.rs) and lists five here too.
from tablecert.errors import CardError as CardError
from tablecert.errors import LogError as LogError
from tablecert.errors import NistError as NistError
from tablecert.errors import RulesError as RulesError
from tablecert.errors import TileError as TileError

__version__: Final[str]

#: Any object with the buffer protocol (bytes, array.array, a NumPy array); the core checks its
#: item type and layout.
_Buffer: TypeAlias = Buffer | npt.NDArray[Any]

# --- cards and the statute orderings (rust/bindings/cards.rs) ---

@final
class TieBreaks:
    """The tie-break rules of one ordering, as the rule files name them."""

    def __new__(
        cls,
        suit_decides: bool,
        ace_low_straight_suit: str = "top-of-sequence",
        pair_suit: str = "higher",
        suit_order: str = "shcd",
    ) -> TieBreaks: ...
    @property
    def suit_decides(self) -> bool: ...
    @property
    def ace_low_straight_suit(self) -> str: ...
    @property
    def pair_suit(self) -> str: ...
    @property
    def suit_order(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...

def parse_hand(text: str) -> list[int]: ...
def card_code(card: int) -> str: ...
def strength_key(hand: list[int], tie_breaks: TieBreaks) -> int: ...
def key_fields(key: int) -> tuple[int, list[int], int]: ...

# --- one hand's evaluation (rust/bindings/evaluation.rs) ---
@final
class Evaluation:
    def __new__(
        cls, game: str, cards: Sequence[int], category: str, category_index: int, key: int
    ) -> Evaluation: ...
    @property
    def game(self) -> str: ...
    @property
    def cards(self) -> tuple[int, ...]: ...
    @property
    def category(self) -> str: ...
    @property
    def category_index(self) -> int: ...
    @property
    def key(self) -> int: ...
    @property
    def codes(self) -> str: ...
    @property
    def name(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __ne__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[type[Evaluation], tuple[str, tuple[int, ...], str, int, int]]: ...

def evaluation_of_text(
    text: str,
    hand_size: int,
    tie_breaks: TieBreaks,
    game: str,
    categories: tuple[str, ...],
) -> Evaluation | None: ...
def stud_evaluation_of_text(
    text: str,
    ranking: StudRanking,
    sizes: Sequence[int],
    game: str,
    categories: tuple[str, ...],
) -> Evaluation | None: ...
def compare_texts(a: str, b: str, hand_size: int, tie_breaks: TieBreaks) -> int | None: ...
def category_names(hand_size: int) -> list[str]: ...
def category_steps(hand_size: int) -> list[list[str]]: ...
def strength_keys(cards: bytes, hand_size: int, tie_breaks: TieBreaks) -> bytes: ...
def all_strength_keys(hand_size: int, tie_breaks: TieBreaks) -> bytes: ...
def category_counts(hand_size: int, tie_breaks: TieBreaks) -> list[int]: ...
def hand_at(index: int, hand_size: int) -> list[int]: ...
def all_hands(hand_size: int) -> bytes: ...
def colex_index(hand: list[int]) -> int: ...

# --- perfect-hash evaluation and exhaustive score checks (rust/bindings/lookup.rs) ---

@final
class KeyTable:
    """Every hand's key of one ordering, indexed by colex index; evaluates arrays of hands by
    perfect hash (no per-hand Python work, the GIL released, rayon across cores)."""

    def __new__(cls, hand_size: int, tie_breaks: TieBreaks) -> KeyTable: ...
    @property
    def hand_size(self) -> int: ...
    def __len__(self) -> int: ...
    def key(self, hand: list[int]) -> int: ...
    def keys(self, cards: _Buffer) -> bytes: ...
    def keys_into(self, cards: _Buffer, out: _Buffer, threads: bool = True) -> None: ...
    def check_scores(self, scores: _Buffer, keep: int = 20) -> ScoreCheck: ...
    def suit_decided_pairs(self) -> int: ...
    def hands(self) -> bytes: ...
    def table(self) -> bytes: ...
    def dealer_splits(
        self,
        fixed: _Buffer,
        dead: _Buffer,
        offsets: _Buffer,
        thresholds: _Buffer,
        below: _Buffer,
        equal: _Buffer,
    ) -> None: ...

@final
class CategoryTally:
    """One category's pairs of hands within rank classes: the disjoint pairs checked and those
    the scores reverse, push or split, with example pairs (colex indices)."""

    @property
    def checked(self) -> int: ...
    @property
    def reversed(self) -> int: ...
    @property
    def pushed(self) -> int: ...
    @property
    def split(self) -> int: ...
    @property
    def examples(self) -> list[tuple[int, int]]: ...

@final
class ClassBoundary:
    """A pair of adjacent rank classes whose scores overlap (colex indices of a hand of each)."""

    @property
    def lower(self) -> int: ...
    @property
    def upper(self) -> int: ...
    @property
    def disjoint(self) -> bool: ...

@final
class ScoreCheck:
    """What ``KeyTable.check_scores`` found: tallies per category, rank classes, boundaries."""

    @property
    def within(self) -> list[CategoryTally]: ...
    @property
    def classes(self) -> int: ...
    @property
    def boundaries(self) -> list[ClassBoundary]: ...

# --- mahjong tiles (rust/bindings/mahjong.rs) ---

def parse_tiles(text: str) -> list[int]: ...
def tile_code(tile: int) -> str: ...
def tile_types(tile_set: str) -> list[int]: ...
def tile_counts(tiles: list[int], tile_set: str) -> list[int]: ...

# --- game math (rust/bindings/games.rs) ---

@final
class Progress:
    """A counter the core advances while it works, for a progress bar in another thread."""

    def __new__(cls) -> Progress: ...
    @property
    def done(self) -> int: ...

@final
class CompactDecisions:
    """A shard's raise decisions as it sends them back: its upcard range and three
    little-endian byte strings, checked when put together (``caribbean_decision_table``)."""

    def __new__(
        cls, upcards: tuple[int, int], every: bytes, index: bytes, bits: bytes
    ) -> CompactDecisions: ...
    @property
    def upcards(self) -> tuple[int, int]: ...
    @property
    def every(self) -> bytes: ...
    @property
    def index(self) -> bytes: ...
    @property
    def bits(self) -> bytes: ...
    def __reduce__(
        self,
    ) -> tuple[type[CompactDecisions], tuple[tuple[int, int], bytes, bytes, bytes]]: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class SituationCounts:
    """One Caribbean Stud situation's dealer completions by outcome (direct enumeration)."""

    @property
    def not_qualifying(self) -> int: ...
    @property
    def won(self) -> int: ...
    @property
    def tied(self) -> int: ...
    @property
    def lost(self) -> int: ...
    @property
    def equal_ranks(self) -> int: ...
    @property
    def won_on_suit(self) -> int: ...

def caribbean_decision_table(parts: list[CompactDecisions]) -> bytes: ...
def caribbean_situation(
    tie_breaks: TieBreaks, qualifier_ranks: list[int], hand: list[int], upcard: int
) -> SituationCounts: ...

# --- the generic stud-poker engine (rust/bindings/stud.rs) ---

@final
class StudRanking:
    """A game's ranking: cards that make a hand, categories highest first, tie-breaks."""

    def __new__(cls, uses: int, categories: list[str], tie_breaks: TieBreaks) -> StudRanking: ...
    @property
    def uses(self) -> int: ...
    @property
    def categories(self) -> list[str]: ...

def stud_key(ranking: StudRanking, cards: list[int]) -> int: ...
def stud_category_counts(ranking: StudRanking, deck: list[int], cards: int) -> list[list[int]]: ...

@final
class StudGame:
    """A game's deal: deck, cards to the player and to the dealer, upcards, qualifier."""

    def __new__(
        cls,
        ranking: StudRanking,
        deck: list[int],
        player_cards: int,
        dealer_cards: int,
        upcards: int,
        qualifier: tuple[str, list[int]] | None,
    ) -> StudGame: ...
    @property
    def completions(self) -> int: ...
    @property
    def deck(self) -> list[int]: ...
    @property
    def lanes(self) -> int: ...

@final
class StudRow:
    """One (category place, decision) over the situations where it was chosen."""

    @property
    def category(self) -> int: ...
    @property
    def decision(self) -> int: ...
    @property
    def situations(self) -> int: ...
    @property
    def indifferent(self) -> int: ...
    @property
    def not_qualifying(self) -> int: ...
    @property
    def won(self) -> int: ...
    @property
    def tied(self) -> int: ...
    @property
    def lost(self) -> int: ...
    @property
    def equal_ranks(self) -> int: ...
    @property
    def won_on_suit(self) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class StudRun:
    """The analysis: completions per situation, all situations, rows, and what was asked of
    the situations (each None unless asked)."""

    @property
    def completions(self) -> int: ...
    @property
    def situations(self) -> int: ...
    @property
    def rows(self) -> list[StudRow]: ...
    @property
    def decisions(self) -> bytes | None: ...
    @property
    def raise_masks(self) -> bytes | None: ...
    @property
    def counts(self) -> bytes | None: ...
    @property
    def min_margins(self) -> list[int] | None: ...

STUD_COUNT_FIELDS: list[str]
"""The columns of ``StudRun.counts``: LE u32 per (player hand, lane) and column."""

def stud_analyze(
    game: StudGame,
    values: list[list[list[int]]],
    *,
    decisions: bool = False,
    masks: bool = False,
    counts: bool = False,
    floor: list[list[list[int]]] | None = None,
    threads: int = 0,
    progress: Progress | None = None,
    shard: tuple[int, int] = ...,
) -> StudRun: ...
def compact_decisions(table: bytes) -> CompactDecisions: ...

# --- mahjong hands (rust/bindings/mahjong.rs) ---
# A meld crosses as (kind "chow" | "pung" | "kong", lowest tile id, exposed).
# Signature bits: 0-2 suits present (m, p, s); 3 honours present; 4 only terminals and
# honours; 5 every set a pung/kong; 6 every set a chow; 7 Thirteen Orphans; 8 no exposed meld;
# 9-15 pungs/kongs of E S W N Rd Gd Wd; 16-21 the pair's tile (34 for Thirteen Orphans).

def decompose_hand(
    concealed: list[int], melds: list[tuple[str, int, bool]], tile_set: str
) -> tuple[bool, list[tuple[int, list[tuple[str, int, bool]]]]]: ...
def hand_signature(pair: int, sets: list[tuple[str, int, bool]]) -> int: ...
def thirteen_orphans_signature() -> int: ...
def enumerate_complete_hands(
    tile_set: str,
) -> tuple[int, int, int, int, list[tuple[list[int], int, int]]]: ...

# --- NIST SP 800-22 (rust/bindings/nist.rs) ---

def nist_test_names() -> list[str]: ...
def nist_check(
    bits: int, params: dict[str, int], templates: list[int] | None = None
) -> list[tuple[str, str | None]]: ...
def nist_resolved(
    bits: int, params: dict[str, int], templates: list[int] | None = None
) -> list[tuple[str, int | None]]: ...
def nist_run(
    data: bytes,
    bits: int,
    sequences: int,
    tests: list[str],
    params: dict[str, int],
    templates: list[int] | None = None,
) -> tuple[list[tuple[str, str]], int, bytes]: ...
def igamc(a: float, x: float) -> float: ...

# --- shuffler audit (rust/bindings/audit.rs) ---

@final
class ShuffleAudit:
    """One streaming audit over one or more logs of one deck kind."""

    def __new__(
        cls,
        deck: str,
        input_order: str = "previous",
        hand_size: int = 0,
        hands: int = 0,
        round_robin: bool = False,
        tie_breaks: TieBreaks | None = None,
        batch_size: int = 0,
        keep_orders: bool = False,
    ) -> ShuffleAudit: ...
    def begin_file(self, name: str) -> None: ...
    def feed(self, chunk: bytes) -> None: ...
    def read_file(
        self,
        path: str,
        progress: Callable[[int, int], object] | None = None,
        on_batches: Callable[[list[dict[str, object]], bytes], object] | None = None,
    ) -> None: ...
    def start_files(self, paths: list[str]) -> None: ...
    def end_file(self) -> None: ...
    def finish(self) -> None: ...
    def add_simulated(self, model: str, decks: int, seed: int, device: str = "SIM-1") -> None: ...
    def take_orders(self) -> bytes: ...
    @property
    def records(self) -> int: ...
    @property
    def bad_count(self) -> int: ...
    @property
    def lines(self) -> int: ...
    @property
    def header_lines(self) -> int: ...
    @property
    def blank_lines(self) -> int: ...
    @property
    def without_input(self) -> int: ...
    @property
    def records_with_events(self) -> int: ...
    def bad_records(self) -> list[tuple[str, int, str]]: ...
    def device_ids(self) -> list[str]: ...
    def events(self) -> list[tuple[str, int]]: ...
    def repeats(self) -> tuple[int, int, int, int, float]: ...
    def tally(self) -> dict[str, object]: ...
    def take_batches(self) -> list[dict[str, object]]: ...

@final
class ShuffleSimulator:
    """Orders from a simulated device, each shuffle applied to the previous output."""

    def __new__(cls, model: str, deck: str = "cards52", seed: int = 0) -> ShuffleSimulator: ...
    @property
    def model(self) -> str: ...
    def orders(self, count: int) -> bytes: ...

@final
class RoundMeter:
    """A simulated table's progressive bet and meter (amounts in 1/10,000 units)."""

    def __new__(
        cls,
        *,
        bet: int,
        start: int,
        seed: int,
        contribution: tuple[int, int],
        before_prizes: bool,
        descending: bool,
        straight_flush_on_meter_before: bool,
        pays_royal: bool,
        pays_straight_flush: bool,
        unit: int,
        prizes: list[tuple[int, int, int] | None],
        royal: int,
        straight_flush: int,
        royals: list[int],
        straight_flushes: list[int],
        multi_deals: list[list[bool]],
        multi_ppm: int,
    ) -> RoundMeter: ...

@final
class RoundSimulator:
    """A seeded table's round log of clean play, made in the core a block of rounds at a
    time (gzip: one member per 4,096 rounds)."""

    def __new__(
        cls,
        *,
        hand_size: int,
        players: int,
        threshold: int,
        keys: bytes,
        strategy: bytes,
        caribbean: bool,
        spots: tuple[tuple[list[int], int], tuple[list[int], int]] | list[tuple[list[int], int]],
        menus: tuple[list[int], list[int]],
        raise_multiple: tuple[int, int],
        maximum_payout: int,
        capped: list[bool],
        meter: RoundMeter | None,
        void_ppm: int,
        table_id: str,
        json_lines: bool,
        start: int,
        step: int,
        seed: int,
    ) -> RoundSimulator: ...
    def block(self, rounds: int, gzip: int | None = None) -> bytes: ...
    @property
    def done(self) -> int: ...

@final
class ShuffleLogWriter:
    """A simulated device's log (CSV or JSON Lines, optionally gzip), made in the core a block
    of chunks at a time; each chunk of ``chunk`` shuffles is one gzip member, and the bytes
    depend on the arguments only, not on the thread count or the blocks asked for."""

    def __new__(
        cls,
        model: str,
        deck: str,
        seed: int,
        shuffles: int,
        device: str = "SIM-1",
        format: str = "csv",
        gzip: bool = False,
        level: int = 2,
        chunk: int = 4096,
    ) -> ShuffleLogWriter: ...
    @property
    def done(self) -> int: ...
    def next_block(self, chunks: int) -> bytes: ...

#: The fields of a round log's round and of its seats, in CSV column order.
ROUND_LOG_FIELDS: Final[tuple[list[str], list[str]]]

@final
class RoundReader:
    """A streaming strict reader of one round log: bytes in, chunks of columns out."""

    def __new__(
        cls,
        path: str,
        game: str,
        hand_size: int,
        spots: list[str],
        decisions: list[str],
        events: list[str],
        void_events: int,
        upcard_required: bool,
        rounds_per_chunk: int,
        dealer_hand_size: int | None = None,
    ) -> RoundReader: ...
    def feed(self, data: bytes) -> list[dict[str, Any]]: ...
    def open(self, path: str) -> None: ...
    def next_chunks(self) -> list[dict[str, Any]] | None: ...
    def finish(self) -> list[dict[str, Any]]: ...
    @property
    def rounds(self) -> int: ...
