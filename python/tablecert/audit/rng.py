"""NIST SP 800-22 rev1a on raw RNG output: read bits, split them into sequences as the NIST
tool does, run the fifteen tests in the Rust core, and judge the p-values as section 4.2 says.

Input is binary (bits most significant first in each byte) or ASCII '0'/'1' (the NIST tool's
data files such as data.pi); `read_bits` detects which and says so. Shuffler logs become bits
with `permutations_to_bits`. The second level, per p-value column: the proportion of sequences
with p >= alpha against p̂ ± 3 sqrt(p̂(1-p̂)/m), and the uniformity of the p-values (chi-square
over 10 bins, P-value_T = igamc(9/2, chi2/2), judged only from 55 sequences on).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any, Literal

import numpy as np

from tablecert import _core
from tablecert.equality import ContentEq
from tablecert.errors import NistError, RngAuditError
from tablecert.exact import exact_json, measured
from tablecert.io.inputs import open_regular
from tablecert.io.pathlike import PathsArg, as_paths, distinct_paths
from tablecert.judgement import Outcome

#: The fifteen tests, in the order of the NIST tool's finalAnalysisReport.
TEST_NAMES: tuple[str, ...] = tuple(_core.nist_test_names())
#: The document's significance level.
ALPHA = 0.01
#: Below this P-value_T the p-values are judged non-uniform (section 4.2.2).
UNIFORMITY_THRESHOLD = 0.0001
#: Fewer sequences than this: uniformity is not assessed (section 4.2.2).
MIN_SEQUENCES_FOR_UNIFORMITY = 55
#: The sequence length the document recommends and the default here.
DEFAULT_BITS = 1_000_000

InputFormat = Literal["auto", "binary", "ascii"]


@dataclass(frozen=True)
class NistParameters:
    """Every parameter of the battery; the defaults are the document's (and the NIST tool's).

    Zero means "chosen from n as the document does" for `longest_run_m`, `universal_l` and
    `universal_q`; `min_cycles=None` is the rule max(0.005 sqrt(n), 500). Class probabilities
    are exact by default; three flags reproduce the published numbers instead (see
    docs/methodology/nist.md):
    `longest_run_rounded` (table 2.4's four decimals), `overlapping_approximate` (the
    uncorrected overlapping-template probabilities) and `linear_complexity_tool_pi` (the NIST
    tool's misprinted π_0 = 0.01047).
    """

    block_frequency_m: int = 128
    longest_run_m: int = 0
    longest_run_rounded: bool = False
    rank_rows: int = 32
    rank_cols: int = 32
    non_overlapping_m: int = 9
    non_overlapping_blocks: int = 8
    non_overlapping_templates: tuple[int, ...] | None = None
    overlapping_m: int = 9
    overlapping_template: int | None = None
    overlapping_block: int = 1032
    overlapping_k: int = 5
    overlapping_approximate: bool = False
    universal_l: int = 0
    universal_q: int = 0
    linear_complexity_m: int = 500
    linear_complexity_tool_pi: bool = False
    serial_m: int = 16
    approximate_entropy_m: int = 10
    min_cycles: int | None = None

    def core_args(self) -> tuple[dict[str, int], list[int] | None]:
        """The keyword dict and template list the core's `nist_run` takes."""
        values = asdict(self)
        templates = values.pop("non_overlapping_templates")
        out: dict[str, int] = {}
        for key, value in values.items():
            if value is None:
                out[key] = -1
            elif isinstance(value, bool):
                out[key] = int(value)
            else:
                out[key] = int(value)
        return out, None if templates is None else list(templates)


@dataclass(frozen=True)
class BitSource:
    """Bits read from one or more files, packed MSB-first, and how they were read."""

    data: bytes
    total_bits: int
    format: Literal["binary", "ascii"]
    sources: tuple[str, ...]


_ASCII_BYTES = b"01 \t\r\n"


def _looks_ascii(raw: bytes) -> bool:
    # a binary file shows a byte other than the digits and whitespace almost at once: look at
    # a prefix before scanning (and copying) the whole file
    if raw[:4096].translate(None, _ASCII_BYTES):
        return False
    return bool(raw.strip()) and not raw.translate(None, _ASCII_BYTES)


def _ascii_bits(raw: bytes, name: str) -> np.ndarray[Any, np.dtype[np.uint8]]:
    stray = raw.translate(None, _ASCII_BYTES)
    if stray:
        raise RngAuditError(
            f"{name}: ASCII input may hold only '0', '1' and whitespace; found {stray[:1]!r}"
        )
    digits = raw.translate(None, b" \t\r\n")
    return np.frombuffer(digits, dtype=np.uint8) - ord("0")


def _read_bit_file(path: Path, fmt: InputFormat, budget: int | None) -> tuple[bytes, int, bool]:
    """(bytes read, the file's size, whether it is ASCII digits) of a regular file only (a
    FIFO may never get a writer, a device such as /dev/zero never ends). A binary file is
    read up to ``budget`` bytes (None: whole); an ASCII one whole (its bits are counted)."""
    try:
        with open_regular(path) as handle:
            size = os.fstat(handle.fileno()).st_size
            head = handle.read(4096)
            ascii_file = fmt == "ascii" or (
                fmt == "auto" and bool(head) and not head.translate(None, _ASCII_BYTES)
            )
            if ascii_file or budget is None:
                raw = head + handle.read()
            else:
                wanted = min(budget, size)  # a budget past the file's end reads what is there
                raw = head[:wanted] + handle.read(max(0, wanted - len(head)))
    except OSError as exc:
        raise RngAuditError(f"{path}: cannot read ({exc.strerror})") from exc
    if ascii_file and fmt == "auto" and not _looks_ascii(raw):
        ascii_file = False  # the digits were only a prefix: the file is binary
    return raw, max(size, len(raw)), ascii_file


def read_bits(paths: PathsArg, fmt: InputFormat = "auto", max_bits: int | None = None) -> BitSource:
    """Read and concatenate the bits of `paths` (one path or many). "auto" takes a file holding
    only '0', '1' and whitespace as ASCII digits (as the NIST tool's data files), anything else
    as binary. Binary files are held once, as read (no bit-per-byte expansion), and only their
    first ``max_bits`` bits are read when fewer are needed (``--sequences`` times ``--bits``):
    memory is what the battery tests, not the file's size. ``total_bits`` is the whole input's."""
    paths = distinct_paths(as_paths(paths, "RNG output file"), "RNG output file")
    if not paths:
        raise RngAuditError("no input file given")
    budget = None if max_bits is None else -(-max_bits // 8)
    binary: list[bytes] = []
    binary_bits = 0
    ascii_chunks: list[np.ndarray[Any, np.dtype[np.uint8]]] = []
    for path in paths:
        p = Path(path)
        left = None if budget is None else max(0, budget - sum(len(b) for b in binary))
        raw, size, ascii_file = _read_bit_file(p, fmt, left)
        if not size:
            raise RngAuditError(f"{p}: the file is empty")
        if ascii_file:
            ascii_chunks.append(_ascii_bits(raw, str(p)))
        else:
            binary.append(raw)
            binary_bits += 8 * size
        del raw
        if binary and ascii_chunks:
            raise RngAuditError("the input files mix ASCII '0'/'1' and binary data; pass --format")
    kind: Literal["binary", "ascii"] = "binary" if binary else "ascii"
    if binary:
        data = binary[0] if len(binary) == 1 else b"".join(binary)
        binary.clear()
        total = binary_bits
    else:
        bits = ascii_chunks[0] if len(ascii_chunks) == 1 else np.concatenate(ascii_chunks)
        ascii_chunks.clear()
        total = int(bits.size)
        data = np.packbits(bits).tobytes()
        del bits
    if total == 0:
        raise RngAuditError("the input holds no bits")
    return BitSource(
        data=data,
        total_bits=total,
        format=kind,
        sources=tuple(str(p) for p in paths),
    )


def bits_needed(bits: int | None, sequences: int | None) -> int | None:
    """The bits the battery reads for ``--bits`` and ``--sequences`` (None: every whole
    sequence the input holds, so all of it)."""
    return None if sequences is None or sequences < 1 else sequences * (bits or DEFAULT_BITS)


def bits_from_string(text: str) -> bytes:
    """Pack a string of '0'/'1' (whitespace ignored) MSB-first, e.g. the document's examples."""
    return np.packbits(_ascii_bits(text.encode(), "bit string")).tobytes()


#: The shortest sequence `split_sequences` accepts: the document's smallest recommended input
#: size (n >= 100 for the frequency, runs and cumulative sums tests, section 2.1.7).
MIN_BITS = 100


def check_sizes(bits: int | None, sequences: int | None) -> None:
    """Refuse a ``--bits`` below :data:`MIN_BITS` or a ``--sequences`` below 1, whatever the
    input holds (so before any of it is read)."""
    if bits is not None and bits < MIN_BITS:
        raise RngAuditError(
            f"--bits {bits}: a sequence needs at least {MIN_BITS} bits "
            "(NIST SP 800-22's smallest recommended length)"
        )
    if sequences is not None and sequences <= 0:
        raise RngAuditError(f"--sequences {sequences}: need at least one sequence")


def split_sequences(total_bits: int, bits: int | None, sequences: int | None) -> tuple[int, int]:
    """(n, N): n bits per sequence (default 10^6, the document's and the NIST tool's) and N
    sequences (default as many whole sequences as the input holds), as the NIST tool splits a
    stream. Fewer bits than one sequence is an error, as is n below 100 or N below 1."""
    check_sizes(bits, sequences)
    if total_bits <= 0:
        raise RngAuditError("the input holds no bits")
    n = bits if bits is not None else DEFAULT_BITS
    if total_bits < n:
        hint = "" if bits is not None else "; pass --bits for shorter sequences"
        raise RngAuditError(
            f"the input has {total_bits:,} bits, fewer than one sequence of {n:,} bits{hint}"
        )
    count = sequences if sequences is not None else total_bits // n
    if count <= 0:
        raise RngAuditError(f"--sequences {count}: need at least one sequence")
    if count * n > total_bits:
        raise RngAuditError(
            f"{count:,} sequences of {n:,} bits need {count * n:,} bits; "
            f"the input has {total_bits:,}"
        )
    return n, count


def column_name(test: str, label: str) -> str:
    """A p-value column as every table and JSON of the RNG audit names it: the test, then
    its template or state when it has several columns (``NonOverlappingTemplate 000000001``)."""
    return f"{test} {label}".strip()


@dataclass(frozen=True)
class ColumnResult:
    """The second level of one p-value column (one test, or one template/state of a test)."""

    test: str
    label: str
    histogram: tuple[int, ...]
    sample_size: int
    passed: int
    proportion_bounds: tuple[float, float]
    uniformity_p: float | None

    @property
    def proportion(self) -> float:
        return self.passed / self.sample_size if self.sample_size else math.nan

    @property
    def proportion_ok(self) -> bool:
        lo, hi = self.proportion_bounds
        return self.sample_size > 0 and lo <= self.proportion <= hi

    @property
    def uniformity_ok(self) -> bool | None:
        """None when there are too few sequences to judge uniformity."""
        return None if self.uniformity_p is None else self.uniformity_p >= UNIFORMITY_THRESHOLD

    @property
    def applicable(self) -> bool:
        """False when no sequence produced a p-value (random excursions with too few cycles)."""
        return self.sample_size > 0

    @property
    def ok(self) -> bool:
        """Within the proportion interval and not judged non-uniform; a column no sequence
        applied to is not a failure."""
        if not self.applicable:
            return True
        return self.proportion_ok and self.uniformity_ok is not False

    @property
    def name(self) -> str:
        """The column's name in tables and JSON (:func:`column_name`)."""
        return column_name(self.test, self.label)

    def as_json(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "label": self.label,
            "histogram": list(self.histogram),
            "sample_size": self.sample_size,
            "passed": self.passed,
            "proportion": (
                exact_json(Fraction(self.passed, self.sample_size)) if self.applicable else None
            ),
            "proportion_bounds": (
                [measured(b) for b in self.proportion_bounds] if self.applicable else None
            ),
            "proportion_ok": self.proportion_ok if self.applicable else None,
            "uniformity_p": measured(self.uniformity_p),
            "ok": self.ok,
            "uniformity_ok": self.uniformity_ok,
        }


def second_level(
    test: str,
    label: str,
    pvalues: Sequence[float] | np.ndarray[Any, np.dtype[np.float64]],
    alpha: float,
) -> ColumnResult:
    """Section 4.2 on one column; NaN p-values (test not applicable) are left out."""
    p = np.asarray(pvalues, dtype=float)
    p = p[~np.isnan(p)]
    s = int(p.size)
    bins = np.minimum((p * 10).astype(int), 9)
    histogram = tuple(int(c) for c in np.bincount(bins, minlength=10))
    passed = int(np.count_nonzero(p >= alpha))
    p_hat = 1 - alpha
    half = 3 * math.sqrt(p_hat * alpha / s) if s else math.nan
    uniformity: float | None = None
    if s >= MIN_SEQUENCES_FOR_UNIFORMITY:
        expected = s / 10
        chi2 = sum((c - expected) ** 2 / expected for c in histogram)
        uniformity = _core.igamc(9 / 2, chi2 / 2)
    return ColumnResult(
        test=test,
        label=label,
        histogram=histogram,
        sample_size=s,
        passed=passed,
        proportion_bounds=(p_hat - half, p_hat + half),
        uniformity_p=uniformity,
    )


@dataclass(frozen=True, eq=False)
class NistReport(ContentEq):
    """The battery's result: p-values per sequence and column, and each column's verdict."""

    bits: int
    sequences: int
    alpha: float
    parameters: NistParameters
    min_cycles: int
    columns: tuple[ColumnResult, ...]
    skipped: tuple[tuple[str, str], ...]
    pvalues: np.ndarray[Any, np.dtype[np.float64]] = field(repr=False)

    @property
    def failures(self) -> tuple[ColumnResult, ...]:
        return tuple(c for c in self.columns if not c.ok)

    def tests_failed(self) -> tuple[str, ...]:
        """Names of tests with at least one failing column, in report order."""
        failed = {c.test for c in self.failures}
        return tuple(t for t in TEST_NAMES if t in failed)

    def column(self, test: str, label: str = "") -> ColumnResult:
        for c in self.columns:
            if c.test == test and c.label == label:
                return c
        raise KeyError((test, label))

    def pvalues_of(self, test: str) -> np.ndarray[Any, np.dtype[np.float64]]:
        """p-values of one test: shape (sequences, columns of that test)."""
        idx = [i for i, c in enumerate(self.columns) if c.test == test]
        return self.pvalues[:, idx]

    def parameters_used(self) -> dict[str, Any]:
        """The parameters of the tests that ran, with those chosen from n resolved (the longest
        run's M, Universal's L and Q, the minimum cycles); keys of tests that did not run are
        left out."""
        p = self.parameters
        kwargs, templates = p.core_args()
        resolved = dict(_core.nist_resolved(self.bits, kwargs, templates))
        ran = {c.test for c in self.columns}
        out: dict[str, Any] = {}
        by_test: dict[str, dict[str, Any]] = {
            "BlockFrequency": {"block_frequency_m": p.block_frequency_m},
            "LongestRun": {
                "longest_run_m": resolved["longest_run_m"],
                "longest_run_rounded": p.longest_run_rounded,
            },
            "Rank": {"rank_rows": p.rank_rows, "rank_cols": p.rank_cols},
            "NonOverlappingTemplate": {
                "non_overlapping_m": p.non_overlapping_m,
                "non_overlapping_blocks": p.non_overlapping_blocks,
                "non_overlapping_templates": [
                    c.label for c in self.columns if c.test == "NonOverlappingTemplate"
                ],
            },
            "OverlappingTemplate": {
                "overlapping_m": p.overlapping_m,
                "overlapping_template": format(
                    p.overlapping_template
                    if p.overlapping_template is not None
                    else (1 << p.overlapping_m) - 1,
                    f"0{p.overlapping_m}b",
                ),
                "overlapping_block": p.overlapping_block,
                "overlapping_k": p.overlapping_k,
                "overlapping_approximate": p.overlapping_approximate,
            },
            "Universal": {
                "universal_l": resolved["universal_l"],
                "universal_q": resolved["universal_q"],
            },
            "ApproximateEntropy": {"approximate_entropy_m": p.approximate_entropy_m},
            "RandomExcursions": {"min_cycles": resolved["min_cycles"]},
            "RandomExcursionsVariant": {"min_cycles": resolved["min_cycles"]},
            "Serial": {"serial_m": p.serial_m},
            "LinearComplexity": {
                "linear_complexity_m": p.linear_complexity_m,
                "linear_complexity_tool_pi": p.linear_complexity_tool_pi,
            },
        }
        for test in TEST_NAMES:
            if test in ran:
                out.update(by_test.get(test, {}))
        return out

    def as_json(self) -> dict[str, Any]:
        return {
            "standard": "NIST SP 800-22 rev1a",
            "bits_per_sequence": self.bits,
            "sequences": self.sequences,
            "alpha": measured(self.alpha),
            "min_cycles": self.min_cycles,
            "parameters": self.parameters_used(),
            "columns": [c.as_json() for c in self.columns],
            Outcome.NOT_APPLICABLE.word(): [{"test": t, "reason": r} for t, r in self.skipped],
            "tests_marked": list(self.tests_failed()),
        }


def _core_call(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except NistError as exc:
        raise RngAuditError(str(exc)) from exc


def run_nist(
    data: bytes,
    *,
    bits: int,
    sequences: int,
    tests: Sequence[str] | None = None,
    parameters: NistParameters | None = None,
    alpha: float = ALPHA,
) -> NistReport:
    """Run the battery on `sequences` consecutive `bits`-bit sequences of the packed stream.

    With `tests=None` every test that applies to n-bit sequences runs and the others are
    listed in `skipped` with the reason; named tests that do not apply are an error."""
    params = parameters or NistParameters()
    if not 0 < alpha < 1:
        raise RngAuditError(f"alpha={alpha}: must lie strictly between 0 and 1")
    kwargs, templates = params.core_args()
    skipped: list[tuple[str, str]] = []
    if tests is None:
        checks = _core_call(_core.nist_check, bits, kwargs, templates)
        chosen = [name for name, err in checks if err is None]
        skipped = [(name, err) for name, err in checks if err is not None]
        if not chosen:
            raise RngAuditError(f"no test applies to sequences of {bits} bits")
    else:
        chosen = list(tests)
    columns, min_cycles, raw = _core_call(
        _core.nist_run, data, bits, sequences, chosen, kwargs, templates
    )
    matrix = np.frombuffer(raw, dtype="<f8").reshape(sequences, len(columns))
    results = tuple(
        second_level(test, label, matrix[:, i], alpha) for i, (test, label) in enumerate(columns)
    )
    return NistReport(
        bits=bits,
        sequences=sequences,
        alpha=alpha,
        parameters=params,
        min_cycles=min_cycles,
        columns=results,
        skipped=tuple(skipped),
        pvalues=matrix,
    )


def audit_files(
    paths: Sequence[str | Path],
    *,
    bits: int | None = None,
    sequences: int | None = None,
    fmt: InputFormat = "auto",
    tests: Sequence[str] | None = None,
    parameters: NistParameters | None = None,
    alpha: float = ALPHA,
) -> tuple[BitSource, NistReport]:
    """Read files, split them as the NIST tool does and run the battery."""
    source = read_bits(paths, fmt, bits_needed(bits, sequences))
    n, count = split_sequences(source.total_bits, bits, sequences)
    report = run_nist(
        source.data, bits=n, sequences=count, tests=tests, parameters=parameters, alpha=alpha
    )
    return source, report


def permutation_rank(perm: Sequence[int]) -> int:
    """Lexicographic rank (Lehmer code) of a permutation of 0..k-1, in [0, k!)."""
    k = len(perm)
    if sorted(perm) != list(range(k)):
        raise RngAuditError(f"not a permutation of 0..{k - 1}: {list(perm)[:12]}")
    rank = 0
    remaining = list(range(k))
    for i, v in enumerate(perm):
        pos = remaining.index(v)
        rank += pos * math.factorial(k - 1 - i)
        remaining.pop(pos)
    return rank


def permutations_to_bits(perms: Iterable[Sequence[int]]) -> bytes:
    """Unbiased bits from shuffles, for NIST testing of a shuffler's final outcomes.

    Each permutation of k items becomes its Lehmer rank r, uniform on [0, k!) if the shuffler
    is fair. k! is split into its binary expansion, largest power first, k! = 2^a + 2^b + ...
    (a > b > ...); r falls in exactly one of these intervals and, given that, is uniform on it,
    so the offset of r in an interval of size 2^j gives j fair bits (j = 0 gives none). No bit
    is biased and at most about one bit per shuffle is lost (52 cards: 225.58 bits of entropy,
    225 bits with probability ~0.67). Bits are concatenated MSB-first; a last partial byte is
    dropped. All permutations must have the same length k >= 2.
    """
    out_bits: list[str] = []
    size: int | None = None
    chunks: list[tuple[int, int]] = []  # (start, j) intervals of k!
    for perm in perms:
        k = len(perm)
        if size is None:
            if k < 2:
                raise RngAuditError(f"permutations of {k} item(s) carry no bits")
            size = k
            total = math.factorial(k)
            start = 0
            for j in reversed(range(total.bit_length())):
                if total >> j & 1:
                    chunks.append((start, j))
                    start += 1 << j
        elif k != size:
            raise RngAuditError(f"permutation of {k} items in a log of {size}-item permutations")
        r = permutation_rank(perm)
        for start, j in chunks:
            if r < start + (1 << j):
                if j:
                    out_bits.append(format(r - start, f"0{j}b"))
                break
    text = "".join(out_bits)
    whole = len(text) // 8 * 8
    if whole == 0:
        return b""
    return int(text[:whole], 2).to_bytes(whole // 8, "big")


__all__ = [
    "ALPHA",
    "MIN_BITS",
    "TEST_NAMES",
    "BitSource",
    "ColumnResult",
    "NistParameters",
    "NistReport",
    "audit_files",
    "bits_from_string",
    "permutation_rank",
    "permutations_to_bits",
    "read_bits",
    "run_nist",
    "second_level",
    "split_sequences",
]
