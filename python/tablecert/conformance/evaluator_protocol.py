"""Talking to a vendor's evaluator, whatever it is written in.

Every evaluator answers the same line protocol: tablecert sends one request per line and reads
one response per line.

    category As Kh Td                    ->  the hand's category, e.g. "straight"
    compare As Kh Td / 2s 3h 4d          ->  "A", "B" or "PUSH"
    settle follow As Kh Td / 2s 3h 4d    ->  the player's net result, e.g. "3/2" or "-1"
    settle pair-plus As Kh Td            ->  Q Poker's 多寶 net result per unit

``settle`` names the player's decision (``follow``/``fold`` in Q Poker, ``raise``/``fold`` in
Caribbean Stud), the player's hand and the dealer's; the amount is per unit bet on 與莊荷博彩
(Q Poker) or per ante (Caribbean Stud, the raise being twice the ante).

An evaluator SPEC is one of:

- ``py:module:function`` or ``module:function`` or ``path/to/file.py:function``: a Python
  callable taking the request line and returning the response line;
- ``cmd:COMMAND ARGS...``: an external program reading requests on stdin and writing one
  response line per request on stdout (any language; it must flush after each line or at
  least before it blocks on input);
- ``file:PATH``: a file of the vendor's results for requests tablecert wrote earlier
  (``tablecert crosscheck poker --write-requests``): one ``request<TAB>response`` line each.

A crash, a hang (no response within the timeout), a missing or extra response, and for a
Python evaluator any exception it raises (``SystemExit`` and ``KeyboardInterrupt`` included:
an evaluator calling ``sys.exit`` has failed, it has not ended tablecert) is an
``EvaluatorError``: the check fails, it never passes by default.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import io
import math
import queue
import shlex
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import cast

from tablecert.errors import TableCertError
from tablecert.outputs import atomic_file

DEFAULT_TIMEOUT_S = 20.0
MAX_TIMEOUT_S = 86_400
"""The longest wait for one answer that can be asked for: a day."""
MAX_ANSWER = 4096
"""The longest answer line accepted, in bytes (a category name or a settlement record is
short): a longer one is a protocol error, never buffered whole."""
RESULTS_LINE_LIMIT = 1 << 16
"""The longest line of a ``file:`` results file (the request, a tab and the answer)."""
_BATCH = 512
_BATCH_SECONDS = 0.02


class EvaluatorError(TableCertError):
    """The evaluator could not be run, crashed, hung, or answered out of protocol."""


Answerer = Callable[[Iterable[str]], Iterator[str]]


def open_evaluator(spec: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> Answerer:
    """A function mapping a stream of request lines to the evaluator's response lines.
    ``timeout_s`` bounds the wait for each answer, for programs and Python callables alike."""
    if not (math.isfinite(timeout_s) and 0 < timeout_s <= MAX_TIMEOUT_S):
        raise EvaluatorError(
            f"timeout {timeout_s!r}: expected a positive number of seconds up to {MAX_TIMEOUT_S:,}"
        )
    if spec.startswith("cmd:"):
        return _command(spec[4:], timeout_s)
    if spec.startswith("file:"):
        return _results_file(Path(spec[5:]))
    return _python_callable(spec.removeprefix("py:"), timeout_s)


def _checked(response: str, request: str, who: str) -> str:
    """A response within the protocol's limits: one line of at most ``MAX_ANSWER`` bytes."""
    size = len(response.encode("utf-8", "surrogatepass"))
    if size > MAX_ANSWER:
        raise EvaluatorError(
            f"{who} answered {size:,} bytes to {request!r}: an answer is at most "
            f"{MAX_ANSWER:,} bytes"
        )
    if "\n" in response or "\r" in response:
        raise EvaluatorError(f"{who} answered {response[:80]!r} (a line break) to {request!r}")
    return response


_Batch = tuple[list[tuple[str, str]], str | None, BaseException | None]
"""(request and answer pairs, the request that failed, why the worker stopped)."""


