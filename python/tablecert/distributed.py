"""Running the heavy work as shards on a Dask cluster, with answers identical to the local run.

An analysis splits its work into shards (Caribbean Stud: parts of the player hands; Q Poker:
ranges of player hands; audits: one log file each), each shard runs the Rust core where it is
executed and returns exact integer tables, and the caller merges them in shard order. Integer
sums do not depend on where or in which order shards ran, so the merged answer is the local
answer bit for bit. Dask (``pip install tablecert[distributed]``) is imported only here, and
only when a cluster is asked for: the core install stays lean.
"""

from __future__ import annotations

import importlib
import os
import socket
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, TypeVar

from tablecert.errors import ClusterError

S = TypeVar("S")
R = TypeVar("R")

ShardProgress = Callable[[int, int], None]
"""Called with (shards finished, shards in all)."""

DEFAULT_RETRIES = 3


class Executor(Protocol):
    """Runs a function over shards and returns the results in shard order."""

    @property
    def description(self) -> str: ...

    @property
    def parallelism(self) -> int:
        """How many shards can run at once (to choose a shard count)."""
        ...

    def map(
        self, fn: Callable[[S], R], shards: Sequence[S], progress: ShardProgress | None = None
    ) -> list[R]: ...


class ClusterExecutor(Executor, Protocol):
    """An executor on a cluster: a client to close when the work is done (a
    :class:`DaskExecutor`, or a :class:`tablecert.client_process.ProcessExecutor`)."""

    def close(self) -> None: ...


class LocalExecutor:
    """The shards one after another in this process (the same shards a cluster would run)."""

    description = "local (in-process shards)"
    parallelism = 1

    def map(
        self, fn: Callable[[S], R], shards: Sequence[S], progress: ShardProgress | None = None
    ) -> list[R]:
        results = []
        for done, shard in enumerate(shards):
            results.append(fn(shard))
            if progress is not None:
                progress(done + 1, len(shards))
        return results


class DaskExecutor:
    """Shards as Dask tasks; a shard whose worker dies (or that raises) is retried.

    Shards are small descriptions (ranges, a file path); each task reads its own input on the
    worker, so no log or table passes through the scheduler on the way in.
    """

    def __init__(self, client: Any, retries: int = DEFAULT_RETRIES, cluster: Any = None) -> None:
        self.client = client
        self.retries = retries
        self._cluster = cluster

    def _workers(self) -> dict[str, Any]:
        workers: dict[str, Any] = self.client.scheduler_info().get("workers", {})
        return workers

    @property
    def description(self) -> str:
        workers = self._workers()  # one request to the scheduler for both counts
        return (
            f"dask {self.client.scheduler.address} "
            f"({len(workers)} workers, {_threads(workers)} threads)"
        )

    @property
    def parallelism(self) -> int:
        return _threads(self._workers())

    def map(
        self, fn: Callable[[S], R], shards: Sequence[S], progress: ShardProgress | None = None
    ) -> list[R]:
        results: dict[int, R] = {}
        for i, result in self.completed(fn, shards):
            results[i] = result
            if progress is not None:
                progress(len(results), len(shards))
        return [results[i] for i in range(len(shards))]

    def completed(
        self, fn: Callable[[S], R], shards: Sequence[S], name: str | None = None
    ) -> Iterator[tuple[int, R]]:
        """Each shard's index and result, in the order the shards finish; ``name``: the
        tasks' key prefix (default: the function's name)."""
        if not shards:
            return
        keys = {} if name is None else {"key": name}
        futures = self.client.map(fn, list(shards), retries=self.retries, pure=False, **keys)
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            # Each answer is fetched as soon as its shard finishes and released on the
            # cluster at once: workers hold no finished results until the last shard ends.
            for future in _dask().as_completed(futures):
                result = future.result()
                future.release()
                yield index[future.key], result
        finally:
            for f in futures:
                f.release()

    def close(self) -> None:
        self.client.close()
        if self._cluster is not None:
            self._cluster.close()


def _threads(workers: dict[str, Any]) -> int:
    """The worker threads of a scheduler's workers (at least 1: a shard count)."""
    return max(1, sum(int(w.get("nthreads", 0)) for w in workers.values()))


