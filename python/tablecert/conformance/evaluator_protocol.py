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

Every evaluator but a ``file:`` runs in a process of its own under ``isolation`` (a session
and process group of its own, resource limits, its stdin and stdout used for the protocol
only, killed with every process it started at the end); a Python callable runs in
``python_worker``, so nothing it does (``print``, ``os._exit``, replacing tablecert's
functions) reaches tablecert's output or verdict.

An evaluator that cannot be started, imported or found raises ``EvaluatorStartError`` (an
input error) when it is opened, before anything is asked. A crash, a hang (no response within
the timeout), a missing or extra response, and for a Python evaluator any exception it raises
(``SystemExit`` and ``KeyboardInterrupt`` included: an evaluator calling ``sys.exit`` or
``os._exit`` has failed, it has not ended tablecert) is an ``EvaluatorError``: the check
fails, it never passes by default.
"""

from __future__ import annotations

import json
import math
import os
import queue
import shlex
import shutil
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from tablecert.conformance import python_worker
from tablecert.conformance.evaluator_errors import EvaluatorError, EvaluatorStartError
from tablecert.conformance.isolation import SUPERVISOR_START_S, Isolated, is_shared_library
from tablecert.io.outputs import atomic_file

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "MAX_ANSWER",
    "Answerer",
    "EvaluatorError",
    "EvaluatorStartError",
    "check_evaluator",
    "open_evaluator",
    "write_requests",
]

DEFAULT_TIMEOUT_S = 20.0
MAX_TIMEOUT_S = 86_400
"""The longest wait for one answer that can be asked for: a day."""
MAX_ANSWER = 4096
"""The longest answer line accepted, in bytes (a category name or a settlement record is
short): a longer one is a protocol error, never buffered whole."""
RESULTS_LINE_LIMIT = 1 << 16
"""The longest line of a ``file:`` results file (the request, a tab and the answer)."""
IMPORT_TIMEOUT_FLOOR_S = 5.0
"""A Python evaluator's module may take this long to import whatever the answer timeout (its
imports load their own dependencies)."""
_JSON_ANSWER = 6 * MAX_ANSWER + 64
_REQUEST_CHUNK = 1 << 16


Answerer = Callable[[Iterable[str]], Iterator[str]]


def open_evaluator(
    spec: str, timeout_s: float = DEFAULT_TIMEOUT_S, *, name: str | None = None
) -> Answerer:
    """A function mapping a stream of request lines to the evaluator's response lines.
    ``timeout_s`` bounds the wait for each answer, for programs and Python callables alike.
    The evaluator is started here: one that cannot be raises ``EvaluatorStartError``.
    ``name`` is how errors name it (default: the spec)."""
    if not (math.isfinite(timeout_s) and 0 < timeout_s <= MAX_TIMEOUT_S):
        raise EvaluatorError(
            f"timeout {timeout_s!r}: expected a positive number of seconds up to {MAX_TIMEOUT_S:,}"
        )
    if spec.startswith("cmd:"):
        command = spec[4:]
        return _LineEvaluator(
            _command_argv(command, name), f"evaluator {name or command!r}", timeout_s, False
        )
    if spec.startswith("file:"):
        return _results_file(Path(spec[5:]))
    callable_spec = spec.removeprefix("py:")
    module_name, sep, function_name = callable_spec.rpartition(":")
    if not sep or not module_name or not function_name:
        raise EvaluatorError(
            f"evaluator {spec!r}: expected module:function, file.py:function, cmd:COMMAND, "
            "so:LIBRARY or file:PATH"
        )
    argv = [sys.executable, "-I", python_worker.__file__, json.dumps(sys.path), callable_spec]
    return _LineEvaluator(argv, f"evaluator {name or callable_spec!r}", timeout_s, True)


def check_evaluator(
    spec: str, timeout_s: float = DEFAULT_TIMEOUT_S, *, name: str | None = None
) -> None:
    """Start the evaluator ``spec`` and stop it again, asking nothing: ``EvaluatorStartError``
    if it cannot be started, imported or found (a plan checks its evaluators so, before
    anything runs). A ``file:`` results file is only checked to exist."""
    evaluator = open_evaluator(spec, timeout_s, name=name)
    if isinstance(evaluator, _LineEvaluator):
        evaluator.close()


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


def _command_argv(command: str, name: str | None) -> list[str]:
    """The argument vector of a ``cmd:`` evaluator, checked to name a program that can run:
    a missing program or a shared library given as one is a set-up error, found here."""
    who = f"evaluator {name or command!r}"
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise EvaluatorStartError(f"evaluator cmd:{command!r}: cannot split it: {exc}") from None
    if not argv:
        raise EvaluatorStartError("evaluator cmd: is empty")
    program = shutil.which(argv[0]) if "/" not in argv[0] else argv[0]
    if program is None:
        raise EvaluatorStartError(f"{who}: cannot start: no program {argv[0]!r} on PATH")
    if is_shared_library(Path(program)):
        raise EvaluatorStartError(
            f"{who}: {Path(program).name} is a shared library, not a program: give it as "
            "so:LIBRARY[:SYMBOL] (the C ABI)"
        )
    return argv


class _Unreadable(str):
    """A line the evaluator wrote that breaks the protocol (too long, not UTF-8): the reason."""


_Line = str | None
"""One line the evaluator wrote (``None``: its output ended)."""


class _Conversation:
    """One running evaluator process and the thread reading its output lines."""

    def __init__(self, proc: Isolated, limit: int) -> None:
        self.proc = proc
        self.lines: queue.Queue[_Line] = queue.Queue(maxsize=100_000)
        self.stop = threading.Event()
        self.limit = limit
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _put(self, item: _Line) -> None:
        while not self.stop.is_set():
            try:
                self.lines.put(item, timeout=0.1)
                return
            except queue.Full:
                continue

    def _read(self) -> None:
        fd = self.proc.stdout_fd
        pending = b""
        while not self.stop.is_set():
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                break
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for raw in complete:
                if len(raw) > self.limit + 1:
                    self._put(_Unreadable(f"an answer line longer than {MAX_ANSWER:,} bytes"))
                    return
                try:
                    self._put(raw.rstrip(b"\r").decode("utf-8"))
                except UnicodeDecodeError as exc:
                    self._put(_Unreadable(f"{raw[:80]!r}: not UTF-8 ({exc.reason})"))
                    return
            if len(pending) > self.limit + 1:
                self._put(_Unreadable(f"an answer line longer than {MAX_ANSWER:,} bytes"))
                return
        if pending:
            try:
                self._put(pending.decode("utf-8"))
            except UnicodeDecodeError as exc:
                self._put(_Unreadable(f"{pending[:80]!r}: not UTF-8 ({exc.reason})"))
                return
        self._put(None)

    def next_line(self, timeout_s: float, hung: str) -> _Line:
        """The evaluator's next line (``None`` at the end of its output), or ``hung`` raised."""
        try:
            return self.lines.get(timeout=timeout_s)
        except queue.Empty:
            raise EvaluatorError(hung) from None

    def ended(self, timeout_s: float, what: str) -> str:
        """How the process ended ``what`` (e.g. "before answering ..."), with the last lines
        of its error output."""
        ending = self.proc.ending(timeout_s)
        status = ending.describe(self.proc.limits) if ending else "closed its output"
        return f"{status} {what}{self.proc.stderr_detail()}"

    def close(self) -> None:
        self.stop.set()
        self.proc.close()
        self.reader.join(1.0)


