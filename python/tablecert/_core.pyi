"""Type stubs of the Rust core, ``tablecert._core`` (rust/bindings/)."""

from collections.abc import Callable
from typing import Any, Final, Literal, final, overload

__version__: Final[str]

class CardError(ValueError):
    """A card code, hand or card array is invalid; the message names the bad value."""

class TileError(ValueError):
    """A mahjong tile code or tile multiset is invalid; the message names the bad value."""

class RulesError(ValueError):
    """A rule option passed to the core is not one it knows."""

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
def category_names(hand_size: int) -> list[str]: ...
def category_steps(hand_size: int) -> list[list[str]]: ...
def strength_keys(cards: bytes, hand_size: int, tie_breaks: TieBreaks) -> bytes: ...
def all_strength_keys(hand_size: int, tie_breaks: TieBreaks) -> bytes: ...
def category_counts(hand_size: int, tie_breaks: TieBreaks) -> list[int]: ...
def hand_at(index: int, hand_size: int) -> list[int]: ...
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
    def keys(self, cards: object) -> bytes: ...
    def keys_into(self, cards: object, out: object, threads: bool = True) -> None: ...
    def check_scores(
        self, scores: object, keep: int = 20
    ) -> tuple[
        list[tuple[int, int, int, int, list[tuple[int, int]]]], int, list[tuple[int, int, bool]]
    ]: ...
    def suit_decided_pairs(self) -> int: ...
    def hands(self) -> bytes: ...
    def table(self) -> bytes: ...
    def dealer_splits(
        self,
        fixed: object,
        dead: object,
        offsets: object,
        thresholds: object,
        below: object,
        equal: object,
    ) -> None: ...

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

def q_poker_hand_counts(
    tie_breaks: TieBreaks, qualifier_ranks: list[int], hands: tuple[int, int] | None = None
) -> bytes: ...
@overload
def caribbean_analyze(
    tie_breaks: TieBreaks,
    qualifier_ranks: list[int],
    fold: int,
    not_qualifying: int,
    win: list[int],
    tie: int,
    loss: int,
    win_floor: int,
    chunks: int = 0,
    progress: Progress | None = None,
    upcards: tuple[int, int] | None = None,
    part: tuple[int, int] | None = None,
    compact: Literal[False] = False,
) -> tuple[list[tuple[int, ...]], bytes]: ...
@overload
def caribbean_analyze(
    tie_breaks: TieBreaks,
    qualifier_ranks: list[int],
    fold: int,
    not_qualifying: int,
    win: list[int],
    tie: int,
    loss: int,
    win_floor: int,
    chunks: int = 0,
    progress: Progress | None = None,
    upcards: tuple[int, int] | None = None,
    part: tuple[int, int] | None = None,
    *,
    compact: Literal[True],
) -> tuple[list[tuple[int, ...]], tuple[bytes, bytes, bytes]]: ...
def caribbean_decision_table(
    parts: list[tuple[tuple[int, int], bytes, bytes, bytes]],
) -> bytes: ...
def caribbean_situation(
    tie_breaks: TieBreaks, qualifier_ranks: list[int], hand: list[int], upcard: int
) -> list[int]: ...

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
def count_complete_hands(types: list[int], sets: int) -> tuple[int, int]: ...

# --- NIST SP 800-22 (rust/bindings/nist.rs) ---

class NistError(ValueError): ...

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
def aperiodic_templates(m: int) -> list[int]: ...
def igamc(a: float, x: float) -> float: ...
def erfc(x: float) -> float: ...
def dft_magnitudes(values: list[float], fft: Literal["hand", "crate"] = "hand") -> list[float]: ...
def dft_peak_counts(
    data: bytes, bits: int, sequences: int, fft: Literal["hand", "crate", "test"]
) -> list[tuple[int, Literal["hand", "crate"]]]: ...
def linear_complexity_of(bits: bytes) -> int: ...

# --- shuffler audit (rust/bindings/audit.rs) ---

class LogError(ValueError):
    """A shuffler log cannot be read; the message names the file, line and byte."""

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
    ) -> RoundReader: ...
    def feed(self, data: bytes) -> list[dict[str, Any]]: ...
    def open(self, path: str) -> None: ...
    def next_chunks(self) -> list[dict[str, Any]] | None: ...
    def finish(self) -> list[dict[str, Any]]: ...
    @property
    def rounds(self) -> int: ...