class ConnectOnUse:
    """An executor that connects (or starts its local cluster) when it is first used, not
    when it is made: an analysis starts its own work that needs no cluster (on threads; the
    core runs without the GIL) before it asks for the cluster, so that work runs while this
    process imports Dask and connects (0.2-0.3 s of a client's start), not beside the
    shards. ``on_connect`` is told the executor once it is connected. Not thread-safe: one
    thread uses it."""

    def __init__(
        self,
        make: Callable[[], ClusterExecutor],
        on_connect: Callable[[ClusterExecutor], None] | None = None,
    ) -> None:
        self._make = make
        self._on_connect = on_connect
        self._executor: ClusterExecutor | None = None

    @property
    def connected(self) -> ClusterExecutor | None:
        """The executor, if it has been connected."""
        return self._executor

    def executor(self) -> ClusterExecutor:
        """The executor, connected now if it was not yet."""
        if self._executor is None:
            self._executor = self._make()
            if self._on_connect is not None:
                self._on_connect(self._executor)
        return self._executor

    @property
    def description(self) -> str:
        return self.executor().description

    @property
    def parallelism(self) -> int:
        return self.executor().parallelism

    def map(
        self, fn: Callable[[S], R], shards: Sequence[S], progress: ShardProgress | None = None
    ) -> list[R]:
        return self.executor().map(fn, shards, progress)

    def close(self) -> None:
        if self._executor is not None:
            self._executor.close()


#: What a command-line client's import of Dask does without: Jinja2, read only for the HTML
#: views of Dask's objects in a notebook (``dask.widgets`` imports it in a ``try`` and stands
#: in for it when it is missing, as in an install without it): 15-20 ms of CPU of a client's
#: start (BENCHMARKS.md). Imported with it if Dask ever needs it to import.
CLIENT_SKIPS = ("jinja2",)


def _dask(skip: Sequence[str] = ()) -> Any:
    try:
        with _config_read_by_libyaml():
            return import_without("distributed", skip)
    except ImportError:
        raise ClusterError(
            "running on a cluster needs Dask: pip install 'tablecert[distributed]'"
        ) from None


def import_without(name: str, skipped: Sequence[str]) -> ModuleType:
    """``import name`` with the modules ``skipped`` that are not imported yet made
    unimportable while it runs (``sys.modules[m] = None``: ``import m`` raises ImportError),
    for a package that does without them; they are importable again afterwards. If the
    package does not do without them (it raises ImportError), it is imported again with
    them: Python has dropped the modules whose import failed."""
    if name in sys.modules:
        return sys.modules[name]
    blocked = [m for m in skipped if m not in sys.modules]
    for m in blocked:
        sys.modules[m] = None  # type: ignore[assignment]
    try:
        return importlib.import_module(name)
    except ImportError:
        pass
    finally:
        for m in blocked:
            if m in sys.modules and sys.modules[m] is None:
                del sys.modules[m]
    return importlib.import_module(name)


@contextmanager
def _config_read_by_libyaml() -> Iterator[None]:
    """Dask and distributed read their configuration (their two default YAML files and the
    user's) with ``yaml.safe_load`` when first imported: PyYAML's pure-Python parser, 30-40 ms
    of CPU of a client's start (BENCHMARKS.md). When PyYAML has libyaml, the same files are
    read by its C parser while they are imported: the same values (``dask.config.config``
    compared equal), the same loader's rules (``CSafeLoader`` is ``SafeLoader`` in C)."""
    if "distributed" in sys.modules:
        yield
        return
    try:
        yaml: Any = importlib.import_module("yaml")
    except ImportError:
        yield
        return
    if not getattr(yaml, "__with_libyaml__", False):
        yield
        return
    plain = yaml.safe_load

    def safe_load(stream: Any) -> Any:
        return yaml.load(stream, Loader=yaml.CSafeLoader)

    yaml.safe_load = safe_load
    try:
        yield
    finally:
        yaml.safe_load = plain


#: Seconds to wait for a scheduler's greeting: a Dask scheduler speaks first, at once.
HANDSHAKE_TIMEOUT_S = 10.0


