"""Inputs that would hang or exhaust the machine are refused at once, as input errors: a FIFO
or a device where a file is read whole, a cluster address that is no Dask scheduler, more
local workers than the machine can run."""

from __future__ import annotations

import json
import os
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablecert import distributed
from tablecert.errors import ClusterError
from tests.support.cli_support import tablecert
from tests.support.plan_support import write_plan


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "q-poker", "--rules", "{rules}", "As Ks Qs", "2h 3h 4h"],
        ["hands", "q-poker", "--rules", "{rules}"],
        ["analyze", "q-poker", "--rules", "{rules}"],
    ],
)
@pytest.mark.parametrize("source", ["fifo", "/dev/zero"])
def test_rules_that_never_end_are_refused(args: list[str], source: str, fifo: Path) -> None:
    rules = str(fifo) if source == "fifo" else source
    run = tablecert([a.replace("{rules}", rules) for a in args])
    assert run.code == 2, run.stderr
    assert run.error_lines == [
        f"error: {rules}: cannot read rule file: not a regular file (a device, FIFO or socket)"
    ]


def test_an_rng_fifo_is_refused(fifo: Path) -> None:
    run = tablecert(["audit", "rng", str(fifo)])
    assert run.code == 2, run.stderr
    assert "not a regular file" in run.stderr


@pytest.fixture
def silent_service() -> Iterator[str]:
    """A TCP service on 127.0.0.1 that accepts connections and never says a word."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(5)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                return

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        server.close()
        for conn in accepted:
            conn.close()
        thread.join(timeout=5)


def test_a_service_that_is_not_a_scheduler_is_refused_promptly(
    silent_service: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(distributed, "HANDSHAKE_TIMEOUT_S", 0.5)
    with pytest.raises(ClusterError, match=r"not a Dask scheduler \(no greeting within 0.5 s\)"):
        distributed.probe_scheduler(silent_service, 0.5)
    run = tablecert(["analyze", "q-poker", "--cluster", silent_service])
    assert run.code == 2, run.stderr
    assert "is not a Dask scheduler" in run.stderr


@pytest.mark.parametrize(
    "address", ["not a url", "notaurl", "http://127.0.0.1:8786", "tcp://host:port", "tcp://h:0"]
)
def test_a_malformed_cluster_address_is_a_usage_error(address: str) -> None:
    run = tablecert(["analyze", "q-poker", "--cluster", address])
    assert run.code == 2, run.stderr
    assert run.error_lines == [
        f"error: --cluster {address!r}: expected tcp://HOST:PORT"
        + ("" if address.startswith("http") else " (a port 1-65535)")
    ]


def test_nothing_listening_is_an_input_error() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    run = tablecert(["analyze", "q-poker", "--cluster", f"tcp://127.0.0.1:{port}"])
    assert run.code == 2, run.stderr
    assert "cannot reach the Dask scheduler" in run.stderr


def test_workers_are_bounded_by_the_machine() -> None:
    most = distributed.max_local_workers()
    assert 1 <= most <= 4 * (os.cpu_count() or 1)
    run = tablecert(["analyze", "q-poker", "--workers", "99999"])
    assert run.code == 2, run.stderr
    assert run.error_lines == [
        f"error: --workers 99,999: this machine runs at most {most} local workers (4 per CPU, "
        "one per 256 MiB of memory)"
    ]


def _named_thrice(tmp_path: Path) -> list[str]:
    """One RNG file named three ways: a path, the same path with ./, a link to it; and a
    copy of its bytes under another name."""
    source = Path(__file__).resolve().parents[1] / "fixtures" / "nist" / "pi.bin"
    data = tmp_path / "pi.bin"
    data.write_bytes(source.read_bytes())
    (tmp_path / "link.bin").symlink_to(data)
    (tmp_path / "copy.bin").write_bytes(data.read_bytes())
    return ["pi.bin", "./pi.bin", "link.bin", "copy.bin"]


@pytest.mark.parametrize(
    ("second", "shown", "how"),
    [
        ("./pi.bin", "pi.bin", "the same path"),
        ("link.bin", "link.bin", "the same file under another name or link"),
        ("copy.bin", "copy.bin", "the same bytes (SHA-256 "),
    ],
)
def test_an_input_named_twice_is_an_input_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, second: str, shown: str, how: str
) -> None:
    _named_thrice(tmp_path)
    monkeypatch.chdir(tmp_path)
    run = tablecert(["audit", "rng", "pi.bin", second, "--sequences", "2"])
    assert run.code == 2, run.stderr
    assert f"RNG output file {shown} is pi.bin again ({how}" in run.stderr
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n[[section]]\nkind = "rng-audit"\n'
        f'files = ["pi.bin", "{second}"]\n',
    )
    run = tablecert(["certify", str(plan), "-o", str(tmp_path / "out")])
    assert run.code == 2, run.stderr
    assert f"'{second}' is 'pi.bin' again ({how}" in run.stderr
    assert not (tmp_path / "out").exists()


def test_a_shuffler_log_twice_is_an_input_error_not_a_device_fail(tmp_path: Path) -> None:
    log = Path(__file__).resolve().parents[1] / "fixtures" / "logs" / "shuffler-sample.csv"
    run = tablecert(["audit", "shuffler", str(log), str(log)])
    assert run.code == 2, run.stderr
    assert "is " + str(log) + " again (the same path)" in run.stderr


def test_an_rng_audit_reads_only_the_bits_it_tests(tmp_path: Path) -> None:
    """A 3 GiB capture audited as 2 sequences of 10^5 bits reads 25,000 bytes, not the file:
    the answer is the one from a file of exactly those bytes."""
    from tablecert.audit import rng

    pi = (Path(__file__).resolve().parents[1] / "fixtures" / "nist" / "pi.bin").read_bytes()
    big = tmp_path / "big.bin"
    with big.open("wb") as handle:
        handle.write(pi[:25_000])
        handle.truncate(3 << 30)  # sparse: nothing more is on disk
    exact = tmp_path / "exact.bin"
    exact.write_bytes(pi[:25_000])
    source = rng.read_bits(big, max_bits=200_000)
    assert (len(source.data), source.total_bits) == (25_000, 8 * (3 << 30))
    args = ["audit", "rng", "--bits", "100000", "--sequences", "2", "--json"]
    big_run, exact_run = tablecert([*args, str(big)]), tablecert([*args, str(exact)])
    assert (big_run.code, exact_run.code) == (0, 0), big_run.stderr + exact_run.stderr
    for key in ("verdict", "decision", "pvalues"):
        assert json.loads(big_run.stdout)[key] == json.loads(exact_run.stdout)[key]
