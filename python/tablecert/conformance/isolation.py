"""Vendor code in a process of its own: every evaluator kind runs through ``Isolated``.

tablecert starts the supervisor (``supervisor.py``) in a new session; the supervisor starts
the vendor's program in another new session and process group, under resource limits, and is
its parent. What this contains:

* **output**: the program's stdin and stdout are tablecert's protocol pipes and its stderr a
  pipe tablecert reads (the last lines are quoted when it fails); nothing it writes reaches
  tablecert's own stdout or stderr;
* **lifetime**: when the program ends, when tablecert is done with it, or when tablecert dies
  (the supervisor's control pipe closes), its whole process group and every descendant left
  (on Linux, orphans re-parented to the subreaper supervisor, ``setsid`` daemons included) are
  killed with SIGKILL;
* **its parent**: the program's parent is the supervisor, so ``kill(getppid(), SIGKILL)`` ends
  the supervisor and the evaluator with it (a failed check), not tablecert;
* **resources**: address space, CPU time and open files are bounded (``Limits``), core files
  are off;
* **secrets**: the signing key's passphrase variable is not in its environment.

What it does not contain: the program runs as the same user, so it can read and write that
user's files, use the network and signal that user's processes by pid. Run vendor code you do
not trust further in a container or a user account of its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import stat
import struct
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from tablecert.conformance.evaluator_errors import EvaluatorError, EvaluatorStartError

SUPERVISOR = str(Path(__file__).with_name("supervisor.py"))
#: Seconds tablecert waits for the supervisor (a Python interpreter) to start the program.
SUPERVISOR_START_S = 60.0
#: Seconds to wait, once asked, for the supervisor to kill and reap the program's processes.
STOP_S = 10.0
#: Environment variables never passed to vendor code: the signing key's passphrase.
WITHHELD_ENVIRONMENT = ("TABLECERT_KEY_PASSPHRASE",)
_STDERR_LINES = 5
_STDERR_LINE = 4096


@dataclass(frozen=True)
class Limits:
    """Resource limits of an evaluator's processes (each process, ``setrlimit``)."""

    #: Address space (RLIMIT_AS), bytes.
    memory_bytes: int = 8 << 30
    #: CPU time (RLIMIT_CPU), seconds: SIGXCPU beyond it, SIGKILL 5 s later.
    cpu_seconds: int = 3600
    #: Open file descriptors (RLIMIT_NOFILE).
    open_files: int = 256


DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class Ending:
    """How an evaluator's program ended, as its supervisor saw it."""

    code: int | None = None
    signal: int | None = None
    #: The supervisor vanished without a word (the program killed it).
    supervisor_lost: bool = False

    def describe(self, limits: Limits = DEFAULT_LIMITS) -> str:
        if self.supervisor_lost:
            return "killed its supervisor process (it was stopped with it)"
        if self.signal is not None:
            try:
                name = signal.Signals(self.signal).name
            except ValueError:
                name = f"signal {self.signal}"
            if self.signal == signal.SIGXCPU:
                return f"was stopped at its CPU time limit of {limits.cpu_seconds:,} s ({name})"
            if self.signal == signal.SIGKILL:
                return f"was killed ({name})"
            return f"crashed ({name})"
        if self.code is not None:
            return f"exited with status {self.code}"
        return "was stopped"


