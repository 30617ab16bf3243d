"""A ``--cluster`` command's Dask client in a process of its own, started at the command's
first moment.

Importing Dask and connecting to the scheduler take 0.2-0.3 s of a command-line client's
start, and the command's own start (Typer, the command's modules, NumPy, the rule file) about
0.2 s more; in one process they run one after the other while the cluster's workers wait. So
the ``tablecert`` script (:mod:`tablecert.entry`), when its arguments name a scheduler
(``--cluster ADDRESS``), forks before it imports anything else (:func:`start`): the child
imports Dask and connects, on another core, while the parent starts the command. The
command's executor (a :class:`ProcessExecutor`, from ``distributed.take_started``) sends
the shards pickled; the child submits them and sends back each answer as it arrives, pickled on the
worker that ran the shard (:func:`call_pickled`): the child unpickles neither shards nor
answers, so it imports neither the games nor their tables. Shards, answers, their order and
the exceptions raised are those of a client in the command's own process (BENCHMARKS.md).

A started client that no command takes (a usage error, figures from the cache, ``--help``)
ends with the command: the child reads until its socket closes, then closes its Dask client
and exits, also when the parent was killed. Only this module's own code is on either end of
the socket: it carries pickles.
"""

from __future__ import annotations

import atexit
import os
import pickle
import signal
import socket
import struct
import time
from collections.abc import Callable, Sequence
from typing import IO, Any, NoReturn, TypeVar

from tablecert.distributed import (
    CLIENT_SKIPS,
    DEFAULT_RETRIES,
    ShardProgress,
    connect,
    offer_started,
    scheduler_address,
)
from tablecert.errors import ClusterError

S = TypeVar("S")
R = TypeVar("R")

_HEADER = struct.Struct("<Q")

#: Seconds the command waits, at its end, for the child to close its Dask client and exit
#: (a few milliseconds) before it kills it.
END_WAIT_S = 5.0


def cluster_argument(argv: Sequence[str]) -> str | None:
    """The scheduler address ``argv`` (the command's arguments) gives with ``--cluster``, if
    it is a well-formed one and nothing asks only for help: the address a command of this
    command line would connect to. ``None`` otherwise (the command line decides then)."""
    address = None
    for i, arg in enumerate(argv):
        if arg == "--":
            break
        if arg in ("--help", "-h", "--version"):
            return None
        if arg == "--cluster" and i + 1 < len(argv):
            address = argv[i + 1]
        elif arg.startswith("--cluster="):
            address = arg.partition("=")[2]
    if address is None:
        return None
    try:
        scheduler_address(address)
    except ClusterError:
        return None
    return address


def _alone() -> bool:
    """Whether this process has one thread (a fork copies only the calling thread)."""
    try:
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


class ClientProcess:
    """The parent's end of a started client: its child, the scheduler address it connects to,
    and the socket between them."""

    def __init__(self, address: str, pid: int, sock: socket.socket) -> None:
        self.address = address
        self._pid: int | None = pid
        self._sock = sock
        self._reader: IO[bytes] = sock.makefile("rb")
        #: A map sent and not answered in full: the child is waiting on the cluster.
        self.busy = False

    @classmethod
    def fork(cls, address: str) -> ClientProcess | None:
        """A child connecting to ``address`` now; ``None`` where this process cannot fork
        safely (another thread running, no ``fork``)."""
        if not hasattr(os, "fork") or not _alone():
            return None
        # What both processes import, imported once, before the fork: NumPy, 0.05-0.1 s of
        # CPU (Dask imports it; so does every command that runs on a cluster). One thread
        # still: $OPENBLAS_NUM_THREADS is 1 unless the user set it.
        import numpy  # noqa: F401

        if not _alone():
            return None
        mine, theirs = socket.socketpair()
        pid = os.fork()
        if pid == 0:  # the child
            mine.close()
            _child(theirs, address)
        theirs.close()
        return cls(address, pid, mine)

    def send(self, message: object) -> None:
        try:
            _send(self._sock, message)
        except OSError:
            raise ClusterError(f"the client process for {self.address} has ended") from None

    def receive(self) -> Any:
        message = _receive(self._reader)
        if message is None:
            raise ClusterError(f"the client process for {self.address} ended before it answered")
        return message

    def executor(self, retries: int = DEFAULT_RETRIES) -> ProcessExecutor:
        """The executor on the child's client, once it has connected (waited for here). A
        scheduler that cannot be used raises the ClusterError an in-process client raises."""
        greeting = self.receive()
        if greeting[0] == "refused":
            self.end()
            raise ClusterError(greeting[1])
        if greeting[0] != "connected":
            self.end()
            raise RuntimeError(f"the client process for {self.address}: {greeting[1]}")
        return ProcessExecutor(self, greeting[1], greeting[2], retries)

    def release(self) -> None:
        """Close the socket: the child closes its Dask client and exits, while this process
        goes on (it is reaped by :meth:`end`, at this process's end). A child still waiting
        on a map (the command interrupted: Ctrl-C, an error) would see the socket's end only
        at its next answer: it is terminated at once, as the command's own client would
        have ended with the command (the scheduler drops a lost client's tasks)."""
        if self._sock.fileno() != -1:
            self._reader.close()
            self._sock.close()
        if self.busy and self._pid is not None:
            self.busy = False
            os.kill(self._pid, signal.SIGTERM)

    def end(self) -> None:
        """:meth:`release`, and reap the child, killed if it has not ended within
        :data:`END_WAIT_S`."""
        self.release()
        if self._pid is None:
            return
        pid, self._pid = self._pid, None
        deadline = time.monotonic() + END_WAIT_S
        while os.waitpid(pid, os.WNOHANG) == (0, 0):
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                return
            time.sleep(0.002)


