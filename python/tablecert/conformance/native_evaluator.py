"""Vendor evaluators as native shared libraries: ``--evaluator so:LIBRARY[:SYMBOL]``.

The library exports the C function of ``fixtures/evaluators/native/tablecert_evaluator.h``:

    int32_t evaluate(const uint8_t *cards, size_t n_hands, size_t hand_size, int32_t *scores_out)

scoring whole batches of hands (higher wins, equal pushes), with no per-hand Python work. It
runs in a worker process (``native_worker``) under the supervisor of ``isolation``: a crash, an
abort, a hang, a ``kill`` of its parent or a forked child in the vendor's code is an
``EvaluatorError`` naming the library, never a crash of tablecert, a hang or a pass. A library
that cannot be loaded (not a shared library, a missing dependency or symbol) is an
``EvaluatorStartError``: the lab's set-up, found before anything is scored.
"""

from __future__ import annotations

import os
import struct
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import numpy as np
import numpy.typing as npt

from tablecert.conformance import native_worker
from tablecert.conformance.evaluator_errors import EvaluatorError, EvaluatorStartError
from tablecert.conformance.isolation import SUPERVISOR_START_S, Isolated, wait_readable
from tablecert.conformance.native_worker import (
    FAILED,
    FAILURE_LENGTH,
    LOADING,
    MAGIC,
    READY,
    REQUEST,
    STATUS,
)

DEFAULT_TIMEOUT_S = 20.0

PREFIX = "so:"
DEFAULT_SYMBOL = "tablecert_evaluate"
#: Hands per call of the vendor's function.
BATCH = 1 << 20


@dataclass(frozen=True)
class NativeSpec:
    """A shared library and the symbol of its evaluate function."""

    library: Path
    symbol: str

    @classmethod
    def parse(cls, spec: str) -> NativeSpec:
        """``so:PATH`` or ``so:PATH:SYMBOL`` (the symbol defaults to ``tablecert_evaluate``)."""
        if not spec.startswith(PREFIX):
            raise EvaluatorStartError(
                f"evaluator {spec!r}: a native evaluator is so:LIBRARY[:SYMBOL]"
            )
        rest = spec[len(PREFIX) :]
        path, symbol = rest, DEFAULT_SYMBOL
        head, sep, tail = rest.rpartition(":")
        if sep and tail.isidentifier():
            path, symbol = head, tail
        if not path:
            raise EvaluatorStartError(f"evaluator {spec!r}: no library path")
        library = Path(path)
        if not library.is_file():
            raise EvaluatorStartError(f"evaluator {spec!r}: no shared library {library}")
        return cls(library, symbol)

    def __str__(self) -> str:
        return f"{PREFIX}{self.library}:{self.symbol}"


def is_native(spec: str) -> bool:
    return spec.startswith(PREFIX)


