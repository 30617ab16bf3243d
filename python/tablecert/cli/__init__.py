"""The ``tablecert`` command line: one module per command group, wiring only.

Data goes to stdout (``--json`` for machines), progress and status to stderr. Every command
exits 0 pass/conforms/valid, 1 fail/deviates/invalid, 2 usage or input error, 3 inconclusive,
4 internal error (``tablecert.cli.common``). The root command and the table of top-level
commands are in :mod:`tablecert.cli.app`.
"""

from __future__ import annotations

from tablecert.cli.app import app, main, version_text

__all__ = ["app", "main", "version_text"]
