"""A ``--cluster`` command's Dask client in a process of its own: the command's process never
imports Dask, its answers are the in-process client's, a scheduler it cannot use is the same
error, and the child never outlives the command."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tablecert.client_process import ClientProcess, cluster_argument
from tablecert.distributed import DaskExecutor
from tests.support.cli_support import tablecert_process

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def address(cluster: DaskExecutor) -> str:
    return str(cluster.client.scheduler.address)


def _clients(cluster: DaskExecutor) -> int:
    """The clients the scheduler knows, the test's own included."""
    return int(cluster.client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.clients)))


def _settled_clients(cluster: DaskExecutor, want: int, within: float = 10.0) -> int:
    deadline = time.monotonic() + within
    while (n := _clients(cluster)) != want and time.monotonic() < deadline:
        time.sleep(0.05)
    return n


@pytest.mark.parametrize(
    ("argv", "want"),
    [
        (["analyze", "caribbean-stud", "--cluster", "tcp://h:8786"], "tcp://h:8786"),
        (["analyze", "q-poker", "--cluster=h:8786", "--json"], "h:8786"),
        (["analyze", "q-poker", "--cluster", "tcp://a:1", "--cluster", "tcp://b:2"], "tcp://b:2"),
        (["analyze", "q-poker", "--json"], None),
        (["analyze", "q-poker", "--cluster"], None),
        (["analyze", "q-poker", "--cluster", "tcp://h:8786", "--help"], None),
        (["analyze", "q-poker", "-h", "--cluster", "tcp://h:8786"], None),
        (["--version", "--cluster", "tcp://h:8786"], None),
        (["analyze", "q-poker", "--", "--cluster", "tcp://h:8786"], None),
        (["analyze", "q-poker", "--cluster", "http://h:8786"], None),
        (["analyze", "q-poker", "--cluster", "tcp://h:port"], None),
    ],
)
def test_the_address_is_the_one_the_command_line_would_use(
    argv: list[str], want: str | None
) -> None:
    assert cluster_argument(argv) == want


def test_no_fork_beside_another_thread() -> None:
    """A fork copies only the calling thread: with another one running, no child."""
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert ClientProcess.fork("tcp://127.0.0.1:1") is None
    finally:
        stop.set()
        thread.join()


#: A command line's first moment in a fresh interpreter: the client started, then ``CODE``.
PROBE = r"""
import json, sys
from tablecert import client_process, distributed
client_process.start(["--cluster", sys.argv[1]])
"""


def _probe(address: str, code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE + code, address],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_answers_and_progress_are_those_of_an_in_process_client(address: str) -> None:
    code = r"""
import operator
executor = distributed.take_started(sys.argv[1], retries=0)
seen = []
squares = executor.map(operator.neg, list(range(7)), lambda d, n: seen.append((d, n)))
print(json.dumps([type(executor).__name__, executor.parallelism, squares, seen,
                  executor.map(abs, []), "distributed" in sys.modules]))
executor.close()
"""
    run = _probe(address, code)
    assert run.returncode == 0, run.stderr
    kind, parallelism, answers, seen, empty, dask_here = json.loads(run.stdout)
    assert kind == "ProcessExecutor"
    assert parallelism == 2
    assert answers == [0, -1, -2, -3, -4, -5, -6]
    assert seen == [[i, 7] for i in range(1, 8)]
    assert empty == []
    assert dask_here is False


def test_a_shard_that_raises_raises_its_exception_here(address: str) -> None:
    code = r"""
executor = distributed.take_started(sys.argv[1], retries=0)
try:
    executor.map(int, ["1", "two"])
except Exception as exc:
    print(json.dumps([type(exc).__name__, str(exc)]))
print(json.dumps(executor.map(int, ["3", "4"])))
"""
    run = _probe(address, code)
    assert run.returncode == 0, run.stderr
    lines = [json.loads(line) for line in run.stdout.splitlines()]
    assert lines[0] == ["ValueError", "invalid literal for int() with base 10: 'two'"]
    assert lines[1] == [3, 4]  # the same client serves the next map