def scheduler_address(address: str) -> tuple[str, int]:
    """The host and port of a scheduler address (``tcp://host:8786`` or ``host:8786``)."""
    scheme, sep, rest = address.partition("://")
    if not sep:
        scheme, rest = "tcp", address
    if scheme != "tcp":
        raise ClusterError(f"--cluster {address!r}: expected tcp://HOST:PORT")
    host, colon, port = rest.rpartition(":")
    host = host.strip("[]")
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterError(f"--cluster {address!r}: expected tcp://HOST:PORT (a port 1-65535)")
    return host, int(port)


def probe_scheduler(address: str, timeout: float = HANDSHAKE_TIMEOUT_S) -> None:
    """Refuse at once an address where nothing listens, or where the service that answers
    is not a Dask scheduler: a scheduler greets every connection with a message, so a
    service that says nothing within ``timeout`` seconds is not one (Dask's own client would
    wait on it without end)."""
    host, port = scheduler_address(address)
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.settimeout(timeout)
            greeting = sock.recv(8)
    except TimeoutError:
        raise ClusterError(
            f"the service at {address} is not a Dask scheduler (no greeting within {timeout:g} s)"
        ) from None
    except OSError as exc:
        raise ClusterError(
            f"cannot reach the Dask scheduler at {address}: {exc.strerror or exc}"
        ) from None
    if not greeting:
        raise ClusterError(f"the service at {address} closed the connection: not a Dask scheduler")


def connect(
    address: str,
    retries: int = DEFAULT_RETRIES,
    timeout: float = 30,
    skip: Sequence[str] = (),
) -> DaskExecutor:
    """An executor on a running Dask scheduler (``tcp://host:8786``); ``skip``: modules Dask
    is imported without (:data:`CLIENT_SKIPS`, a command-line client's)."""
    distributed = _dask(skip)
    probe_scheduler(address, min(timeout, HANDSHAKE_TIMEOUT_S))
    try:
        client = distributed.Client(address, timeout=timeout)
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClusterError(f"cannot use the Dask scheduler at {address}: {exc}") from None
    return DaskExecutor(client, retries)


def max_local_workers() -> int:
    """The most worker processes a local cluster may start here: four per CPU this process
    may use, and one per 256 MiB of memory (a worker process takes about 100 MB)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    pages, page = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    return max(1, min(4 * (cpus or 1), pages * page // (256 << 20)))


QUIET_SERVERS: dict[str, object] = {
    # A local cluster shares this machine's cores with the shards it runs: its servers' own
    # timers are slowed to what a cluster without a dashboard needs. Dask's defaults (stack
    # samples every 10 ms for the dashboard's profile, the event loop's tick every 20 ms, the
    # GIL and system monitors, the nanny's memory check every 100 ms) cost an idle 2-worker
    # cluster about 17% of a core beside 1-worker one; these, about 3% (BENCHMARKS.md).
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.admin.system-monitor.gil.enabled": False,
    "distributed.worker.memory.monitor-interval": "500ms",
}


def check_local_workers(workers: int) -> None:
    """Refuse a number of local workers this machine cannot run."""
    if workers < 1:
        raise ClusterError(f"--workers {workers}: expected at least 1 worker")
    if workers > (most := max_local_workers()):
        raise ClusterError(
            f"--workers {workers:,}: this machine runs at most {most} local workers (4 per "
            "CPU, one per 256 MiB of memory)"
        )


def local_cluster(
    workers: int, retries: int = DEFAULT_RETRIES, skip: Sequence[str] = ()
) -> DaskExecutor:
    """An executor on a new cluster of ``workers`` single-threaded worker processes here
    (``skip``: as :func:`connect`'s, in this process; the workers import all of Dask)."""
    check_local_workers(workers)
    distributed = _dask(skip)
    import dask.config

    # The nannies hand their configuration to the worker processes they start (and restart).
    with dask.config.set(QUIET_SERVERS):
        cluster = distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            # No dashboard; the scheduler's own HTTP routes on a free port, not on 8787: a
            # second local cluster on the machine (a test's, a benchmark's) starts beside the
            # first without Dask's "port 8787 is already in use" warning.
            scheduler_kwargs={"dashboard_address": ":0"},
            # Each worker runs one shard at a time: the core's own threads stay within one core.
            env={"RAYON_NUM_THREADS": "1"},
        )
    return DaskExecutor(distributed.Client(cluster), retries, cluster)


