"""The worker process that runs a vendor's Python evaluator (``module:function``,
``file.py:function``), under the supervisor of ``isolation``.

Run as ``python -I python_worker.py SYS_PATH SPEC`` by path, importing nothing of tablecert:
``SYS_PATH`` is tablecert's ``sys.path`` as JSON (a module name resolves as it would inside
tablecert), ``SPEC`` the evaluator without its ``py:`` prefix.

Before the vendor's module is imported, the protocol is moved off the standard descriptors:
it stays on private duplicates of stdin and stdout, stdin becomes /dev/null and stdout the
error output, so the callable's ``print`` and anything written to descriptor 1 go to the
error output tablecert quotes, never into an answer or tablecert's own output.

Every line written on the protocol is one JSON value: ``{"loading": true}`` once the
interpreter runs, then ``{"ready": true}`` or ``{"cannot": MESSAGE}`` (the module cannot be
imported or has no such callable); then one answer per request line read, a JSON string, or
on failure ``{"raised": TYPE, "message": TEXT}`` or ``{"returned": REPR}`` (not a string),
after which the worker exits. Answers are flushed in batches (512 answers, or 20 ms, or
when no more requests are waiting).
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import json
import os
import select
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

_BATCH = 512
_BATCH_SECONDS = 0.02


def _load(spec: str) -> Callable[[str], Any]:
    """The vendor's callable; ``_CannotLoadError`` with the reason when it cannot be had."""
    module_name, _, function_name = spec.rpartition(":")
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            loader_spec = importlib.util.spec_from_file_location(path.stem, path)
            if loader_spec is None or loader_spec.loader is None or not path.is_file():
                raise LookupError(f"no Python file {path}")
            module = importlib.util.module_from_spec(loader_spec)
            loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except LookupError as exc:
        raise _CannotLoadError(str(exc)) from None
    except BaseException as exc:  # SystemExit at import is a broken evaluator too
        raise _CannotLoadError(f"cannot import: {type(exc).__name__}: {exc}") from None
    function = getattr(module, function_name, None)
    if not callable(function):
        raise _CannotLoadError(f"{function_name!r} is not a callable")
    return function  # type: ignore[no-any-return]


class _CannotLoadError(Exception):
    """The evaluator cannot be loaded: the reason, for tablecert's error line."""


def serve(function: Callable[[str], Any], inp: int, out: BinaryIO) -> None:
    """Answer request lines read from descriptor ``inp`` until it ends or the callable fails.
    A flusher thread sends what is answered every 20 ms, so that when the callable hangs,
    every answer before the hanging request has reached tablecert."""
    lock = threading.Lock()
    done = threading.Event()

    def flusher() -> None:
        while not done.wait(_BATCH_SECONDS):
            with lock:
                out.flush()

    threading.Thread(target=flusher, daemon=True).start()
    pending = b""
    answered = 0
    try:
        while True:
            chunk = os.read(inp, 1 << 16)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for raw in lines:
                request = raw.decode("utf-8", "surrogateescape")
                try:
                    response = function(request)
                except BaseException as exc:  # SystemExit too: an evaluator failure
                    failure: object = {"raised": type(exc).__name__, "message": str(exc)}
                else:
                    failure = (
                        None if isinstance(response, str) else {"returned": f"{response!r:.80}"}
                    )
                with lock:
                    out.write(_line(response if failure is None else failure))
                    answered += 1
                    if failure is not None:
                        out.flush()
                        return
                    if answered % _BATCH == 0:
                        out.flush()
            if not select.select([inp], [], [], 0)[0]:
                with lock:
                    out.flush()
    finally:
        done.set()
        with lock:
            out.flush()


def _line(value: object) -> bytes:
    return json.dumps(value).encode("ascii") + b"\n"


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit("usage: python -I python_worker.py SYS_PATH SPEC")
    inp = os.dup(0)
    out = io.BufferedWriter(io.FileIO(os.dup(1), "w"), 1 << 16)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 (the process's stdin)
    sys.stdout = sys.stderr
    out.write(_line({"loading": True}))
    out.flush()
    sys.path[:] = json.loads(sys.argv[1])
    try:
        function = _load(sys.argv[2])
    except _CannotLoadError as exc:
        out.write(_line({"cannot": str(exc)}))
        out.flush()
        return
    out.write(_line({"ready": True}))
    out.flush()
    serve(function, inp, out)


if __name__ == "__main__":
    main()