class _Handles:
    """The descriptors and processes of one isolated program, released exactly once (also by
    the finalizer when an ``Isolated`` is dropped without being closed)."""

    def __init__(self, supervisor: subprocess.Popen[bytes], fds: list[int]) -> None:
        self.supervisor = supervisor
        self.fds = fds
        self.control: int | None = None
        self.group: int | None = None
        self.released = False
        self._lock = threading.Lock()

    def close_fd(self, fd: int) -> None:
        """Close one of the descriptors, once (a number closed twice may be another file's)."""
        with self._lock:
            if fd not in self.fds:
                return
            self.fds.remove(fd)
        with contextlib.suppress(OSError):
            os.close(fd)

    def stop(self) -> None:
        """Close the control pipe (the supervisor then kills the program's tree) and wait."""
        if self.control is not None:
            with contextlib.suppress(OSError):
                os.close(self.control)
            self.control = None
        try:
            self.supervisor.wait(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            self.supervisor.kill()
            self.supervisor.wait()
            self.kill_group()

    def kill_group(self) -> None:
        if self.group is not None:
            with contextlib.suppress(OSError):
                os.killpg(self.group, signal.SIGKILL)

    def release(self) -> None:
        if self.released:
            return
        self.released = True
        self.stop()
        for fd in list(self.fds):
            self.close_fd(fd)


class Isolated:
    """A vendor's program running under the supervisor: write requests to ``stdin_fd``, read
    answers from ``stdout_fd``; ``close()`` (or the context manager) ends it and its processes.

    ``who`` names the evaluator in errors. A program that cannot be executed raises
    ``EvaluatorStartError`` (an input error) from the constructor."""

    def __init__(self, argv: Sequence[str], who: str, limits: Limits = DEFAULT_LIMITS) -> None:
        self.who = who
        self.limits = limits
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        ctl_r, ctl_w = os.pipe()
        st_r, st_w = os.pipe()
        config = {"argv": list(argv), "control": ctl_r, "status": st_w, **asdict(limits)}
        try:
            supervisor = subprocess.Popen(
                [sys.executable, "-I", "-S", SUPERVISOR, json.dumps(config)],
                stdin=in_r,
                stdout=out_w,
                stderr=err_w,
                pass_fds=(ctl_r, st_w),
                start_new_session=True,
                env={k: v for k, v in os.environ.items() if k not in WITHHELD_ENVIRONMENT},
            )
        except OSError as exc:
            for fd in (in_r, in_w, out_r, out_w, err_r, err_w, ctl_r, ctl_w, st_r, st_w):
                os.close(fd)
            raise EvaluatorStartError(f"{who}: cannot start its supervisor: {exc}") from exc
        for fd in (in_r, out_w, err_w, ctl_r, st_w):
            os.close(fd)
        self.stdin_fd, self.stdout_fd = in_w, out_r
        self._handles = _Handles(supervisor, [in_w, out_r, err_r, st_r])
        self._handles.control = ctl_w
        self._finalizer = weakref.finalize(self, self._handles.release)
        self._tail: list[str] = []
        self._ending: Ending | None = None
        self._started = threading.Event()
        self._ended = threading.Event()
        self._start_line = ""
        self._drain = threading.Thread(target=self._read_stderr, args=(err_r,), daemon=True)
        self._drain.start()
        self._watch = threading.Thread(target=self._read_status, args=(st_r,), daemon=True)
        self._watch.start()
        if not self._started.wait(SUPERVISOR_START_S):
            self.close()
            raise EvaluatorError(
                f"{who}: its supervisor did not start within {SUPERVISOR_START_S:g} s"
            )
        if self._start_line.startswith("cannot-start "):
            self.close()
            raise EvaluatorStartError(
                f"{who}: cannot start: {self._start_line.removeprefix('cannot-start ')}"
            )
        if not self._start_line.startswith("started "):
            self.close()
            raise EvaluatorError(f"{who}: its supervisor failed{self.stderr_detail()}")
        self._handles.group = int(self._start_line.split()[1])

    def __enter__(self) -> Isolated:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read_status(self, fd: int) -> None:
        buffer = b""
        lines: list[str] = []
        while not self._handles.released:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                chunk = b""
            if not chunk:
                break
            buffer += chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                lines.append(line.decode("utf-8", "replace"))
                if len(lines) == 1:
                    self._start_line = lines[0]
                    self._started.set()
        if not lines:
            self._started.set()
            return
        last = lines[-1] if len(lines) > 1 else ""
        if last.startswith("exited "):
            self._ending = Ending(code=int(last.split()[1]))
        elif last.startswith("signal "):
            self._ending = Ending(signal=int(last.split()[1]))
        elif last == "stopped":
            self._ending = Ending()
        elif lines[0].startswith("started "):
            # No last word: the supervisor was killed (by the program it watched). Its
            # program's group is killed now, so that every pipe it holds closes.
            self._ending = Ending(supervisor_lost=True)
            with contextlib.suppress(OSError):
                os.killpg(int(lines[0].split()[1]), signal.SIGKILL)
        self._ended.set()

    def _read_stderr(self, fd: int) -> None:
        pending = b""
        while not self._handles.released:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                return
            if not chunk:
                break
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for line in complete:
                self._keep(line)
            if len(pending) > _STDERR_LINE:
                self._keep(pending)
                pending = b""
        if pending:
            self._keep(pending)

    def _keep(self, line: bytes) -> None:
        text = line[:_STDERR_LINE].decode("utf-8", "replace").rstrip()
        if text:
            self._tail.append(text)
            del self._tail[:-_STDERR_LINES]

    def ending(self, timeout_s: float) -> Ending | None:
        """How the program ended (waiting up to ``timeout_s``); ``None`` if it is still running."""
        return self._ending if self._ended.wait(timeout_s) else None

    def stderr_tail(self, timeout_s: float = 1.0) -> list[str]:
        """The last lines of the program's error output (read to its end when it has ended)."""
        if self._ended.is_set():
            self._drain.join(timeout_s)
        return list(self._tail)

    def stderr_detail(self) -> str:
        tail = self.stderr_tail()
        return f"; stderr: {' | '.join(tail)}" if tail else ""

    def close_input(self) -> None:
        """End the program's input (it should then finish and exit)."""
        self._handles.close_fd(self.stdin_fd)

    def close(self, grace_s: float = 0.0) -> None:
        """Stop the program (after ``grace_s`` seconds to exit by itself once its input is
        closed), kill its process group and descendants, and release every descriptor."""
        self.close_input()
        if grace_s > 0:
            self._ended.wait(grace_s)
        self._handles.stop()
        self._watch.join(STOP_S)
        self._drain.join(1.0)
        self._finalizer()


_ET_DYN = 3
_PT_INTERP = 3


def is_shared_library(path: Path) -> bool:
    """Whether ``path`` is an ELF shared library rather than a program: of type ET_DYN with no
    program interpreter (a position-independent executable names one). Run as a program, a
    library crashes at once: that is a set-up error, not the vendor's."""
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            return False
        with path.open("rb") as handle:
            head = handle.read(64)
            if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] not in (1, 2):
                return False
            end = "<" if head[5] == 1 else ">"
            if struct.unpack_from(f"{end}H", head, 16)[0] != _ET_DYN:
                return False
            if head[4] == 2:
                (phoff,) = struct.unpack_from(f"{end}Q", head, 32)
                size, count = struct.unpack_from(f"{end}HH", head, 54)
            else:
                (phoff,) = struct.unpack_from(f"{end}I", head, 28)
                size, count = struct.unpack_from(f"{end}HH", head, 42)
            handle.seek(phoff)
            table = handle.read(size * count)
    except OSError:
        return False
    if size < 4 or len(table) < size * count:
        return False
    types = (struct.unpack_from(f"{end}I", table, i * size)[0] for i in range(count))
    return _PT_INTERP not in types


def wait_readable(fd: int, deadline: float) -> bool:
    """Whether ``fd`` has data (or its end) before the monotonic ``deadline``."""
    left = max(deadline - time.monotonic(), 0.0)
    ready, _, _ = select.select([fd], [], [], left)
    return bool(ready)