class NativeEvaluator:
    """A running worker process holding the vendor's library; use as a context manager.

    ``timeout_s`` bounds each call of the vendor's function and the loading of the library;
    ``name`` is how errors name the evaluator (default: the spec)."""

    def __init__(
        self, spec: NativeSpec, timeout_s: float = DEFAULT_TIMEOUT_S, *, name: str | None = None
    ) -> None:
        if not timeout_s > 0:
            raise EvaluatorError(f"--timeout {timeout_s}: expected a positive number of seconds")
        self.spec = spec
        self.name = name or str(spec)
        self.timeout_s = timeout_s
        argv = [
            sys.executable,
            "-I",
            native_worker.__file__,
            str(spec.library.resolve()),
            spec.symbol,
        ]
        self._proc = Isolated(argv, self.name)
        try:
            self._load()
        except BaseException:
            self._proc.close()
            raise

    def _load(self) -> None:
        """The worker's start-up bytes: its interpreter runs, then the library is loaded."""
        fd = self._proc.stdout_fd
        started = self._read(fd, 1, time.monotonic() + SUPERVISOR_START_S, "while starting")
        if started != LOADING:
            raise EvaluatorError(f"{self.name}: the worker did not start ({started!r})")
        began = time.monotonic()
        if not wait_readable(fd, began + self.timeout_s):
            waited = time.monotonic() - began
            raise EvaluatorError(
                f"{self.name} hung while loading: the library was not loaded within "
                f"{self.timeout_s:g} s (waited {waited:.1f} s)"
            )
        answer = self._read(fd, 1, began + self.timeout_s, "while loading")
        if answer == FAILED:
            deadline = time.monotonic() + SUPERVISOR_START_S
            (size,) = FAILURE_LENGTH.unpack(self._read(fd, FAILURE_LENGTH.size, deadline, ""))
            message = self._read(fd, size, deadline, "").decode("utf-8", "replace")
            raise EvaluatorStartError(f"{self.name}: cannot load: {message}")
        if answer != READY:
            raise EvaluatorError(f"{self.name}: the worker did not start ({answer!r})")

    def __enter__(self) -> NativeEvaluator:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._proc.close(grace_s=5.0)

    def _died(self, what: str) -> EvaluatorError:
        ending = self._proc.ending(5.0)
        if ending is None:
            self._proc.close()
            ending = self._proc.ending(0)
        status = ending.describe(self._proc.limits) if ending else "closed its output"
        return EvaluatorError(f"{self.name} {status} {what}{self._proc.stderr_detail()}")

    def _call(
        self, cards: npt.NDArray[np.uint8], repetitions: int, what: str
    ) -> tuple[npt.NDArray[np.int32], list[int]]:
        proc = self._proc
        n, size = cards.shape
        payload = REQUEST.pack(MAGIC, n, size, repetitions) + np.ascontiguousarray(cards).tobytes()
        failure: list[BaseException] = []

        def send() -> None:
            view = memoryview(payload)
            try:
                while view:
                    view = view[os.write(proc.stdin_fd, view) :]
            except OSError as exc:
                failure.append(exc)

        writer = threading.Thread(target=send, daemon=True)
        writer.start()
        deadline = time.monotonic() + self.timeout_s * max(1, repetitions + 1)
        fd = proc.stdout_fd
        head = self._read(fd, STATUS.size, deadline, what)
        status, count = STATUS.unpack(head)
        timings = list(struct.unpack(f"<{count}Q", self._read(fd, 8 * count, deadline, what)))
        if status != 0:
            writer.join()
            raise EvaluatorError(f"{self.name} returned status {status} {what}")
        scores = np.frombuffer(self._read(fd, 4 * n, deadline, what), dtype="<i4")
        writer.join()
        return scores.astype(np.int32), timings

    def _read(self, fd: int, size: int, deadline: float, what: str) -> bytes:
        chunks: list[bytes] = []
        while size:
            if not wait_readable(fd, deadline):
                self._proc.close()
                raise EvaluatorError(
                    f"{self.name} gave no answer within {self.timeout_s:g} s {what}"
                )
            chunk = os.read(fd, min(size, 1 << 20))
            if not chunk:
                raise self._died(what)
            chunks.append(chunk)
            size -= len(chunk)
        return b"".join(chunks)

    def scores(self, cards: npt.NDArray[np.uint8]) -> npt.NDArray[np.int32]:
        """The vendor's score of every hand (rows of ``cards``), in batches."""
        out = np.empty(len(cards), dtype=np.int32)
        for start in range(0, len(cards), BATCH):
            batch = cards[start : start + BATCH]
            what = f"while scoring hands {start:,}..{start + len(batch) - 1:,}"
            out[start : start + len(batch)], _ = self._call(batch, 0, what)
        return out

    def time_ns(
        self, cards: npt.NDArray[np.uint8], repetitions: int
    ) -> tuple[list[int], npt.NDArray[np.int32]]:
        """Nanoseconds of each of ``repetitions`` calls on ``cards`` (after one warm-up call),
        measured inside the worker (the pipe is not timed), and the scores the timed calls
        gave (a benchmark checks them too)."""
        scores, timings = self._call(cards, repetitions, f"while timing {len(cards):,} hands")
        return timings, scores
