"""The ``tablecert`` script (and ``python -m tablecert``): a ``--cluster`` command's Dask
client started in a process of its own (:mod:`tablecert.client_process`), or a shuffler
audit's logs read by the core (:func:`tablecert.audit.started.start_from_arguments`), before
the command line is imported; then the command line (:func:`tablecert.cli.main`)."""

from __future__ import annotations

import sys

from tablecert.environment import one_blas_thread, source_date_epoch_problem


def main() -> None:
    """Entry point of the ``tablecert`` script."""
    args = sys.argv[1:]
    # A bad $SOURCE_DATE_EPOCH is the command line's usage error: nothing starts before it.
    # Other commands import nothing more here.
    if source_date_epoch_problem() is None:
        if any(a.startswith("--cluster") for a in args):
            one_blas_thread()  # before the fork: the child imports NumPy with Dask
            from tablecert import client_process

            client_process.start(args)
        elif args[:2] == ["audit", "shuffler"]:  # its reader threads after any fork
            from tablecert.audit.started import start_from_arguments

            start_from_arguments(args)
    from tablecert.cli import main as command_line

    command_line()