@contextmanager
def executor_for(
    cluster: str | None = None, workers: int | None = None, retries: int = DEFAULT_RETRIES
) -> Iterator[ClusterExecutor | None]:
    """The executor the CLI options ask for: a scheduler address, a local cluster of
    ``workers`` processes, or ``None`` (the local multi-core path)."""
    if cluster is not None and workers is not None:
        raise ClusterError("give --cluster or --workers, not both")
    if cluster is None and workers is None:
        yield None
        return
    executor = _make_executor(cluster, workers, retries)
    try:
        yield executor
    finally:
        executor.close()


class StartedClient(Protocol):
    """A client started before the command line knew it would need one
    (:class:`tablecert.client_process.ClientProcess`)."""

    address: str

    def executor(self, retries: int) -> ClusterExecutor:
        """Its executor, once connected; the ClusterError of a scheduler it cannot use."""
        ...


_started: StartedClient | None = None


def offer_started(client: StartedClient) -> None:
    """Offer ``client`` to the first executor asked for its address (:func:`take_started`)."""
    global _started
    _started = client


def take_started(address: str, retries: int = DEFAULT_RETRIES) -> ClusterExecutor | None:
    """The offered client's executor, if a client was offered for ``address`` and not taken
    yet; else ``None``. Raises the ClusterError of a scheduler it could not use."""
    global _started
    if _started is None or _started.address != address:
        return None
    started, _started = _started, None
    return started.executor(retries)


def _make_executor(
    cluster: str | None, workers: int | None, retries: int, skip: Sequence[str] = ()
) -> ClusterExecutor:
    if cluster is not None:
        # The client the tablecert script started for this scheduler at its first moment, if
        # it did (tablecert.client_process); else one in this process.
        started = take_started(cluster, retries)
        if started is not None:
            return started
        return connect(cluster, retries, skip=skip)
    return local_cluster(workers or 1, retries, skip)


@contextmanager
def executor_on_use(
    cluster: str | None = None,
    workers: int | None = None,
    retries: int = DEFAULT_RETRIES,
    on_connect: Callable[[ClusterExecutor], None] | None = None,
) -> Iterator[ConnectOnUse | None]:
    """As :func:`executor_for`, the executor connected when it is first used
    (:class:`ConnectOnUse`; never, if the work needs no cluster: figures from the cache), for
    the command line: Dask imported without :data:`CLIENT_SKIPS`."""
    if cluster is not None and workers is not None:
        raise ClusterError("give --cluster or --workers, not both")
    if cluster is None and workers is None:
        yield None
        return
    # What can be refused without a cluster is refused at once, as executor_for does.
    if cluster is not None:
        scheduler_address(cluster)
    else:
        check_local_workers(workers or 1)
    executor = ConnectOnUse(
        lambda: _make_executor(cluster, workers, retries, CLIENT_SKIPS), on_connect
    )
    try:
        yield executor
    finally:
        executor.close()


def split_range(first: int, end: int, shards: int) -> list[tuple[int, int]]:
    """``first..end`` cut into ``shards`` contiguous, non-empty ranges (fewer if it is short)."""
    count = max(1, min(shards, end - first))
    width = end - first
    return [(first + i * width // count, first + (i + 1) * width // count) for i in range(count)]


def largest_first(paths: Sequence[str | Path]) -> list[int]:
    """The files' indices, largest file first (ties in the given order): the longest shards
    start first, so no worker starts a long file while the others sit idle at the end."""
    sizes = [Path(p).stat().st_size for p in paths]
    return sorted(range(len(paths)), key=lambda i: -sizes[i])


def worker_pids(executor: DaskExecutor) -> dict[str, int]:
    """Each worker's process id (for tests that kill a worker mid-run)."""
    pids: dict[str, int] = executor.client.run(os.getpid)
    return pids
