"""The public yardstick of ``crosscheck --benchmark``: a PH-Evaluator-style C evaluator
(``benches/c/ph_style_evaluator.c``) built on this machine and timed beside the vendor's.

It is rank-only (no suit tie-break) and table driven, as PH Evaluator (HenryRLee/
PokerHandEvaluator) is. Its tables hold dense strengths from tablecert's rank-only ordering
(the ``.standard`` rule files). They are written into a generated C file and compiled into the
library with the evaluator, so the library exports the C ABI vendors implement
(``tablecert_evaluate``). It then runs in the same worker process and under the same clock as
the vendor's library: one harness, two evaluators. Its answers are not judged: it ignores
suits by design.
"""

from __future__ import annotations

import itertools
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from math import comb
from pathlib import Path

import numpy as np
import numpy.typing as npt

from tablecert import _core
from tablecert.conformance.native_evaluator import DEFAULT_SYMBOL
from tablecert.poker import ordering

#: The yardstick's source, in a source checkout of tablecert.
SOURCE = Path(__file__).resolve().parents[3] / "benches" / "c" / "ph_style_evaluator.c"
#: The rank-only ordering that fills its tables, by hand size.
RANK_ONLY = {5: ("caribbean-stud", "caribbean-stud.standard"), 3: ("q-poker", "q-poker.standard")}
NAME = "PH-style C yardstick (rank-only)"
COMPILER = "cc"
FLAGS = ("-O3", "-march=native", "-fPIC", "-shared")


@dataclass(frozen=True)
class Yardstick:
    """A built yardstick: its ``so:`` spec and the command that built it."""

    spec: str
    command: str


def tables(size: int) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.uint16]]:
    """Dense rank-only strengths for ``size``-card hands: by flush rank mask (8,192), and by
    rank-multiset index (the combinatorial number system of multisets)."""
    tie_breaks = ordering(*RANK_ONLY[size]).tie_breaks
    flush_keys = np.zeros(8192, dtype=np.int64) - 1
    for ranks in itertools.combinations(range(13), size):
        mask = sum(1 << r for r in ranks)
        flush_keys[mask] = _core.strength_key([4 * r for r in ranks], tie_breaks)
    rest_keys = np.zeros(comb(13 + size - 1, size), np.int64)
    for multiset in itertools.combinations_with_replacement(range(13), size):
        if max(multiset.count(r) for r in multiset) > 4:
            continue
        seen: dict[int, int] = {}
        cards = []
        for r in multiset:
            cards.append(4 * r + seen.get(r, 0))
            seen[r] = seen.get(r, 0) + 1
        if len(seen) == size:  # all ranks distinct: not a flush
            cards[1] += 1
        index = sum(comb(r + i, i + 1) for i, r in enumerate(multiset))
        rest_keys[index] = _core.strength_key(cards, tie_breaks)
    distinct = np.unique(np.concatenate([flush_keys[flush_keys >= 0], rest_keys]))
    dense = {int(k): i + 1 for i, k in enumerate(distinct)}
    flush = np.array([dense.get(int(k), 0) for k in flush_keys], dtype=np.uint16)
    rest = np.array([dense[int(k)] for k in rest_keys], dtype=np.uint16)
    return flush, rest


def _array(name: str, values: npt.NDArray[np.uint16]) -> str:
    body = ",".join(str(int(v)) for v in values)
    return f"static const uint16_t {name}[{len(values)}] = {{{body}}};\n"


def tables_source(size: int) -> str:
    """The C file that installs the tables when the library loads and exports the ABI."""
    flush, rest = tables(size)
    return (
        "#include <stddef.h>\n#include <stdint.h>\n"
        "void ph_init(int, const uint16_t *, const uint16_t *, size_t);\n"
        "int32_t ph_evaluate(const uint8_t *, size_t, size_t, int32_t *);\n"
        + _array("FLUSH", flush)
        + _array("REST", rest)
        + "__attribute__((constructor)) static void install(void) "
        f"{{ ph_init({size}, FLUSH, REST, {len(rest)}); }}\n"
        f"int32_t {DEFAULT_SYMBOL}(const uint8_t *cards, size_t n, size_t hand_size, "
        "int32_t *scores) "
        f"{{ return hand_size == {size} ? ph_evaluate(cards, n, hand_size, scores) : 1; }}\n"
    )


def build(size: int, folder: Path) -> Yardstick | str:
    """Build the yardstick for ``size``-card hands in ``folder``; or why it was not built
    (no compiler, no source in this installation, a failed build), in one line."""
    compiler = shutil.which(COMPILER)
    if compiler is None:
        return f"not run: no C compiler ({COMPILER}) on PATH"
    if not SOURCE.is_file():
        return "not run: its source (benches/c/ph_style_evaluator.c) is not in this installation"
    generated = folder / "ph_tables.c"
    generated.write_text(tables_source(size), encoding="ascii")
    library = folder / "libph_style.so"
    argv = [compiler, *FLAGS, "-o", str(library), str(SOURCE), str(generated)]
    try:
        subprocess.run(argv, check=True, capture_output=True, timeout=120)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        err = getattr(exc, "stderr", b"") or b""
        first = err.decode("utf-8", "replace").strip().splitlines()[:1]
        return f"not run: {COMPILER} failed" + (f": {first[0]}" if first else "")
    shown = shlex.join([COMPILER, *FLAGS, "benches/c/ph_style_evaluator.c"])
    return Yardstick(f"so:{library}", f"{shown} and its generated tables")
