"""The ``tablecert`` root command and its table of top-level commands.

Each top-level command or group lives in its own module of this package (``audit`` and
``simulate`` are packages, one module per subcommand); :data:`ENTRIES` says which, and
:mod:`tablecert.cli.lazy` imports a module only when its command runs. The order here is the
order of ``tablecert --help``.
"""

from __future__ import annotations

import atexit
import gc
import sys
from typing import Annotated

from tablecert.environment import one_blas_thread, set_aside_bad_source_date_epoch

# Before NumPy and SciPy are imported: they crash on a bad value, and their OpenBLAS threads
# spin at import (see tablecert/environment.py).
_ENVIRONMENT_PROBLEM = set_aside_bad_source_date_epoch()
one_blas_thread()

import typer  # noqa: E402

from tablecert.cli import coercion, conventions  # noqa: E402
from tablecert.cli.common import run_app, stdout  # noqa: E402
from tablecert.cli.lazy import Entry, HelpTable, LazyGroup  # noqa: E402

#: Top-level command -> (its module in tablecert.cli, its command function; None for a group).
ENTRIES: dict[str, Entry] = {
    "hands": ("poker", "hands"),
    "compare": ("poker", "compare"),
    "certify": ("certify", "certify"),
    "sign": ("certify", "sign"),
    "verify": ("certify", "verify"),
    "check": ("check", "check"),
    "rules": ("rules", None),
    "keys": ("keys", None),
    "crosscheck": ("crosscheck", None),
    "analyze": ("analyze", None),
    "mahjong": ("mahjong", None),
    "audit": ("audit", None),
    "simulate": ("simulate", None),
}

#: Top-level command -> (its module, its one-line help in ``tablecert --help``).
COMMANDS = HelpTable(ENTRIES)


class RootGroup(LazyGroup):
    """The ``tablecert`` group: each command's module imported when that command runs."""

    table = ENTRIES


app = typer.Typer(
    name="tablecert",
    cls=RootGroup,
    no_args_is_help=True,
    add_completion=False,
    help="Certify casino table games against the Macau statutes that govern them.",
)
conventions.help_conventions()
coercion.plain_coercion()  # values converted without pydantic where that is plain


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
    # Registered first, so run last at exit: the objects still alive are left to the system
    # instead of walked by the interpreter's final collections, 0.1-0.13 s of CPU after an
    # analysis (a --cluster client holds distributed's and NumPy's objects; BENCHMARKS.md).
    # The atexit handlers and the flushing of the streams are as before.
    atexit.unregister(gc.freeze)
    atexit.register(gc.freeze)
    if _ENVIRONMENT_PROBLEM is not None:
        sys.stderr.write(f"error: {_ENVIRONMENT_PROBLEM}\n")
        sys.exit(2)
    run_app(app)
