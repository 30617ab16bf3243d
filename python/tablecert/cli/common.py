"""What every command shares: consoles, JSON output and turning handled errors into exit 1."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import Progress, ProgressColumn

from tablecert.distributed import DaskExecutor, executor_for
from tablecert.errors import CardError, RulesError, TableCertError, TileError

stdout = Console(highlight=False, soft_wrap=True)
stderr = Console(stderr=True, highlight=False)

JsonOption = Annotated[bool, typer.Option("--json", help="Write machine-readable JSON to stdout.")]

ClusterOption = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        metavar="ADDRESS",
        help="Run the heavy work as shards on this Dask scheduler (tcp://host:8786).",
    ),
]
WorkersOption = Annotated[
    int | None,
    typer.Option(
        "--workers",
        min=1,
        help="Run the heavy work as shards on a local Dask cluster of N worker processes.",
    ),
]


@contextmanager
def cluster_progress(
    cluster: str | None, workers: int | None, *columns: ProgressColumn | str
) -> Iterator[tuple[DaskExecutor | None, Progress]]:
    """The executor --cluster / --workers ask for (``None``: run locally), said on stderr,
    and a transient progress bar on stderr."""
    with (
        executor_for(cluster, workers) as executor,
        Progress(*columns, console=stderr, transient=True) as bar,
    ):
        if executor is not None:
            stderr.print(f"running on {executor.description}")
        yield executor, bar


def emit_json(data: Any) -> None:
    """Write JSON to stdout: sorted keys, UTF-8, no float formatting surprises."""
    sys.stdout.write(json.dumps(data, ensure_ascii=False, sort_keys=True, indent=2) + "\n")


def fail(message: str) -> typer.Exit:
    """Print a handled failure on stderr; raise the returned exception to exit 1."""
    stderr.print(f"[bold red]error:[/] {message}", markup=True)
    return typer.Exit(1)


def run_app(app: typer.Typer) -> None:
    """Run the app; handled errors (bad cards, bad rule files, ...) print one line and exit 1."""
    try:
        app(standalone_mode=True)
    except (CardError, RulesError, TableCertError, TileError) as exc:
        stderr.print(f"[bold red]error:[/] {exc}", markup=True)
        sys.exit(1)


def plain(value: object) -> str:  # placeholder until the shared foundation lands
    return str(value)