def _python_callable(spec: str, timeout_s: float) -> Answerer:
    module_name, sep, function_name = spec.rpartition(":")
    if not sep or not module_name or not function_name:
        raise EvaluatorError(
            f"evaluator {spec!r}: expected module:function, file.py:function, cmd:COMMAND "
            "or file:PATH"
        )
    try:
        if module_name.endswith(".py"):
            path = Path(module_name)
            loader_spec = importlib.util.spec_from_file_location(path.stem, path)
            if loader_spec is None or loader_spec.loader is None or not path.is_file():
                raise EvaluatorError(f"evaluator {spec!r}: no Python file {path}")
            module = importlib.util.module_from_spec(loader_spec)
            loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_name)
    except EvaluatorError:
        raise
    except BaseException as exc:  # SystemExit at import is a broken evaluator too
        raise EvaluatorError(
            f"evaluator {spec!r}: cannot import: {type(exc).__name__}: {exc}"
        ) from exc
    function = getattr(module, function_name, None)
    if not callable(function):
        raise EvaluatorError(f"evaluator {spec!r}: {function_name!r} is not a callable")

    def answer(requests: Iterable[str]) -> Iterator[str]:
        # The callable runs in a worker thread that is abandoned if it does not answer within
        # the timeout (a thread cannot be killed; it is a daemon and ends with the process).
        # Answers come back in small batches to keep the hand-over cheap.
        results: queue.Queue[_Batch] = queue.Queue(maxsize=64)
        stop = threading.Event()
        current = [""]

        def hand_over(item: _Batch) -> None:
            while not stop.is_set():
                try:
                    results.put(item, timeout=0.1)
                    return
                except queue.Full:
                    continue

        def work() -> None:
            batch: list[tuple[str, str]] = []
            last = time.monotonic()
            try:
                for request in requests:
                    if stop.is_set():
                        return
                    current[0] = request
                    try:
                        response = function(request)
                    except BaseException as exc:  # SystemExit too: an evaluator failure
                        hand_over((batch, request, exc))
                        return
                    if not isinstance(response, str):
                        error = EvaluatorError(
                            f"evaluator returned {response!r:.80} (not a string) for request "
                            f"{request!r}"
                        )
                        hand_over((batch, request, error))
                        return
                    batch.append((request, response))
                    now = time.monotonic()
                    if len(batch) >= _BATCH or now - last >= _BATCH_SECONDS:
                        hand_over((batch, None, None))
                        batch, last = [], now
                hand_over((batch, None, StopIteration()))
            except BaseException as exc:  # the requests themselves failed: re-raised below
                hand_over((batch, None, exc))

        worker = threading.Thread(target=work, daemon=True, name=f"evaluator {spec}")
        worker.start()
        try:
            while True:
                try:
                    batch, request, error = results.get(timeout=timeout_s)
                except queue.Empty:
                    raise EvaluatorError(
                        f"evaluator {spec!r} hung: no response to {current[0]!r} within "
                        f"{timeout_s:g} s"
                    ) from None
                for asked, response in batch:
                    yield _checked(response, asked, f"evaluator {spec!r}")
                if isinstance(error, StopIteration):
                    return
                if isinstance(error, EvaluatorError):
                    raise error
                if error is not None and request is not None:
                    raise EvaluatorError(
                        f"evaluator raised {type(error).__name__}: {error} on request {request!r}"
                    ) from error
                if error is not None:
                    raise error
        finally:
            stop.set()

    return answer


class _Unreadable(str):
    """A line the evaluator wrote that breaks the protocol (too long, not UTF-8): the reason."""


def _next_line(lines: queue.Queue[str | None], timeout_s: float, hung: str) -> str | None:
    """The evaluator's next line (``None`` at the end of its output), or ``hung`` as an error."""
    try:
        return lines.get(timeout=timeout_s)
    except queue.Empty:
        raise EvaluatorError(hung) from None