class _LineEvaluator:
    """A line-protocol evaluator (a ``cmd:`` program or a Python callable in its worker),
    started when it is opened; each call converses with one process (a second call starts a
    new one)."""

    def __init__(self, argv: list[str], who: str, timeout_s: float, python: bool) -> None:
        self.argv = argv
        self.who = who
        self.timeout_s = timeout_s
        self.python = python
        self._ready: _Conversation | None = None
        self._failure: EvaluatorError | None = None
        try:
            self._ready = self._start()
        except EvaluatorError as exc:  # it started, then crashed or hung while importing:
            self._failure = exc  # the first check fails with it (a start error propagates)

    def _start(self) -> _Conversation:
        proc = Isolated(self.argv, self.who)
        talk = _Conversation(proc, _JSON_ANSWER if self.python else MAX_ANSWER)
        if self.python:
            try:
                self._handshake(talk)
            except BaseException:
                talk.close()
                raise
        return talk

    def _handshake(self, talk: _Conversation) -> None:
        """The Python worker's two lines: its interpreter runs, then the module is imported."""
        load_s = max(self.timeout_s, IMPORT_TIMEOUT_FLOOR_S)
        for phase, wait_s in (("starting", SUPERVISOR_START_S), ("loading", load_s)):
            line = talk.next_line(
                wait_s,
                f"{self.who} hung while {phase}: no answer within {wait_s:g} s",
            )
            if line is None or isinstance(line, _Unreadable):
                raise EvaluatorError(f"{self.who} {talk.ended(self.timeout_s, f'while {phase}')}")
            message = _json_line(line)
            if phase == "starting" and message == {"loading": True}:
                continue
            if phase == "loading" and message == {"ready": True}:
                return
            if isinstance(message, dict) and isinstance(message.get("cannot"), str):
                raise EvaluatorStartError(f"{self.who}: {message['cannot']}")
            raise EvaluatorError(f"{self.who} wrote {line[:80]!r} while {phase}")

    def __call__(self, requests: Iterable[str]) -> Iterator[str]:
        if self._failure is not None:
            failure, self._failure = self._failure, None
            return _failing(failure)
        talk, self._ready = self._ready or self._start(), None
        return self._converse(talk, requests)

    def close(self) -> None:
        """Stop the process started for the first call, if it was never made."""
        if self._ready is not None:
            self._ready.close()
            self._ready = None

    def _answer(self, line: str, request: str) -> str:
        """The answer a line carries (a Python worker's is JSON, a program's is the line)."""
        if not self.python:
            return _checked(line, request, self.who)
        message = _json_line(line)
        if isinstance(message, str):
            return _checked(message, request, self.who)
        if isinstance(message, dict) and set(message) == {"raised", "message"}:
            raise EvaluatorError(
                f"evaluator raised {message['raised']}: {message['message']} on request {request!r}"
            )
        if isinstance(message, dict) and isinstance(message.get("returned"), str):
            raise EvaluatorError(
                f"evaluator returned {message['returned']} (not a string) for request {request!r}"
            )
        raise EvaluatorError(f"{self.who} broke the protocol answering {request!r}: {line[:80]!r}")

    def _converse(self, talk: _Conversation, requests: Iterable[str]) -> Iterator[str]:
        proc = talk.proc
        sent: queue.Queue[str | None] = queue.Queue()

        def write() -> None:
            chunk: list[bytes] = []
            size = 0
            try:
                for request in requests:
                    sent.put(request)
                    data = request.encode("utf-8") + b"\n"
                    chunk.append(data)
                    size += len(data)
                    if size >= _REQUEST_CHUNK:
                        _write_all(proc.stdin_fd, b"".join(chunk))
                        chunk, size = [], 0
                if chunk:
                    _write_all(proc.stdin_fd, b"".join(chunk))
            except OSError:
                pass
            finally:
                sent.put(None)
                proc.close_input()

        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        try:
            while True:
                request = sent.get()
                if request is None:
                    break
                response = talk.next_line(
                    self.timeout_s,
                    f"{self.who} hung: no response to {request!r} within {self.timeout_s:g} s",
                )
                if isinstance(response, _Unreadable):
                    raise EvaluatorError(
                        f"{self.who} broke the protocol answering {request!r}: {response}"
                    )
                if response is None:
                    ended = talk.ended(self.timeout_s, f"before answering {request!r}")
                    raise EvaluatorError(f"{self.who} {ended}")
                yield self._answer(response, request)
            extra = talk.next_line(
                self.timeout_s,
                f"{self.who} answered every request but did not end its output "
                f"within {self.timeout_s:g} s after its input ended",
            )
            if isinstance(extra, _Unreadable):
                raise EvaluatorError(f"{self.who} wrote an extra line: {extra}")
            if extra is not None:
                raise EvaluatorError(f"{self.who} wrote an extra line {extra[:80]!r}")
        finally:
            talk.close()
            writer.join(1.0)


def _failing(failure: EvaluatorError) -> Iterator[str]:
    """An answer stream that fails at once, as the evaluator did before it was asked."""
    raise failure
    yield ""  # a generator: the failure is raised when the first answer is wanted


def _json_line(line: str) -> object:
    try:
        return json.loads(line)
    except ValueError:
        return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _results_file(path: Path) -> Answerer:
    if path.is_dir():
        raise EvaluatorStartError(f"evaluator results file {path}: is a folder, not a file")
    if not path.is_file():
        raise EvaluatorStartError(f"evaluator results file {path} does not exist")

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
