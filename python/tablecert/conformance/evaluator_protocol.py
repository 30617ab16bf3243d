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
import queue
import shlex
import subprocess
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from tablecert.errors import TableCertError

DEFAULT_TIMEOUT_S = 20.0


class EvaluatorError(TableCertError):
    """The evaluator could not be run, crashed, hung, or answered out of protocol."""


Answerer = Callable[[Iterable[str]], Iterator[str]]


def open_evaluator(spec: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> Answerer:
    """A function mapping a stream of request lines to the evaluator's response lines."""
    if spec.startswith("cmd:"):
        return _command(spec[4:], timeout_s)
    if spec.startswith("file:"):
        return _results_file(Path(spec[5:]))
    return _python_callable(spec.removeprefix("py:"))


def _python_callable(spec: str) -> Answerer:
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
        for request in requests:
            try:
                response = function(request)
            except BaseException as exc:  # SystemExit, KeyboardInterrupt: an evaluator failure
                raise EvaluatorError(
                    f"evaluator raised {type(exc).__name__}: {exc} on request {request!r}"
                ) from exc
            if not isinstance(response, str):
                raise EvaluatorError(
                    f"evaluator returned {response!r} (not a string) for request {request!r}"
                )
            yield response

    return answer


def _command(command: str, timeout_s: float) -> Answerer:
    argv = shlex.split(command)
    if not argv:
        raise EvaluatorError("evaluator cmd: is empty")

    def answer(requests: Iterable[str]) -> Iterator[str]:
        try:
            proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                bufsize=1,
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
                    proc.stdin.write(request + "\n")
                proc.stdin.close()
            except (BrokenPipeError, OSError):
                pass
            finally:
                sent.put(None)

        def read() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line.rstrip("\r\n"))
            lines.put(None)

        def drain_stderr() -> None:
            assert proc.stderr is not None
            for line in proc.stderr:
                stderr_tail.append(line.rstrip())
                del stderr_tail[:-5]

        threads = [threading.Thread(target=f, daemon=True) for f in (write, read, drain_stderr)]
        for t in threads:
            t.start()
        try:
            while True:
                request = sent.get()
                if request is None:
                    break
                try:
                    response = lines.get(timeout=timeout_s)
                except queue.Empty:
                    raise EvaluatorError(
                        f"evaluator {command!r} hung: no response to {request!r} within "
                        f"{timeout_s:g} s"
                    ) from None
                if response is None:
                    proc.wait(timeout=timeout_s)
                    detail = f"; stderr: {' | '.join(stderr_tail)}" if stderr_tail else ""
                    raise EvaluatorError(
                        f"evaluator {command!r} exited with status {proc.returncode} before "
                        f"answering {request!r}{detail}"
                    )
                yield response
            extra = lines.get(timeout=timeout_s)
            if extra is not None:
                raise EvaluatorError(f"evaluator {command!r} wrote an extra line {extra!r}")
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
    if not path.is_file():
        raise EvaluatorError(f"evaluator results file {path} does not exist")

    def answer(requests: Iterable[str]) -> Iterator[str]:
        with path.open(encoding="utf-8", errors="strict") as handle:
            try:
                for number, request in enumerate(requests, start=1):
                    line = handle.readline()
                    if not line:
                        raise EvaluatorError(
                            f"{path}: ends at line {number}; expected an answer to {request!r}"
                        )
                    asked, tab, response = line.rstrip("\r\n").partition("\t")
                    if not tab:
                        raise EvaluatorError(f"{path}:{number}: expected request<TAB>response")
                    if asked != request:
                        raise EvaluatorError(
                            f"{path}:{number}: answers {asked!r}, but request {number} is "
                            f"{request!r}"
                        )
                    yield response
                if handle.readline():
                    raise EvaluatorError(f"{path}: has more lines than there were requests")
            except UnicodeDecodeError as exc:
                raise EvaluatorError(f"{path}: not UTF-8 ({exc.reason})") from exc

    return answer


def write_requests(path: Path, requests: Iterable[str]) -> int:
    """Write request lines for a vendor to answer offline; returns how many."""
    count = 0
    with path.open("w", encoding="utf-8") as handle:
        for request in requests:
            handle.write(request + "\n")
            count += 1
    return count
