"""The ``tablecert`` command line: one module per command group, wiring only.

Data goes to stdout (``--json`` for machines), progress and status to stderr. Every command
exits 0 pass/conforms/valid, 1 fail/deviates/invalid, 2 usage or input error, 3 inconclusive,
4 internal error (``tablecert.cli.common``).
"""

from __future__ import annotations

import sys
from typing import Annotated

from tablecert.cli.environment import set_aside_bad_source_date_epoch

# Before NumPy and SciPy are imported: they crash on a bad value (see cli/environment.py).
_ENVIRONMENT_PROBLEM = set_aside_bad_source_date_epoch()

import typer  # noqa: E402

from tablecert.cli import conventions  # noqa: E402
from tablecert.cli.common import run_app, stdout  # noqa: E402
from tablecert.cli.lazy import LazyGroup  # noqa: E402

# Each command's module is imported when the command runs (tablecert.cli.lazy lists them).
app = typer.Typer(
    name="tablecert",
    cls=LazyGroup,
    no_args_is_help=True,
    add_completion=False,
    help="Certify casino table games against the Macau statutes that govern them.",
)
conventions.help_conventions()


def _version(value: bool) -> None:
    if value:
        stdout.print(version_text(), markup=False, highlight=False)
        raise typer.Exit(0)


def version_text() -> str:
    """``tablecert --version``: the tool, the Rust core and the bundled rule files' digest."""
    import tablecert
    from tablecert.bundled import DATA_ROOT, bundled_rules_sha256

    return (
        f"tablecert {tablecert.__version__} (core {tablecert.core_version}; "
        f"bundled rules sha256 {bundled_rules_sha256()})\n"
        f"bundled data: {DATA_ROOT}"
    )


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_version,
            help="Print the tool and core versions and the bundled rules' digest, then exit.",
        ),
    ] = False,
) -> None:
    """Certify casino table games against the Macau statutes that govern them."""


def main() -> None:
    """Entry point of the ``tablecert`` script."""
    if _ENVIRONMENT_PROBLEM is not None:
        sys.stderr.write(f"error: {_ENVIRONMENT_PROBLEM}\n")
        sys.exit(2)
    run_app(app)
