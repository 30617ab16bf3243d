"""Type stubs of ``tablecert._core._testing`` (rust/bindings/testing.rs): the core's inner
steps that only the tests call, checked there against references and published counts."""

from typing import Literal

__all__ = [
    "aperiodic_templates",
    "count_complete_hands",
    "dft_magnitudes",
    "dft_peak_counts",
    "erfc",
    "linear_complexity_of",
]

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
