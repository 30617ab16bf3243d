"""A shuffler audit whose logs the core started reading before the audit was ready
(``tablecert.audit.started``, what ``tablecert audit shuffler`` does while it imports the
battery) gives the audit a plain read gives: the same report, the same errors at the same
files, and nothing else can be asked of the core until every file is handed over."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer

from tablecert import _core
from tablecert.audit import audit_shuffler, started
from tablecert.audit.options import DEFAULT_BATCH
from tablecert.audit.simulate import write_log
from tablecert.audit.started import early_read, start_from_arguments, start_reading
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


@pytest.fixture
def no_offer() -> Iterator[None]:
    """No early read offered before or after the test (one offer per process)."""
    started._offered = None
    yield
    started._offered = None


def test_early_read_tells_the_logs_and_settings(logs: list[Path]) -> None:
    a, b = str(logs[0]), str(logs[1])
    assert early_read([a]) == ((logs[0],), ("cards52", "auto", DEFAULT_BATCH, False))
    assert early_read(["--json", a, "--input-order", "logged", b, "--batch-size=700"]) == (
        (logs[0], logs[1]),
        ("cards52", "logged", 700, False),
    )
    # The wall statistic decides whether Mahjong orders are kept; the levels read nothing.
    deck = ["--deck", "mahjong136", "--alpha", "0.05", "--confidence=0.9"]
    assert early_read([*deck, a])[1] == ("mahjong136", "auto", DEFAULT_BATCH, True)
    assert early_read([*deck, "--wall-statistic", "none", a])[1][3] is False
    # Only a repeated option's last value counts, as on the command line.
    assert early_read(["--deck", "mahjong112", "--deck", "cards52", a])[1][0] == "cards52"


@pytest.mark.parametrize(
    "arguments",
    [
        [],  # no log
        ["--json"],
        ["--game", "q-poker", "LOG"],  # the game's rule file decides the read
        ["--cluster", "tcp://x:1", "LOG"],
        ["--workers", "2", "LOG"],
        ["--svg-dir", "plots", "LOG"],  # an option it does not know: its value unknown
        ["--help", "LOG"],
        ["--", "LOG"],
        ["-x", "LOG"],
        ["--json=1", "LOG"],  # a flag given a value: the command's usage error
        ["LOG", "--batch-size"],  # no value
        ["LOG", "--batch-size", "0"],
        ["LOG", "--batch-size", "ten"],
        ["LOG", "--deck", "cards54"],
        ["LOG", "--input-order", "Logged"],
        ["LOG", "--wall-statistic", "fans"],
        ["LOG", "missing.csv"],
        ["LOG", "."],  # a folder
    ],
)
def test_early_read_refuses_what_only_the_command_can_tell(
    logs: list[Path], arguments: list[str]
) -> None:
    arguments = [str(logs[0]) if a == "LOG" else a for a in arguments]
    with pytest.raises(ValueError):  # noqa: PT011 - any reason: no early start
        early_read(arguments)


def test_early_read_never_takes_a_pipe(tmp_path: Path) -> None:
    """A dropped read would have taken a pipe's bytes from the command's own read."""
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        early_read([str(fifo)])


def test_the_early_options_are_the_commands_own() -> None:
    """Each option an early read reads past is an option of ``audit shuffler`` that takes a
    value exactly when the early read takes one: otherwise a log could be taken for an
    option's value, or the other way round."""
    from tablecert.cli.app import app

    root = typer.main.get_command(app)
    ctx = root.make_context("tablecert", [], resilient_parsing=True)
    audit = root.get_command(ctx, "audit")  # type: ignore[attr-defined]
    command = audit.get_command(audit.make_context("audit", [], resilient_parsing=True), "shuffler")
    takes_value = {
        opt: not param.is_flag
        for param in command.params
        if param.param_type_name == "option"
        for opt in param.opts
    }
    assert {name: takes_value.get(name) for name in started.EARLY_OPTIONS} == started.EARLY_OPTIONS
    # And the settings it reads have the command's defaults.
    defaults = {p.opts[0]: p.default for p in command.params if p.param_type_name == "option"}
    assert (defaults["--deck"], defaults["--input-order"]) == ("cards52", "auto")
    assert (defaults["--batch-size"], defaults["--wall-statistic"]) == (DEFAULT_BATCH, "types")


@pytest.mark.usefixtures("no_offer")
def test_the_command_takes_the_early_read_of_its_settings(logs: list[Path]) -> None:
    plain = _report(paths=logs, input_order="logged", batch_size=700)
    start_from_arguments(["audit", "shuffler", *map(str, logs), "--input-order=logged"])
    offered = started._offered
    assert offered is not None
    # Another batch size: the offer is dropped, a read of these settings started.
    other = start_reading(logs, "cards52", "logged", 800, keep_orders=False)
    assert other is not offered
    assert started._offered is None
    assert _report(paths=logs, input_order="logged", batch_size=800, started=other) == _report(
        paths=logs, input_order="logged", batch_size=800
    )
    # The same settings: the offer itself, taken once.
    start_from_arguments(["audit", "shuffler", "--batch-size", "700", *map(str, logs)])
    offered = started._offered
    taken = start_reading(logs, "cards52", "logged", 700, keep_orders=False)
    assert taken is not offered  # another input order
    start_from_arguments(
        ["audit", "shuffler", "--batch-size", "700", "--input-order", "logged", *map(str, logs)]
    )
    offered = started._offered
    taken = start_reading(logs, "cards52", "logged", 700, keep_orders=False)
    assert taken is offered
    assert start_reading(logs, "cards52", "logged", 700, keep_orders=False) is not offered
    assert _report(paths=logs, input_order="logged", batch_size=700, started=taken) == plain


@pytest.mark.usefixtures("no_offer")
@pytest.mark.parametrize(
    "arguments", [["audit", "rounds"], ["simulate", "shuffler"], ["audit"], ["--json", "audit"]]
)
def test_no_early_read_for_another_command(logs: list[Path], arguments: list[str]) -> None:
    start_from_arguments([*arguments, str(logs[0])])
    assert started._offered is None


@pytest.mark.usefixtures("no_offer")
@pytest.mark.parametrize(("statistic", "keep"), [("types", True), ("none", False)])
def test_the_early_read_of_mahjong_walls_keeps_their_orders(
    tmp_path: Path, statistic: str, keep: bool
) -> None:
    """The walls are dealt from the kept orders: an early read of the command's settings keeps
    them exactly when the command's wall statistic tests the hands."""
    log = write_log(tmp_path / "walls.csv", "fair", 60, deck="mahjong136", seed=6)
    args = ["--deck", "mahjong136", "--wall-statistic", statistic, str(log)]
    start_from_arguments(["audit", "shuffler", *args])
    offered = started._offered
    assert offered is not None
    assert offered.settings == ("mahjong136", "auto", DEFAULT_BATCH, keep)
    assert start_reading([log], "mahjong136", "auto", DEFAULT_BATCH, keep_orders=keep) is offered
