"""The worker process that runs a vendor's native evaluator (``so:LIBRARY:SYMBOL``).

The vendor's code runs here, not in tablecert's process, so that a crash in it (a segmentation
fault, an abort, an endless loop) ends this worker and is reported by the parent with the
library's name, never taking tablecert down or hanging it. Frames on stdin/stdout, all
little-endian:

    request:  b"TCEV", n_hands (u64), hand_size (u64), repetitions (u32), then n_hands * hand_size
              card bytes. repetitions = 0: score once; k > 0: time k calls (after one warm-up).
    response: status (i32, the function's return value), timings (u32 count, then u64 ns
              each), then n_hands int32 scores when the status is 0.

Start-up is two bytes: ``L`` once the interpreter runs (tablecert's time), then ``R`` once the
library is loaded and the symbol found (the vendor's time: a library that hangs in its
constructors is named as hanging while loading), or ``F``, a u32 length and a UTF-8 message
when it cannot be loaded (a set-up error: not a shared library, a missing dependency or
symbol). Run as ``python -I native_worker.py LIBRARY SYMBOL`` by path, importing nothing but the
standard library, under the supervisor of ``isolation``.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
import time
from typing import Any, BinaryIO

REQUEST = struct.Struct("<4sQQI")
MAGIC = b"TCEV"
STATUS = struct.Struct("<iI")
LOADING = b"L"
READY = b"R"
FAILED = b"F"
FAILURE_LENGTH = struct.Struct("<I")


def _read_exact(stream: BinaryIO, size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = stream.read(size)
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _load(library: str, symbol: str) -> Any:
    lib = ctypes.CDLL(library)
    function = getattr(lib, symbol)
    function.restype = ctypes.c_int32
    function.argtypes = [
        ctypes.c_char_p,
        ctypes.c_size_t,
        ctypes.c_size_t,
        ctypes.POINTER(ctypes.c_int32),
    ]
    return function


def serve(function: Any, inp: BinaryIO, out: BinaryIO) -> None:
    """Answer requests until stdin closes."""
    while True:
        header = _read_exact(inp, REQUEST.size)
        if header is None:
            return
        magic, n_hands, hand_size, repetitions = REQUEST.unpack(header)
        if magic != MAGIC:
            raise SystemExit("native worker: bad request frame")
        cards = _read_exact(inp, n_hands * hand_size)
        if cards is None:
            return
        scores = (ctypes.c_int32 * n_hands)()
        timings: list[int] = []
        status = function(cards, n_hands, hand_size, scores)
        for _ in range(repetitions):
            started = time.perf_counter_ns()
            status = function(cards, n_hands, hand_size, scores)
            timings.append(time.perf_counter_ns() - started)
        out.write(STATUS.pack(status, len(timings)))
        out.write(struct.pack(f"<{len(timings)}Q", *timings))
        if status == 0:
            out.write(bytes(scores))
        out.flush()


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit("usage: python -m tablecert.conformance.native_worker LIBRARY SYMBOL")
    # The frames move to private descriptors before the library is loaded: what its code
    # writes to descriptor 1 goes to the error output, not into a frame.
    inp = os.fdopen(os.dup(0), "rb")
    out = os.fdopen(os.dup(1), "wb")
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    out.write(LOADING)
    out.flush()
    try:
        function = _load(sys.argv[1], sys.argv[2])
    except (OSError, AttributeError) as exc:
        message = str(exc).encode("utf-8", "replace")[:4096]
        out.write(FAILED + FAILURE_LENGTH.pack(len(message)) + message)
        out.flush()
        return
    out.write(READY)
    out.flush()
    serve(function, inp, out)


if __name__ == "__main__":
    main()