class ProcessExecutor:
    """An executor whose Dask client runs in the child process (see the module's text). Not
    thread-safe: one thread uses it, as :class:`tablecert.distributed.ConnectOnUse`."""

    def __init__(
        self, process: ClientProcess, description: str, parallelism: int, retries: int
    ) -> None:
        self._process = process
        self.description = description
        self.parallelism = parallelism
        self.retries = retries

    def map(
        self, fn: Callable[[S], R], shards: Sequence[S], progress: ShardProgress | None = None
    ) -> list[R]:
        if not shards:
            return []
        blobs = [_pickled((fn, shard)) for shard in shards]
        self._process.busy = True
        self._process.send((getattr(fn, "__name__", "shard"), blobs, self.retries))
        results: dict[int, R] = {}
        while (message := self._process.receive())[0] == "answer":
            results[message[1]] = pickle.loads(message[2])
            if progress is not None:
                progress(len(results), len(shards))
        self._process.busy = False  # "failed" or "done": the child waits for the next map
        if message[0] == "failed":
            raise _exception(message[1])
        return [results[i] for i in range(len(shards))]

    def close(self) -> None:
        """The child told to close its client; reaped at this process's end (its close
        runs while this process writes its output)."""
        self._process.release()


def _pickled(value: object) -> bytes:
    """``value`` pickled; by cloudpickle (Dask's) if plain pickle cannot (a lambda)."""
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, AttributeError, TypeError):
        import cloudpickle  # type: ignore[import-untyped]

        data: bytes = cloudpickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        return data


def call_pickled(blob: bytes) -> bytes:
    """The task the child submits, run on a worker: a shard's function and the shard
    unpickled, the answer pickled (an exception raised goes back as Dask sends it)."""
    fn, shard = pickle.loads(blob)
    return pickle.dumps(fn(shard), protocol=pickle.HIGHEST_PROTOCOL)


def _exception(blob: bytes) -> BaseException:
    try:
        exc = pickle.loads(blob)
    except Exception as failed:  # its class is not importable here
        return RuntimeError(f"a shard failed and its exception cannot be read: {failed}")
    return exc if isinstance(exc, BaseException) else RuntimeError(repr(exc))


def _exception_blob(exc: BaseException) -> bytes:
    try:
        return pickle.dumps(exc, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        return pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"))


def _receive(reader: IO[bytes]) -> Any:
    """The next message, or ``None`` at the end of the stream."""
    header = reader.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    data = reader.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


def _send(sock: socket.socket, message: object) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    sock.sendall(_HEADER.pack(len(data)) + data)


def _child(sock: socket.socket, address: str) -> NoReturn:
    """The child's whole life: connect, serve the parent's requests until its socket closes,
    close the client. It never returns into the parent's code (``os._exit``)."""
    code = 0
    try:
        # A Ctrl-C at the terminal reaches the whole process group: the parent handles it,
        # and the child ends when the parent's end closes the socket.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        # The command's input and output are the command's: the child reads none and writes
        # none, and never holds a pipe of them open (``tablecert ... | cat`` ends with the
        # command). Its stderr is the command's, for what Dask logs there as it would in one
        # process.
        null = os.open(os.devnull, os.O_RDWR)
        os.dup2(null, 0)
        os.dup2(null, 1)
        os.close(null)
        _serve(sock, address)
    except BaseException:  # the parent is told by the socket's end; nothing to print here
        code = 1
    finally:
        os._exit(code)


def _serve(sock: socket.socket, address: str) -> None:
    try:
        executor = connect(address, skip=CLIENT_SKIPS)
    except ClusterError as exc:
        _send(sock, ("refused", str(exc)))
        return
    except Exception as exc:
        _send(sock, ("crashed", f"{type(exc).__name__}: {exc}"))
        return
    try:
        _send(sock, ("connected", executor.description, executor.parallelism))
        reader = sock.makefile("rb")
        while (request := _receive(reader)) is not None:
            name, blobs, executor.retries = request
            try:
                for index, answer in executor.completed(call_pickled, blobs, name):
                    _send(sock, ("answer", index, answer))
            except Exception as exc:
                _send(sock, ("failed", _exception_blob(exc)))
            else:
                _send(sock, ("done",))
    finally:
        executor.close()


def start(argv: Sequence[str]) -> None:
    """At the command's first moment: fork a client for the scheduler ``argv`` names
    (:func:`cluster_argument`), if any, and offer it to the command's executor
    (:func:`tablecert.distributed.take_started`); ended when this process ends."""
    address = cluster_argument(argv)
    if address is None:
        return
    started = ClientProcess.fork(address)
    if started is not None:
        atexit.register(started.end)
        offer_started(started)
