"""Progress of every long command, on a terminal and in a CI log alike.

One mechanism for every command that can run for more than a few seconds (``certify``,
``analyze``, ``crosscheck``, the audits, ``simulate``): :func:`progress` gives a
:class:`Reporter` that the work updates with how far it is (``update``/``advance``) and, for
work in steps, the step's label.

- On a terminal (stderr is one): the title as a line, then a transient Rich bar with the
  count (thousands separated, ``1,234/5,000``), the percentage and the time remaining once the
  total is known, and the elapsed time; nothing reads ``0/None``. A step's label is printed as
  a line of its own above the bar when the step starts. Titles and labels wrap at any width
  and the bar takes the room left, so nothing is cut with ``…`` at 80 columns.
- Off a terminal (a pipe, a CI log): plain lines on stderr, ``certify step 5/7:
  caribbean-stud: par sheet (0:00:12)`` or ``reading log.csv.gz: 12,000,000/48,000,000 bytes
  (25%, 0:00:05)``, at most one every :data:`PLAIN_INTERVAL` seconds: the first when the work
  has run that long (quick work says nothing), then the newest state when it changed (a step
  that starts and ends within the interval is not shown), and a heartbeat every
  :data:`HEARTBEAT` seconds while nothing changes.

Labels come from outside (file names, plan titles): they are printed as plain text, never
read as markup.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TimeElapsedColumn,
)
from rich.text import Text

from tablecert.cli.common import plain, stderr
from tablecert.distributed import ClusterExecutor, ConnectOnUse, executor_for, executor_on_use

#: Off a terminal, the least time between two progress lines (seconds).
PLAIN_INTERVAL = 5.0
#: Off a terminal, a line at least this often while the work runs (seconds).
HEARTBEAT = 30.0


class Reporter(Protocol):
    """What long work reports its progress to."""

    def update(self, done: int, total: int | None = None, label: str | None = None) -> None:
        """``done`` of ``total`` (``None``: not known yet) units; or, with ``label``, ``done``
        steps finished and ``label`` the one being worked on (step ``done + 1``)."""

    def advance(self, count: int = 1) -> None:
        """``count`` more units done."""

    def begin(self, title: str, total: int | None = None) -> None:
        """A new phase of the work (e.g. the next file read), counted from 0."""


def clock_text(seconds: float) -> str:
    """Elapsed or remaining time as ``H:MM:SS``."""
    whole = max(0, int(seconds))
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


def step_text(done: int, total: int | None) -> str:
    """The step being worked on after ``done`` steps: ``5/7`` (``done + 1``, at most the
    total)."""
    current = done + 1 if total is None else min(done + 1, total)
    return f"{current:,}/{total:,}" if total else f"{current:,}"


def state_text(
    title: str, done: int, total: int | None, unit: str, label: str | None
) -> tuple[str, str]:
    """The words of a progress line and what goes in its brackets before the time:
    ``("certify step 5/7: label", "")`` for a step, ``("title: 1,234/5,000 unit", "24%")``
    for a count."""
    if label is not None:
        return f"{title} step {step_text(done, total)}: {label}", ""
    unit_text = f" {unit}" if unit else ""
    if total:
        return f"{title}: {done:,}/{total:,}{unit_text}", f"{100 * done // total}%"
    return (f"{title}: {done:,}{unit_text}" if done else title), ""


class PlainReporter:
    """Progress as plain lines for a log (see the module docstring); ``clock`` and
    :meth:`tick` let a test drive it without waiting."""

    def __init__(
        self,
        title: str,
        *,
        unit: str = "",
        console: Console = stderr,
        interval: float = PLAIN_INTERVAL,
        heartbeat: float = HEARTBEAT,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.title, self.unit, self.console = plain(title), unit, console
        self.interval, self.heartbeat, self.clock = interval, heartbeat, clock
        self.start = clock()
        self.done = 0
        self.total: int | None = None
        self.label: str | None = None
        self._printed: tuple[str, str] | None = None
        self._last = self.start  # nothing is said about work shorter than the interval
        self._lock = threading.Lock()

    def update(self, done: int, total: int | None = None, label: str | None = None) -> None:
        with self._lock:
            self.done, self.label = done, (None if label is None else plain(label))
            if total is not None:
                self.total = total
        self.tick()

    def advance(self, count: int = 1) -> None:
        with self._lock:
            self.done += count
        self.tick()

    def begin(self, title: str, total: int | None = None) -> None:
        with self._lock:
            self.title, self.done, self.total, self.label = plain(title), 0, total, None
        self.tick()

    def tick(self) -> None:
        """Print the current state if it is due (called on every update and periodically)."""
        with self._lock:
            now = self.clock()
            waited = now - self._last
            if waited < self.interval:  # the common case, checked before any formatting
                return
            state = state_text(self.title, self.done, self.total, self.unit, self.label)
            if state == self._printed and waited < self.heartbeat:
                return
            self._printed, self._last = state, now
            words, detail = state
            brackets = ", ".join(x for x in (detail, clock_text(now - self.start)) if x)
        self.console.print(Text(f"{words} ({brackets})"), soft_wrap=True, crop=False)


class _Count(ProgressColumn):
    """``done/total`` with thousands separators (``done`` alone while the total is unknown)."""

    def __init__(self, unit: str) -> None:
        super().__init__()
        self.unit = f" {unit}" if unit else ""

    def render(self, task: Task) -> Text:
        done = int(task.completed)
        total = f"/{int(task.total):,}" if task.total else ""
        return Text(f"{done:,}{total}{self.unit}", style="progress.download")


class _Percent(ProgressColumn):
    """The percentage done, once the total is known."""

    def render(self, task: Task) -> Text:
        return Text(
            "" if not task.total else f"{task.percentage:>3.0f}%", style="progress.percentage"
        )


class _Remaining(ProgressColumn):
    """The time remaining, once the total is known and the rate measured."""

    max_refresh = 0.5

    def render(self, task: Task) -> Text:
        left = task.time_remaining if task.total else None
        return Text("" if left is None else f"ETA {clock_text(left)}", style="progress.remaining")


class BarReporter:
    """Progress as a transient Rich bar on a terminal (see the module docstring)."""

    def __init__(self, bar: Progress, title: str) -> None:
        self.bar, self.title = bar, plain(title)
        self.task = bar.add_task(self.title, total=None)
        bar.console.print(Text(self.title))
        self.label: str | None = None
        self._total: int | None = None
        self._pending = 0  # advances not yet given to the bar (see advance)
        self._flushed = time.monotonic()

    def update(self, done: int, total: int | None = None, label: str | None = None) -> None:
        if label is not None and plain(label) != self.label:
            self.label = plain(label)
            step = step_text(done, total if total is not None else self._total)
            self.bar.console.print(Text(f"{self.title} step {step}: {self.label}"))
        if total is not None:
            self._total = total
            self.bar.update(self.task, completed=done, total=total)
        else:
            self.bar.update(self.task, completed=done)

    def advance(self, count: int = 1) -> None:
        # Work may advance a unit at a time (a round, a shuffle): the bar is given the sum
        # at most ten times a second, so reporting costs nothing next to the work.
        self._pending += count
        now = time.monotonic()
        if now - self._flushed >= 0.1:
            self.bar.advance(self.task, self._pending)
            self._pending, self._flushed = 0, now

    def begin(self, title: str, total: int | None = None) -> None:
        self._pending = 0
        self.title = plain(title)
        self.bar.update(self.task, description=self.title, completed=0, total=total)
        self.bar.console.print(Text(self.title))


@contextmanager
def progress(title: str, *, unit: str = "", console: Console = stderr) -> Iterator[Reporter]:
    """A reporter for long work titled ``title`` (``unit``: what is counted, e.g. ``bytes``):
    a bar on a terminal, plain periodic lines off one (see the module docstring)."""
    if console.is_terminal:
        columns = (
            # The title is a line of its own (BarReporter): the bar takes the room left, so
            # the figures are never cut with an ellipsis.
            BarColumn(bar_width=None),
            _Percent(),
            _Count(unit),
            TimeElapsedColumn(),
            _Remaining(),
        )
        with Progress(*columns, console=console, transient=True, expand=True) as bar:
            yield BarReporter(bar, title)
        return
    reporter = PlainReporter(title, unit=unit, console=console)
    stop = threading.Event()

    def ticker() -> None:
        while not stop.wait(reporter.interval / 2):
            reporter.tick()

    thread = threading.Thread(target=ticker, name="tablecert-progress", daemon=True)
    thread.start()
    try:
        yield reporter
    finally:
        stop.set()
        thread.join()


@contextmanager
def cluster_progress(
    cluster: str | None, workers: int | None, title: str, *, unit: str = ""
) -> Iterator[tuple[ClusterExecutor | None, Reporter]]:
    """The executor --cluster / --workers ask for (``None``: run locally), said on stderr, and
    the work's :func:`progress`."""
    with executor_for(cluster, workers) as executor, progress(title, unit=unit) as reporter:
        if executor is not None:
            stderr.print(f"running on {executor.description}")
        yield executor, reporter


@contextmanager
def cluster_progress_on_use(
    cluster: str | None, workers: int | None, title: str, *, unit: str = ""
) -> Iterator[tuple[ConnectOnUse | None, Reporter]]:
    """As :func:`cluster_progress`, the cluster connected when the work first uses it (said
    on stderr then): work that starts its own set-up before it needs the cluster does it
    while this process imports Dask and connects (BENCHMARKS.md)."""

    def said(executor: ClusterExecutor) -> None:
        stderr.print(f"running on {executor.description}")

    with (
        executor_on_use(cluster, workers, on_connect=said) as executor,
        progress(title, unit=unit) as reporter,
    ):
        yield executor, reporter