def test_a_scheduler_it_cannot_reach_is_the_in_process_error() -> None:
    import socket

    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    code = r"""
from tablecert.errors import ClusterError
try:
    distributed.take_started(sys.argv[1])
except ClusterError as exc:
    print(json.dumps(str(exc)))
"""
    run = _probe(address, code)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout).startswith(f"cannot reach the Dask scheduler at {address}: ")
    cli = tablecert_process(["analyze", "q-poker", "--cluster", address])
    assert cli.returncode == 2
    assert cli.stderr.startswith(f"error: cannot reach the Dask scheduler at {address}: ")


def test_the_command_never_imports_dask_and_answers_as_before(
    address: str, cluster: DaskExecutor
) -> None:
    """The whole ``tablecert`` command on the cluster: the par sheet of the local run, Dask
    imported only in the child, and the child's client gone when the command has ended."""
    before = _clients(cluster)
    entry = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write(f'dask: {\"distributed\" in sys.modules}\\n'))\n"
        "from tablecert.entry import main\n"
        "main()\n"
    )
    argv = [sys.executable, "-c", entry, "analyze", "q-poker", "--json"]
    local = subprocess.run(argv, capture_output=True, text=True, check=True)
    clustered = subprocess.run(
        [*argv, "--cluster", address], capture_output=True, text=True, check=True
    )
    assert json.loads(clustered.stdout) == json.loads(local.stdout)
    assert "running on dask" in clustered.stderr
    assert "dask: False" in clustered.stderr.splitlines()
    assert _settled_clients(cluster, before) == before


def test_a_started_client_no_command_takes_ends_with_the_command(
    address: str, cluster: DaskExecutor
) -> None:
    before = _clients(cluster)
    run = tablecert_process(["analyze", "q-poker", "--cluster", address, "--no-such-option"])
    assert run.returncode == 2
    assert "No such option" in run.stderr
    assert _settled_clients(cluster, before) == before


def _ended(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in status


def test_the_child_ends_when_the_command_is_killed(address: str, cluster: DaskExecutor) -> None:
    before = _clients(cluster)
    code = r"""
executor = distributed.take_started(sys.argv[1])
print(executor._process._pid, flush=True)
import time; time.sleep(60)
"""
    with subprocess.Popen(
        [sys.executable, "-c", PROBE + code, address], stdout=subprocess.PIPE, text=True
    ) as parent:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        assert not _ended(child)
        # The command's output is not the child's: a reader of its pipe sees it end with it.
        assert [os.readlink(f"/proc/{child}/fd/{fd}") for fd in (0, 1)] == ["/dev/null"] * 2
        assert _settled_clients(cluster, before + 1) == before + 1
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 10
    while not _ended(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _ended(child)
    assert _settled_clients(cluster, before) == before


def test_a_take_for_another_address_leaves_the_started_client(address: str) -> None:
    code = r"""
other = distributed.take_started("tcp://127.0.0.1:9")
print(json.dumps([other, distributed.take_started(sys.argv[1]) is None]))
"""
    run = _probe(address, code)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == [None, False]


def test_a_command_without_a_cluster_imports_none_of_it() -> None:
    entry = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write("
        "f'started: {\"tablecert.client_process\" in sys.modules}\\n'))\n"
        "from tablecert.entry import main\n"
        "main()\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", entry, "hands", "q-poker", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(run.stdout)
    assert run.stderr.splitlines() == ["started: False"]


def test_an_interrupted_command_ends_its_child_at_once(address: str, cluster: DaskExecutor) -> None:
    """Ctrl-C while the shards run: the command ends now, not after the shard or after the
    wait for the child's own end, and its child with it."""
    before = _clients(cluster)
    code = r"""
import time
executor = distributed.take_started(sys.argv[1], retries=0)
print(executor._process._pid, flush=True)
try:
    executor.map(time.sleep, [30])
finally:
    executor.close()
"""
    with subprocess.Popen(
        [sys.executable, "-c", PROBE + code, address],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    ) as parent:
        assert parent.stdout is not None
        child = int(parent.stdout.readline())
        time.sleep(1.0)  # the shard is running on a worker
        parent.send_signal(signal.SIGINT)
        started = time.monotonic()
        assert parent.wait(timeout=20) != 0
        assert time.monotonic() - started < 3
    deadline = time.monotonic() + 5
    while not _ended(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _ended(child)
    assert _settled_clients(cluster, before) == before
