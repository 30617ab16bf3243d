"""The one progress mechanism (tablecert.cli.progress): plain periodic lines off a terminal,
driven here by a fake clock (no waiting, no timed assertion), a bar on a terminal that never
reads 0/None or cuts a label, and options checked before any input is read."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from tablecert.cli.progress import HEARTBEAT, PLAIN_INTERVAL, PlainReporter, progress
from tests.support.cli_support import tablecert


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _plain(title: str, unit: str = "") -> tuple[PlainReporter, Clock, io.StringIO]:
    out = io.StringIO()
    clock = Clock()
    console = Console(file=out, width=60, markup=False, highlight=False, soft_wrap=True)
    return PlainReporter(title, unit=unit, console=console, clock=clock), clock, out


def test_steps_are_plain_lines_at_most_every_interval() -> None:
    reporter, clock, out = _plain("certify")
    reporter.update(0, 7, "plan.toml: reading the inputs")
    assert out.getvalue() == ""  # work shorter than the interval says nothing
    clock.now += PLAIN_INTERVAL
    reporter.update(1, 7, "caribbean-stud: par sheet (2,598,960 hands x 47 upcards)")
    clock.now += 1
    reporter.update(2, 7, "q-poker: par sheet")  # within the interval: shown when due
    assert out.getvalue().splitlines() == [
        "certify step 2/7: caribbean-stud: par sheet (2,598,960 hands x 47 upcards) (0:00:05)"
    ]
    clock.now += PLAIN_INTERVAL
    reporter.tick()  # the periodic tick shows the newest step
    clock.now += 1
    reporter.tick()
    assert out.getvalue().splitlines()[1:] == ["certify step 3/7: q-poker: par sheet (0:00:11)"]


def test_a_long_quiet_step_gets_a_heartbeat_and_a_label_is_plain_text() -> None:
    reporter, clock, out = _plain("certify")
    clock.now += PLAIN_INTERVAL
    reporter.update(3, 7, "[bold]x[/bold]\x1b[2J")
    clock.now += HEARTBEAT - 1
    reporter.tick()
    clock.now += 1
    reporter.tick()
    assert out.getvalue().splitlines() == [
        r"certify step 4/7: [bold]x[/bold]\x1b[2J (0:00:05)",
        r"certify step 4/7: [bold]x[/bold]\x1b[2J (0:00:35)",
    ]


def test_counts_have_separators_a_percentage_and_no_none() -> None:
    reporter, clock, out = _plain("reading log.csv.gz", unit="bytes")
    clock.now += PLAIN_INTERVAL
    reporter.update(12_000_000, 48_000_000)
    reporter.begin("reading other.csv.gz")
    clock.now += PLAIN_INTERVAL
    reporter.advance(1_500)
    assert out.getvalue().splitlines() == [
        "reading log.csv.gz: 12,000,000/48,000,000 bytes (25%, 0:00:05)",
        "reading other.csv.gz: 1,500 bytes (0:00:10)",
    ]
    assert "None" not in out.getvalue()


def test_on_a_terminal_a_bar_shows_percent_and_labels_whole() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, markup=False, color_system=None)
    label = "caribbean-stud: par sheet (2,598,960 hands x 47 upcards; cached after the first run)"
    with progress("certify", console=console) as reporter:
        reporter.update(4, 7, label)
        reporter.bar.refresh()  # type: ignore[attr-defined]
        reporter.begin("analysing 2,598,960 x 47 situations", 2_598_960)
        reporter.update(45_056, 2_598_960)
        reporter.bar.refresh()  # type: ignore[attr-defined]
    text = out.getvalue()
    assert "45,056/2,598,960" in text  # the figures whole beside the title's own line
    assert "analysing 2,598,960 x 47 situations" in text
    assert "certify step 5/7: caribbean-stud: par sheet" in text
    assert "cached after the first run)" in text  # the label wraps, it is not cut
    assert "…" not in text
    assert "None" not in text
    assert "57%" in text


def test_audit_rng_refuses_a_misspelt_test_before_reading(tmp_path: Path) -> None:
    missing = tmp_path / "never-read.bin"  # would be an unreadable-file error if read first
    result = tablecert(["audit", "rng", str(missing), "-t", "Frequncy"])
    assert result.code == 2
    assert len(result.error_lines) == 1
    assert "'Frequncy'" in result.error_lines[0]
    assert "--test" in result.error_lines[0]


def test_audit_rng_refuses_a_used_results_dir_before_reading(tmp_path: Path) -> None:
    used = tmp_path / "results"
    used.mkdir()
    (used / "old.txt").write_text("x")
    result = tablecert(
        ["audit", "rng", str(tmp_path / "never-read.bin"), "--results-dir", str(used)]
    )
    assert result.code == 2
    assert result.error_lines == [f"error: --results-dir {used}: exists and is not an empty folder"]


@pytest.mark.parametrize(
    ("option", "value"), [("--bits", "5"), ("--sequences", "0")], ids=["bits", "sequences"]
)
def test_audit_rng_refuses_a_bad_size_before_reading(
    tmp_path: Path, option: str, value: str
) -> None:
    result = tablecert(["audit", "rng", str(tmp_path / "never-read.bin"), option, value])
    assert result.code == 2
    assert len(result.error_lines) == 1
    assert result.error_lines[0].startswith(f"error: {option} {value}: ")


@pytest.mark.parametrize(
    "args",
    [
        ["audit", "shuffler", "{missing}"],
        ["audit", "rounds", "{missing}", "--game", "q-poker"],
        ["certify", "{missing}", "-o", "{out}"],
    ],
    ids=["audit-shuffler", "audit-rounds", "certify"],
)
def test_an_error_inside_progress_is_its_one_line(tmp_path: Path, args: list[str]) -> None:
    filled = [a.format(missing=tmp_path / "missing.csv", out=tmp_path / "out") for a in args]
    result = tablecert(filled)
    assert result.code == 2
    assert result.stderr.startswith("error: ")  # no stray blank line left by a progress bar
    assert len(result.stderr.splitlines()) == 1
