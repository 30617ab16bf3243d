"""A shuffler audit whose logs the core started reading before the audit was ready
(``tablecert.audit.started``, what ``tablecert audit shuffler`` does while it imports the
battery) gives the audit a plain read gives: the same report, the same errors at the same
files, and nothing else can be asked of the core until every file is handed over."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tablecert import _core
from tablecert.audit import audit_shuffler
from tablecert.audit.simulate import write_log
from tablecert.audit.started import start_reading
from tablecert.errors import AuditError


def _report(**kwargs: object) -> str:
    result = audit_shuffler(**kwargs)  # type: ignore[arg-type]
    return json.dumps(result.as_json(), sort_keys=True)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    folder = tmp_path_factory.mktemp("started")
    return [
        write_log(folder / "a.csv.gz", "riffle:3", 9000, seed=1),
        write_log(folder / "b.csv", "fair", 2500, seed=2, device="SIM-2"),
        write_log(folder / "c.jsonl.gz", "fair", 1200, seed=3, device="SIM-3"),
    ]


@pytest.mark.parametrize("input_order", ["auto", "logged", "none"])
def test_a_started_read_is_the_plain_read(logs: list[Path], input_order: str) -> None:
    plain = _report(paths=logs, input_order=input_order, batch_size=700)
    started = start_reading(logs, "cards52", input_order, 700, keep_orders=False)
    assert _report(paths=logs, input_order=input_order, batch_size=700, started=started) == plain
    # The batches were drained through the hooks as they were read: the second level had
    # every one (12,700 shuffles in one stream: 18 whole batches of 700).
    assert json.loads(plain)["batches"] == 18


def test_mahjong_walls_are_dealt_from_a_started_read(tmp_path: Path) -> None:
    log = write_log(tmp_path / "walls.csv.gz", "fair", 600, deck="mahjong136", seed=4)
    plain = _report(paths=[log], deck="mahjong136", batch_size=200)
    started = start_reading([log], "mahjong136", "auto", 200, keep_orders=True)
    assert _report(paths=[log], deck="mahjong136", batch_size=200, started=started) == plain
    assert "hands tested" in plain


def test_errors_come_at_the_same_file(logs: list[Path], tmp_path: Path) -> None:
    missing = tmp_path / "missing.csv"
    paths = [logs[1], missing, logs[0]]
    with pytest.raises(AuditError) as plain:
        audit_shuffler(paths)
    started = start_reading(paths, "cards52", "auto", 10_000, keep_orders=False)
    with pytest.raises(AuditError) as early:
        audit_shuffler(paths, started=started)
    assert str(early.value) == str(plain.value)
    assert "missing.csv" in str(plain.value)
    # The core is whole again after the failure: its counts are the first file's.
    assert started.core.records == 2500


def test_the_core_waits_for_its_files_to_be_taken(logs: list[Path]) -> None:
    core = _core.ShuffleAudit("cards52", "auto", batch_size=1000)
    core.start_files([str(p) for p in logs[:2]])
    with pytest.raises(RuntimeError, match="2 more file"):
        _ = core.records
    with pytest.raises(RuntimeError, match="next file is"):
        core.read_file(str(logs[1]))
    with pytest.raises(RuntimeError, match="not taken"):
        core.start_files([str(logs[2])])
    core.read_file(str(logs[0]))
    with pytest.raises(RuntimeError, match="1 more file"):
        core.finish()
    core.read_file(str(logs[1]))
    core.finish()
    assert core.records == 9000 + 2500
    # Without a hook the batches wait in the core, as in a plain read.
    assert len(core.take_batches()) == 9 + 2


def test_a_failing_hook_stops_the_started_read(logs: list[Path]) -> None:
    core = _core.ShuffleAudit("cards52", "auto", batch_size=500)
    core.start_files([str(logs[0]), str(logs[1])])
    seen: list[int] = []

    def hook(batches: list[dict[str, object]], orders: bytes) -> None:
        seen.append(len(batches))
        raise ValueError("the caller's hook")

    with pytest.raises(ValueError, match="the caller's hook"):
        core.read_file(str(logs[0]), None, hook)
    assert len(seen) == 1
    # The core is given back, stopped (at most the two files read: the reading thread does
    # not wait for the hooks) and usable: it reads the third file as a plain read would.
    before = core.records
    assert 0 < before <= 9000 + 2500
    core.read_file(str(logs[2]))
    assert core.records == before + 1200


def test_a_started_read_must_be_this_audits(logs: list[Path]) -> None:
    started = start_reading(logs[:1], "cards52", "auto", 1000, keep_orders=False)
    with pytest.raises(RuntimeError, match="not this audit's"):
        audit_shuffler(logs[:1], batch_size=2000, started=started)
    started = start_reading(logs[:1], "cards52", "auto", 1000, keep_orders=False)
    with pytest.raises(RuntimeError, match="not this audit's"):
        audit_shuffler(logs[:1], game="q-poker", batch_size=1000, started=started)


@pytest.mark.parametrize("early", [False, True])
def test_orders_wait_in_the_core_without_a_hook(tmp_path: Path, early: bool) -> None:
    log = write_log(tmp_path / "walls.csv", "fair", 30, deck="mahjong112", seed=5)
    core = _core.ShuffleAudit("mahjong112", "auto", batch_size=10, keep_orders=True)
    if early:
        core.start_files([str(log)])
    core.read_file(str(log))
    core.finish()
    assert len(core.take_orders()) == 30 * 112
    assert len(core.take_batches()) == 3
