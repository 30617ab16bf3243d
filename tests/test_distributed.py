"""Shards on a Dask cluster give the local answer bit for bit, even when a worker dies."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from tablecert import _core
from tablecert._core import _testing
from tablecert.audit.shuffler import ShufflerAudit, audit_shuffler
from tablecert.audit.simulate import write_log
from tablecert.cli import app
from tablecert.distributed import (
    CLIENT_SKIPS,
    QUIET_SERVERS,
    ConnectOnUse,
    DaskExecutor,
    LocalExecutor,
    executor_for,
    executor_on_use,
    import_without,
    local_cluster,
    split_range,
    worker_pids,
)
from tablecert.errors import ClusterError
from tablecert.games import caribbean_stud, q_poker
from tablecert.games.common import AnalysisError
from tablecert.games.progressive import progressive as progressive_of_rules
from tablecert.games.sweep import sweep
from tablecert.poker import ordering
from tablecert.report.entry import Context, PlanEntry, Section
from tablecert.report.registry import REGISTRY
from tablecert.report.sections import section_kinds
from tablecert.rounds.audit import audit_rounds
from tablecert.rounds.hold import HoldParameters
from tablecert.rounds.simulate import write_rounds
from tests.support import caribbean_oracle
from tests.support.imports_probe import modules_imported
from tests.support.plan_support import write_plan

pytest.importorskip("distributed")

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "logs"


def _worker_settings() -> dict[str, object]:
    import dask.config

    return {key: dask.config.get(key) for key in QUIET_SERVERS}


def test_local_workers_run_with_the_quiet_timers(cluster: DaskExecutor) -> None:
    """The worker processes (started by nannies in this process) took the slowed timers: no
    profile sampling every 10 ms, no 20 ms tick, no GIL monitor (what an idle 2-worker cluster
    took from the shards' cores, BENCHMARKS.md); a cluster at an address keeps its own."""
    settings = cluster.client.run(_worker_settings)
    assert len(settings) == 2
    assert all(s == QUIET_SERVERS for s in settings.values()), settings
    assert QUIET_SERVERS["distributed.worker.profile.enabled"] is False
    assert _worker_settings() != QUIET_SERVERS  # this process's own settings are untouched


def test_a_second_local_cluster_starts_beside_the_first(cluster: DaskExecutor) -> None:
    """Two local clusters at once (a benchmark's 1-worker and 2-worker ones): no port is
    fought over, so no warning (an error here) and both answer."""
    second = local_cluster(1)
    try:
        ports = [
            int(e.client.run_on_scheduler(lambda dask_scheduler: dask_scheduler.http_server.port))
            for e in (cluster, second)
        ]
        assert 8787 not in ports
        assert ports[0] != ports[1]
        assert second.client.submit(sum, [1, 2, 3]).result() == 6
    finally:
        second.close()


def test_split_range_covers_every_index_once() -> None:
    assert split_range(0, 52, 13) == [(i, i + 4) for i in range(0, 52, 4)]
    assert split_range(0, 3, 8) == [(0, 1), (1, 2), (2, 3)]
    parts = split_range(0, 22_100, 7)
    assert [a for a, _ in parts[1:]] == [b for _, b in parts[:-1]]
    assert (parts[0][0], parts[-1][1]) == (0, 22_100)


def test_q_poker_on_a_cluster_is_the_local_answer(cluster: DaskExecutor) -> None:
    order = ordering("q-poker", "q-poker.macau")
    whole = q_poker.showdown_counts(order)
    assert len(whole) == 4 * len(_core.STUD_COUNT_FIELDS) * comb(52, 3)
    assert q_poker.showdown_counts(order, cluster, shards=5) == whole
    assert q_poker.showdown_counts(order, LocalExecutor(), shards=3) == whole
    local = q_poker.analyze("q-poker.macau")
    remote = q_poker.analyze("q-poker.macau", executor=cluster, shards=5)
    assert remote.as_json() == local.as_json()
    # The standard (rank-only) rules through shards too.
    standard = q_poker.analyze("q-poker.standard", executor=cluster)
    assert standard.as_json() == q_poker.analyze("q-poker.standard").as_json()


def _reduced_plan(
    rules: str, first: int, end: int, shards: int, parts: int = 1
) -> list[caribbean_oracle.UpcardShard]:
    """Upcards ``first..end`` in ``shards`` ranges, each in ``parts`` parts of the hands."""
    order = ordering("caribbean-stud", rules)
    (whole,) = caribbean_oracle.upcard_shards(order, caribbean_stud.payouts(order), 1)
    return [
        replace(whole, upcards=r, part=(k, parts))
        for r in split_range(first, end, shards)
        for k in range(parts)
    ]


def _one_local_run(
    plan: list[caribbean_oracle.UpcardShard],
) -> tuple[list[tuple[int, ...]], bytes]:
    """The same upcards in one core call on this machine (one sweep, no shards)."""
    first, end = plan[0].upcards[0], plan[-1].upcards[1]
    whole = caribbean_oracle.UpcardShard(
        plan[0].tie_breaks, plan[0].qualifier, plan[0].payouts, (first, end)
    )
    run = _testing.caribbean_analyze(
        _core.TieBreaks(*whole.tie_breaks),
        list(whole.qualifier),
        whole.payouts,
        chunks=1,
        upcards=(first, end),
    )
    bits = run.decisions
    assert isinstance(bits, bytes)
    return [caribbean_oracle.row_values(r) for r in run.categories], bits


def test_caribbean_upcard_shards_on_a_cluster_equal_one_local_run(
    cluster: DaskExecutor,
) -> None:
    # A reduced shard set: upcards 2c, 2h, 2s, 3d (ids 1..4) in three ranges, each in two
    # parts of the player hands.
    plan = _reduced_plan("caribbean-stud.standard", 1, 5, 3, parts=2)
    rows, bits = caribbean_oracle.merge_upcard_shards(
        plan, cluster.map(caribbean_oracle.run_upcard_shard, plan)
    )
    assert (rows, bits) == _one_local_run(plan)
    # Every (player hand, upcard) situation of those 4 upcards, once: 4 x C(51, 5).
    assert sum(r[0] for r in rows) == 4 * comb(51, 5)
    raised = sum(r[1] for r in rows)
    assert 0 < raised < 4 * comb(51, 5)
    masks = np.frombuffer(bits, dtype="<u8")
    assert int(masks.max()) < 1 << 5
    assert int(masks.min()) == 0
    assert int(sum(bin(int(m)).count("1") for m in masks[masks != 0])) == raised


def test_a_worker_killed_mid_run_changes_nothing(cluster: DaskExecutor) -> None:
    plan = _reduced_plan("caribbean-stud.macau", 48, 52, 4)
    expected = _one_local_run(plan)
    results: list[list[caribbean_oracle.ShardAnswer]] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(cluster.map(caribbean_oracle.run_upcard_shard, plan))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    pids = worker_pids(cluster)
    runner = threading.Thread(target=run)
    runner.start()
    victim = None
    deadline = time.monotonic() + 60
    while victim is None and time.monotonic() < deadline and runner.is_alive():
        busy = [w for w, keys in cluster.client.processing().items() if keys]
        victim = next((w for w in busy if w in pids), None)
        time.sleep(0.05)
    assert victim is not None, "no worker ever started a shard"
    time.sleep(0.5)  # let the shard get well into its sweep
    os.kill(pids[victim], signal.SIGKILL)
    runner.join(timeout=300)
    assert not errors, errors
    assert results, "the run did not finish"
    # The nanny replaced the worker: a new process at a (possibly) new address.
    assert pids[victim] not in worker_pids(cluster).values()
    assert caribbean_oracle.merge_upcard_shards(plan, results[0]) == expected


def test_executor_options_are_checked() -> None:
    with pytest.raises(ClusterError, match="not both"), executor_for("tcp://x:1", 2):
        pass
    with executor_for() as none:
        assert none is None


def test_an_executor_on_use_connects_when_first_used_and_once() -> None:
    made: list[LocalExecutor] = []
    told: list[object] = []

    def make() -> DaskExecutor:
        made.append(LocalExecutor())
        return made[-1]  # type: ignore[return-value]  # the shards' protocol is all it needs

    lazy = ConnectOnUse(make, told.append)
    assert lazy.connected is None
    assert not made
    assert lazy.map(lambda x: 2 * x, [1, 2, 3]) == [2, 4, 6]
    assert lazy.parallelism == 1
    assert lazy.description == "local (in-process shards)"
    assert len(made) == 1
    assert told == made
    assert lazy.connected is made[0]


def test_an_executor_on_use_refuses_what_it_can_at_once() -> None:
    with pytest.raises(ClusterError, match="not both"), executor_on_use("tcp://x:1", 2):
        pass
    with pytest.raises(ClusterError, match="expected tcp://HOST:PORT"), executor_on_use("x"):
        pass
    with pytest.raises(ClusterError, match="at most"), executor_on_use(workers=10**6):
        pass
    with executor_on_use() as none:
        assert none is None
    with executor_on_use("tcp://127.0.0.1:1") as never:  # nothing listens there
        assert never is not None
        assert never.connected is None  # and closed without connecting


def test_caribbean_sets_up_beside_the_sweep_before_it_connects(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The progressive and the summary's hand tables are made on a thread started before the
    analysis first uses its cluster: they run while Dask is imported, not beside the shards."""
    connecting = threading.Event()
    events: list[str] = []
    threads: list[list[str]] = []
    real = progressive_of_rules

    def progressive(*args: Any) -> Any:
        events.append("beside started")
        assert connecting.wait(30)  # the analysis asks for its cluster while this runs
        events.append("beside went on")
        return real(*args)

    class ConnectingError(Exception):
        pass

    def make() -> DaskExecutor:
        threads.append([t.name for t in threading.enumerate()])
        events.append("connecting")
        connecting.set()
        raise ConnectingError

    monkeypatch.setattr(caribbean_stud, "progressive", progressive)
    with pytest.raises(ConnectingError):
        caribbean_stud.analyze(use_cache=False, executor=ConnectOnUse(make))
    assert len(threads) == 1
    assert "tablecert-beside-the-sweep" in threads[0]
    assert sorted(events) == ["beside started", "beside went on", "connecting"]
    assert events[-1] == "beside went on"  # and the analysis awaited it before it raised


def test_cli_caribbean_connects_when_the_sweep_needs_the_cluster() -> None:
    """``analyze caribbean-stud --cluster`` refuses a scheduler it cannot reach as before,
    once the analysis asks for it; a malformed address before anything runs."""
    runner = CliRunner()
    args = ["analyze", "caribbean-stud", "--no-cache", "--cluster"]
    unreachable = runner.invoke(app, [*args, "tcp://127.0.0.1:1"])
    assert isinstance(unreachable.exception, ClusterError)  # exit 2 through the entry point
    assert str(unreachable.exception).startswith(
        "cannot reach the Dask scheduler at tcp://127.0.0.1:1: "
    )
    malformed = runner.invoke(app, [*args, "udp://x:1"])
    assert isinstance(malformed.exception, ClusterError)
    assert str(malformed.exception) == "--cluster 'udp://x:1': expected tcp://HOST:PORT"
    assert "analysing" not in malformed.stderr  # refused before the analysis started


def test_cli_q_poker_on_a_cluster(cluster: DaskExecutor) -> None:
    runner = CliRunner()
    local = runner.invoke(app, ["analyze", "q-poker", "--json"])
    address = cluster.client.scheduler.address
    remote = runner.invoke(app, ["analyze", "q-poker", "--json", "--cluster", address])
    assert local.exit_code == 0
    assert remote.exit_code == 0, remote.output
    assert remote.stdout == local.stdout
    both = runner.invoke(app, ["analyze", "q-poker", "--cluster", address, "--workers", "2"])
    assert both.exit_code == 1  # a handled error: run_app prints it on one line
    assert isinstance(both.exception, ClusterError)
    assert "not both" in str(both.exception)


def _fleet(tmp: Path, devices: int, decks: int, model: str = "fair") -> list[Path]:
    """One simulated log per device (the fleet layout)."""
    return [
        write_log(tmp / f"dev-{i}.csv", model, decks, seed=100 + i, device=f"SM-{i:04d}")
        for i in range(devices)
    ]


def _same_audit(a: ShufflerAudit, b: ShufflerAudit) -> None:
    assert a.as_json() == b.as_json()
    assert a.tally.tables.keys() == b.tally.tables.keys()
    for name, table in a.tally.tables.items():
        assert np.array_equal(table, b.tally.tables[name]), name
    assert len(a.batches) == len(b.batches)


def test_audit_of_several_logs_on_a_cluster_is_the_local_answer(
    cluster: DaskExecutor, tmp_path: Path
) -> None:
    logs = _fleet(tmp_path, 4, 400)
    stream = audit_shuffler(logs, batch_size=100)
    sharded = audit_shuffler(logs, batch_size=100, executor=cluster)
    _same_audit(sharded, stream)
    _same_audit(audit_shuffler(logs, batch_size=100, executor=LocalExecutor()), stream)
    assert sharded.tally.shuffles == 1_600
    assert len(sharded.batches) == 16
    assert sharded.integrity.records == 1_600
    assert sharded.integrity.devices == ("SM-0000", "SM-0001", "SM-0002", "SM-0003")
    # With dealt hands checked too (the game's arguments travel to the workers).
    dealt = {"game": "q-poker", "seats": 3, "batch_size": 200}
    _same_audit(
        audit_shuffler(logs, executor=cluster, **dealt),  # type: ignore[arg-type]
        audit_shuffler(logs, **dealt),  # type: ignore[arg-type]
    )


class _RecordingExecutor(LocalExecutor):
    """The local executor, noting which file each shard reads, in the order they run."""

    def __init__(self) -> None:
        self.ran: list[str] = []

    def map(self, fn: Any, shards: Any, progress: Any = None) -> list[Any]:
        self.ran.extend(Path(s.path).name for s in shards)
        return super().map(fn, shards, progress)


def test_fleet_audit_runs_the_largest_file_first_and_merges_in_file_order(
    tmp_path: Path,
) -> None:
    logs = [
        write_log(tmp_path / f"dev-{i}.csv", "fair", decks, seed=200 + i, device=f"SM-{i:04d}")
        for i, decks in enumerate((100, 300, 200, 300))
    ]
    executor = _RecordingExecutor()
    sharded = audit_shuffler(logs, batch_size=100, executor=executor)
    # Ties in size (the two 300-shuffle files) are kept in the given order.
    assert [p.stat().st_size for p in logs][1] == logs[3].stat().st_size
    assert executor.ran == ["dev-1.csv", "dev-3.csv", "dev-2.csv", "dev-0.csv"]
    _same_audit(sharded, audit_shuffler(logs, batch_size=100))
    assert sharded.integrity.records == 900
    assert len(sharded.batches) == 9


def test_sharded_audit_keeps_bad_records_and_a_biased_device(
    cluster: DaskExecutor, tmp_path: Path
) -> None:
    logs = [*_fleet(tmp_path, 2, 300), FIXTURES / "shuffler-bad.csv"]
    logs.append(write_log(tmp_path / "biased.csv", "riffle:1", 300, device="SM-BAD"))
    stream = audit_shuffler(logs, batch_size=300)
    sharded = audit_shuffler(logs, batch_size=300, executor=cluster)
    assert sharded.integrity.as_json() == stream.integrity.as_json()
    assert sharded.integrity.bad_count > 0
    assert sharded.reason == stream.reason == "FAIL (integrity)"
    assert not sharded.battery.passed


def _tables(tmp: Path, game: str, rounds: tuple[int, ...]) -> list[Path]:
    """One simulated round log per table (the fleet layout), errors planted, the meter on."""
    order = ordering(game)
    logs = []
    for i, n in enumerate(rounds):
        path = tmp / (f"table-{i}.jsonl" if i % 2 else f"table-{i}.csv.gz")
        write_rounds(path, order, n, seed=300 + i, share=0.01, table_id=f"T{i}")
        logs.append(path)
    return logs


@pytest.mark.parametrize("game", ["q-poker", "caribbean-stud"])
def test_round_audit_on_a_cluster_is_the_local_answer(
    cluster: DaskExecutor, tmp_path: Path, game: str
) -> None:
    """One shard per log, largest first, merged in file order: the local audit bit for bit,
    findings, totals, the meter's accounting and the hold analysis included."""
    logs = _tables(tmp_path, game, (300, 900, 500, 900))
    order = ordering(game)
    hold = HoldParameters()
    local = audit_rounds(logs, order, hold=hold)
    assert local.verdict == "fail"
    assert local.counts["settlement"] > 0
    recording = _RecordingExecutor()
    in_process = audit_rounds(logs, order, hold=hold, executor=recording)
    by_size = sorted(logs, key=lambda p: -p.stat().st_size)
    assert recording.ran == [p.name for p in by_size]
    assert recording.ran != [p.name for p in logs]
    remote = audit_rounds(logs, order, hold=hold, executor=cluster)
    expected = json.dumps(local.as_json(), sort_keys=True, default=str)
    assert json.dumps(in_process.as_json(), sort_keys=True, default=str) == expected
    assert json.dumps(remote.as_json(), sort_keys=True, default=str) == expected
    assert remote.rounds == 2600
    assert [f.file for f in remote.findings] == [f.file for f in local.findings]


def test_cli_round_audit_on_a_cluster(cluster: DaskExecutor, tmp_path: Path) -> None:
    logs = [str(p) for p in _tables(tmp_path, "caribbean-stud", (200, 300))]
    runner = CliRunner()
    args = ["audit", "rounds", *logs, "--game", "caribbean-stud", "--json"]
    local = runner.invoke(app, args)
    remote = runner.invoke(app, [*args, "--cluster", cluster.client.scheduler.address])
    assert local.exit_code == remote.exit_code == 1
    assert remote.stdout == local.stdout
    assert json.loads(remote.stdout)["rounds"] == 500


def test_cli_audit_on_a_cluster(cluster: DaskExecutor, tmp_path: Path) -> None:
    logs = [str(p) for p in _fleet(tmp_path, 3, 200)]
    runner = CliRunner()
    args = ["audit", "shuffler", *logs, "--batch-size", "100", "--json"]
    local = runner.invoke(app, args)
    remote = runner.invoke(app, [*args, "--cluster", cluster.client.scheduler.address])
    assert remote.exit_code == local.exit_code
    assert remote.stdout == local.stdout
    assert json.loads(remote.stdout)["shuffles"] == 600


def test_certify_passes_the_cluster_to_every_section(
    cluster: DaskExecutor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    kind = section_kinds()["hand-categories"]
    seen: list[object] = []

    def build(entry: PlanEntry, context: Context) -> Section:
        seen.append(context.executor)
        return kind.build(entry, context)

    monkeypatch.setitem(REGISTRY, kind.name, replace(kind, build=build))
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1790000000")
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "Q Poker"\nlab = "Test lab"\n\n'
        '[[section]]\nkind = "hand-categories"\ngame = "q-poker"\nrules = "q-poker.macau"\n',
    )
    runner = CliRunner()
    address = cluster.client.scheduler.address
    local = runner.invoke(app, ["certify", str(plan), "-o", str(tmp_path / "a")])
    remote = runner.invoke(
        app, ["certify", str(plan), "-o", str(tmp_path / "b"), "--cluster", address]
    )
    assert local.exit_code == 0, local.output
    assert remote.exit_code == 0, remote.output
    assert seen[0] is None
    assert isinstance(seen[1], DaskExecutor)
    assert (tmp_path / "a" / "report.json").read_bytes() == (
        tmp_path / "b" / "report.json"
    ).read_bytes()


def test_the_core_install_never_imports_dask() -> None:
    code = "import tablecert.cli, tablecert.games.caribbean_stud, tablecert.audit.shuffler.sharded"
    assert modules_imported(code, ["dask", "distributed"]) == []


CONFIG_PROBE = """
import hashlib, json, sys, yaml
plain, calls = yaml.safe_load, []
load = yaml.load
yaml.load = lambda stream, Loader: calls.append(Loader.__name__) or load(stream, Loader=Loader)
if sys.argv[1] == "tablecert":
    from tablecert.distributed import _dask
    _dask()
else:
    import distributed
import dask.config
config = hashlib.sha256(repr(dask.config.config).encode()).hexdigest()
print(json.dumps([config, sorted(set(calls)), len(calls), yaml.safe_load is plain]))
"""


def test_dask_reads_its_configuration_with_libyaml_and_the_same_values() -> None:
    """A client's import of distributed reads Dask's YAML configuration with libyaml's
    parser, into the configuration PyYAML's own parser gives; yaml.safe_load is put back."""

    def probe(how: str) -> list[Any]:
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        run = subprocess.run(
            [sys.executable, "-c", CONFIG_PROBE, how],
            capture_output=True,
            text=True,
            check=True,
            env=env,
        )
        answer: list[Any] = json.loads(run.stdout)
        return answer

    ours, plain = probe("tablecert"), probe("plain")
    assert ours[0] == plain[0]  # the same configuration, value for value
    assert ours[1] == ["CSafeLoader"]
    assert ours[2] >= 2  # dask.yaml and distributed.yaml at least
    assert plain[1] == ["SafeLoader"]
    assert ours[3] is True


SKIPS_PROBE = """
import json, sys
from tablecert.distributed import CLIENT_SKIPS, _dask
_dask(CLIENT_SKIPS if sys.argv[1] == "client" else ())
import dask.widgets
skipped = "jinja2" in sys.modules
import jinja2  # importable again
client = hasattr(sys.modules["distributed"], "Client")
stand_in = "format_bytes" not in dask.widgets.FILTERS  # the filters of its templates
print(json.dumps([skipped, stand_in, client]))
"""


def test_a_command_line_client_imports_dask_without_jinja2() -> None:
    """The CLI's import of Dask leaves out Jinja2 (notebooks' HTML views), which Dask does
    without; Jinja2 is importable afterwards; the library's own import is as before."""

    def probe(how: str) -> list[bool]:
        run = subprocess.run(
            [sys.executable, "-c", SKIPS_PROBE, how], capture_output=True, text=True, check=True
        )
        answer: list[bool] = json.loads(run.stdout.splitlines()[-1])
        return answer

    assert CLIENT_SKIPS == ("jinja2",)
    assert probe("client") == [False, True, True]
    assert probe("library") == [True, False, True]


def test_import_without_falls_back_to_the_modules_a_package_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package that does without a skipped module is imported without it; one that needs
    it (a future Dask, say) is imported with it, as a plain import would."""
    (tmp_path / "skips_optional.py").write_text(
        "try:\n    import json as _json, skipped_dependency\nexcept ImportError:\n"
        "    skipped_dependency = None\n"
    )
    (tmp_path / "skips_needed.py").write_text("import skipped_dependency\n")
    (tmp_path / "skipped_dependency.py").write_text("VALUE = 7\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("skips_optional", "skips_needed", "skipped_dependency"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    optional = import_without("skips_optional", ["skipped_dependency"])
    assert optional.skipped_dependency is None
    assert "skipped_dependency" not in sys.modules  # nor left blocked
    needed = import_without("skips_needed", ["skipped_dependency"])
    assert needed.skipped_dependency.VALUE == 7
    assert sys.modules["skipped_dependency"] is needed.skipped_dependency
    assert import_without("skips_needed", ["skipped_dependency"]) is needed


def test_paytable_sweep_runs_one_variant_per_task(cluster: DaskExecutor) -> None:
    variants = ["q-poker.macau", "q-poker.standard"]
    remote = sweep("q-poker", variants, cluster)
    assert remote == [q_poker.analyze(v).as_json() for v in variants]
    assert remote == sweep("q-poker", variants)
    assert remote[0]["play"]["house_edge"] != remote[1]["play"]["house_edge"]
    with pytest.raises(AnalysisError, match="for q-poker"):
        sweep("caribbean-stud", ["q-poker.macau"])
    runner = CliRunner()
    args = ["analyze", "sweep", "q-poker", *variants, "--json"]
    cli = runner.invoke(app, [*args, "--cluster", cluster.client.scheduler.address])
    assert cli.exit_code == 0, cli.output
    assert json.loads(cli.stdout)["variants"] == remote
