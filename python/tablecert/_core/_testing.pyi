"""Type stubs of ``tablecert._core._testing`` (rust/bindings/testing.rs): the core's inner
steps that only the tests call, checked there against references and published counts."""

from typing import Final, Literal, final

from tablecert._core import CompactDecisions, Progress, TieBreaks

__all__ = [
    "Q_POKER_COUNT_FIELDS",
    "CaribbeanPayouts",
    "CaribbeanRun",
    "CategoryRow",
    "aperiodic_templates",
    "caribbean_analyze",
    "count_complete_hands",
    "dft_magnitudes",
    "dft_peak_counts",
    "erfc",
    "linear_complexity_of",
    "q_poker_hand_counts",
]

# --- the dedicated Q Poker and Caribbean Stud engines, the generic engine's oracles
# (rust/bindings/games.rs) ---

#: The columns of ``q_poker_hand_counts``'s table, in order.
Q_POKER_COUNT_FIELDS: Final[tuple[str, ...]]

def q_poker_hand_counts(
    tie_breaks: TieBreaks, qualifier_ranks: list[int], hands: tuple[int, int] | None = None
) -> bytes: ...

@final
class CategoryRow:
    """The totals of one player category under the optimal decision (Caribbean Stud)."""

    def __new__(
        cls,
        situations: int,
        raised: int,
        indifferent: int,
        not_qualifying: int,
        won: int,
        tied: int,
        lost: int,
        equal_ranks: int,
        won_on_suit: int,
        min_margin_at_floor: int,
    ) -> CategoryRow: ...
    @property
    def situations(self) -> int: ...
    @property
    def raised(self) -> int: ...
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
    @property
    def min_margin_at_floor(self) -> int: ...
    def merged(self, other: CategoryRow) -> CategoryRow: ...
    def __reduce__(self) -> tuple[type[CategoryRow], tuple[int, ...]]: ...
    def __eq__(self, other: object, /) -> bool: ...

@final
class CaribbeanPayouts:
    """Caribbean Stud payouts per ante as numerators over one common denominator."""

    def __new__(
        cls, fold: int, not_qualifying: int, win: list[int], tie: int, loss: int, win_floor: int
    ) -> CaribbeanPayouts: ...
    @property
    def fold(self) -> int: ...
    @property
    def not_qualifying(self) -> int: ...
    @property
    def win(self) -> list[int]: ...
    @property
    def tie(self) -> int: ...
    @property
    def loss(self) -> int: ...
    @property
    def win_floor(self) -> int: ...
    def __reduce__(
        self,
    ) -> tuple[type[CaribbeanPayouts], tuple[int, int, list[int], int, int, int]]: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __hash__(self) -> int: ...

@final
class CaribbeanRun:
    """One ``caribbean_analyze`` run: the category rows (lowest first) and the decisions, as
    the table (bytes, LE u64 per hand in colex order) or compact."""

    def __new__(
        cls, categories: list[CategoryRow], decisions: bytes | CompactDecisions
    ) -> CaribbeanRun: ...
    @property
    def categories(self) -> list[CategoryRow]: ...
    @property
    def decisions(self) -> bytes | CompactDecisions: ...
    def __reduce__(
        self,
    ) -> tuple[type[CaribbeanRun], tuple[list[CategoryRow], bytes | CompactDecisions]]: ...
    def __eq__(self, other: object, /) -> bool: ...

def caribbean_analyze(
    tie_breaks: TieBreaks,
    qualifier_ranks: list[int],
    payouts: CaribbeanPayouts,
    chunks: int = 0,
    progress: Progress | None = None,
    upcards: tuple[int, int] | None = None,
    part: tuple[int, int] | None = None,
    compact: bool = False,
) -> CaribbeanRun: ...

# --- mahjong hands (rust/bindings/mahjong.rs) ---

def count_complete_hands(types: list[int], sets: int) -> tuple[int, int]: ...

# --- NIST SP 800-22 (rust/bindings/nist.rs) ---

def aperiodic_templates(m: int) -> list[int]: ...
def erfc(x: float) -> float: ...
def dft_magnitudes(values: list[float], fft: Literal["hand", "crate"] = "hand") -> list[float]: ...
def dft_peak_counts(
    data: bytes, bits: int, sequences: int, fft: Literal["hand", "crate", "test"]
) -> list[tuple[int, Literal["hand", "crate"]]]: ...
def linear_complexity_of(bits: bytes) -> int: ...
