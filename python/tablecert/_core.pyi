"""Type stubs of the Rust core, ``tablecert._core`` (rust/bindings/)."""

from typing import Final, final

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
    ) -> TieBreaks: ...
    @property
    def suit_decides(self) -> bool: ...
    @property
    def ace_low_straight_suit(self) -> str: ...
    @property
    def pair_suit(self) -> str: ...
    def __eq__(self, other: object, /) -> bool: ...

def parse_hand(text: str) -> list[int]: ...
def card_code(card: int) -> str: ...
def strength_key(hand: list[int], tie_breaks: TieBreaks) -> int: ...
def key_fields(key: int) -> tuple[int, list[int], int]: ...
def category_names(hand_size: int) -> list[str]: ...
def strength_keys(cards: bytes, hand_size: int, tie_breaks: TieBreaks) -> bytes: ...
def all_strength_keys(hand_size: int, tie_breaks: TieBreaks) -> bytes: ...
def category_counts(hand_size: int, tie_breaks: TieBreaks) -> list[int]: ...
def hand_at(index: int, hand_size: int) -> list[int]: ...
def colex_index(hand: list[int]) -> int: ...

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
) -> tuple[list[tuple[int, ...]], bytes]: ...
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