def _command(command: str, timeout_s: float) -> Answerer:
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise EvaluatorError(f"evaluator cmd:{command!r}: cannot split it: {exc}") from None
    if not argv:
        raise EvaluatorError("evaluator cmd: is empty")

    def answer(requests: Iterable[str]) -> Iterator[str]:
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                bufsize=0,
            )
        except OSError as exc:
            raise EvaluatorError(f"evaluator {command!r}: cannot start: {exc.strerror}") from exc
        assert proc.stdin is not None
        assert proc.stdout is not None
        assert proc.stderr is not None
        sent: queue.Queue[str | None] = queue.Queue()
        lines: queue.Queue[str | None] = queue.Queue(maxsize=100_000)
        stderr_tail: list[str] = []

        def write() -> None:
            assert proc.stdin is not None
            try:
                for request in requests:
                    sent.put(request)
                    proc.stdin.write(request.encode("utf-8") + b"\n")
                proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass
            finally:
                sent.put(None)

        def read() -> None:
            assert proc.stdout is not None
            with io.BufferedReader(cast(io.RawIOBase, proc.stdout), 1 << 16) as stream:
                while line := stream.readline(MAX_ANSWER + 2):
                    if not line.endswith(b"\n") and len(line) > MAX_ANSWER:
                        lines.put(_Unreadable(f"an answer line longer than {MAX_ANSWER:,} bytes"))
                        return
                    try:
                        lines.put(line.rstrip(b"\r\n").decode("utf-8"))
                    except UnicodeDecodeError as exc:
                        lines.put(_Unreadable(f"{line[:80]!r}: not UTF-8 ({exc.reason})"))
                        return
            lines.put(None)

        def drain_stderr() -> None:
            assert proc.stderr is not None
            with io.BufferedReader(cast(io.RawIOBase, proc.stderr), 1 << 16) as stream:
                while line := stream.readline(MAX_ANSWER):
                    stderr_tail.append(line.decode("utf-8", "replace").rstrip())
                    del stderr_tail[:-5]

        threads = [threading.Thread(target=f, daemon=True) for f in (write, read, drain_stderr)]
        for t in threads:
            t.start()
        try:
            while True:
                request = sent.get()
                if request is None:
                    break
                response = _next_line(
                    lines,
                    timeout_s,
                    f"evaluator {command!r} hung: no response to {request!r} within "
                    f"{timeout_s:g} s",
                )
                if isinstance(response, _Unreadable):
                    raise EvaluatorError(
                        f"evaluator {command!r} broke the protocol answering {request!r}: "
                        f"{response}"
                    )
                if response is None:
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        proc.wait(timeout=timeout_s)
                    # Its last words: the rest of its error output, read to the end (the pipe
                    # closes as it exits) before they are quoted.
                    threads[2].join(timeout=timeout_s)
                    detail = f"; stderr: {' | '.join(stderr_tail)}" if stderr_tail else ""
                    status = proc.poll()
                    ended = (
                        "closed its output" if status is None else f"exited with status {status}"
                    )
                    raise EvaluatorError(
                        f"evaluator {command!r} {ended} before answering {request!r}{detail}"
                    )
                yield _checked(response, request, f"evaluator {command!r}")
            extra = _next_line(
                lines,
                timeout_s,
                f"evaluator {command!r} answered every request but did not end its output "
                f"within {timeout_s:g} s after its input ended",
            )
            if isinstance(extra, _Unreadable):
                raise EvaluatorError(f"evaluator {command!r} wrote an extra line: {extra}")
            if extra is not None:
                raise EvaluatorError(f"evaluator {command!r} wrote an extra line {extra[:80]!r}")
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            for t in threads[1:]:
                t.join(timeout=timeout_s)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                with contextlib.suppress(OSError):
                    stream.close()

    return answer


def _results_file(path: Path) -> Answerer:
    if path.is_dir():
        raise EvaluatorError(f"evaluator results file {path}: is a folder, not a file")
    if not path.is_file():
        raise EvaluatorError(f"evaluator results file {path} does not exist")

    def answer(requests: Iterable[str]) -> Iterator[str]:
        with path.open("rb") as handle:
            for number, request in enumerate(requests, start=1):
                line = handle.readline(RESULTS_LINE_LIMIT)
                if not line:
                    raise EvaluatorError(
                        f"{path}: ends at line {number}; expected an answer to {request!r}"
                    )
                if len(line) == RESULTS_LINE_LIMIT and not line.endswith(b"\n"):
                    raise EvaluatorError(
                        f"{path}:{number}: line longer than {RESULTS_LINE_LIMIT:,} bytes"
                    )
                try:
                    text = line.rstrip(b"\r\n").decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise EvaluatorError(f"{path}:{number}: not UTF-8 ({exc.reason})") from None
                asked, tab, response = text.partition("\t")
                if not tab:
                    raise EvaluatorError(f"{path}:{number}: expected request<TAB>response")
                if asked != request:
                    raise EvaluatorError(
                        f"{path}:{number}: answers {asked[:200]!r}, but request {number} is "
                        f"{request!r}"
                    )
                yield _checked(response, request, f"{path}:{number}:")
            if handle.readline(1):
                raise EvaluatorError(f"{path}: has more lines than there were requests")

    return answer


def write_requests(path: Path, requests: Iterable[str]) -> int:
    """Write request lines for a vendor to answer offline (atomically); returns how many."""
    count = 0
    with atomic_file(path, what="requests file") as handle:
        for request in requests:
            handle.write(request.encode("utf-8") + b"\n")
            count += 1
    return count
