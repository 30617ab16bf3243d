"""Vendor evaluators as native shared libraries: ``--evaluator so:LIBRARY[:SYMBOL]``.

The library exports the C function of ``fixtures/evaluators/native/tablecert_evaluator.h``:

    int32_t evaluate(const uint8_t *cards, size_t n_hands, size_t hand_size, int32_t *scores_out)

scoring whole batches of hands (higher wins, equal pushes), with no per-hand Python work. It
runs in a worker process (``native_worker``): a crash, an abort or a hang in the vendor's code
is an ``EvaluatorError`` naming the library, never a crash of tablecert, a hang or a pass.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import numpy as np
import numpy.typing as npt

from tablecert.conformance import native_worker
from tablecert.conformance.evaluator_protocol import DEFAULT_TIMEOUT_S, EvaluatorError
from tablecert.conformance.native_worker import LOAD_FAILED, MAGIC, READY, REQUEST, STATUS

#: Seconds the worker may take to start and load the library (not the vendor's call time).
START_TIMEOUT_S = 60.0

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
            raise EvaluatorError(f"evaluator {spec!r}: a native evaluator is so:LIBRARY[:SYMBOL]")
        rest = spec[len(PREFIX) :]
        path, symbol = rest, DEFAULT_SYMBOL
        head, sep, tail = rest.rpartition(":")
        if sep and tail.isidentifier():
            path, symbol = head, tail
        if not path:
            raise EvaluatorError(f"evaluator {spec!r}: no library path")
        library = Path(path)
        if not library.is_file():
            raise EvaluatorError(f"evaluator {spec!r}: no shared library {library}")
        return cls(library, symbol)

    def __str__(self) -> str:
        return f"{PREFIX}{self.library}:{self.symbol}"


def is_native(spec: str) -> bool:
    return spec.startswith(PREFIX)


class NativeEvaluator:
    """A running worker process holding the vendor's library; use as a context manager."""

    def __init__(self, spec: NativeSpec, timeout_s: float = DEFAULT_TIMEOUT_S) -> None:
        if not timeout_s > 0:
            raise EvaluatorError(f"--timeout {timeout_s}: expected a positive number of seconds")
        self.spec = spec
        self.timeout_s = timeout_s
        self._proc = subprocess.Popen(
            [
                sys.executable,
                "-I",
                native_worker.__file__,
                str(spec.library.resolve()),
                spec.symbol,
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self._proc.stdout is not None
        deadline = time.monotonic() + max(START_TIMEOUT_S, timeout_s)
        try:
            ready = self._read(self._proc.stdout.fileno(), len(READY), deadline, "while loading")
            if ready != READY:
                raise EvaluatorError(f"{spec}: the worker did not start ({ready!r})")
        except EvaluatorError:
            self.close()
            raise

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
        proc = self._proc
        if proc.stdin is not None and not proc.stdin.closed:
            with contextlib.suppress(OSError):
                proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()

    def _died(self, what: str) -> EvaluatorError:
        proc = self._proc
        try:
            code = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        detail = proc.stderr.read().decode("utf-8", "replace").strip() if proc.stderr else ""
        if code == LOAD_FAILED and detail:
            return EvaluatorError(f"{self.spec}: cannot load: {detail}")
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return EvaluatorError(f"{self.spec} crashed ({name}) {what}")
        last = detail.splitlines()[-1] if detail else "no message"
        return EvaluatorError(f"{self.spec} exited with status {code} {what}: {last}")

    def _call(
        self, cards: npt.NDArray[np.uint8], repetitions: int, what: str
    ) -> tuple[npt.NDArray[np.int32], list[int]]:
        proc = self._proc
        assert proc.stdin is not None
        assert proc.stdout is not None
        n, size = cards.shape
        payload = REQUEST.pack(MAGIC, n, size, repetitions) + np.ascontiguousarray(cards).tobytes()
        failure: list[BaseException] = []

        def send() -> None:
            try:
                assert proc.stdin is not None
                proc.stdin.write(payload)
                proc.stdin.flush()
            except (BrokenPipeError, OSError) as exc:
                failure.append(exc)

        writer = threading.Thread(target=send, daemon=True)
        writer.start()
        deadline = time.monotonic() + self.timeout_s * max(1, repetitions + 1)
        fd = proc.stdout.fileno()
        head = self._read(fd, STATUS.size, deadline, what)
        status, count = STATUS.unpack(head)
        timings = list(struct.unpack(f"<{count}Q", self._read(fd, 8 * count, deadline, what)))
        if status != 0:
            writer.join()
            raise EvaluatorError(f"{self.spec} returned status {status} {what}")
        scores = np.frombuffer(self._read(fd, 4 * n, deadline, what), dtype="<i4")
        writer.join()
        return scores.astype(np.int32), timings

    def _read(self, fd: int, size: int, deadline: float, what: str) -> bytes:
        chunks: list[bytes] = []
        while size:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(left, 0))
            if not ready:
                self._proc.kill()
                self._proc.wait()
                raise EvaluatorError(f"{self.spec} gave no answer within {self.timeout_s} s {what}")
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

    def time_ns(self, cards: npt.NDArray[np.uint8], repetitions: int) -> list[int]:
        """Nanoseconds of each of ``repetitions`` calls on ``cards`` (after one warm-up call),
        measured inside the worker: the pipe is not timed."""
        _, timings = self._call(cards, repetitions, f"while timing {len(cards):,} hands")
        return timings
