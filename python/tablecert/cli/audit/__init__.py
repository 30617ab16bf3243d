"""Randomness audits of shuffling machines and automatic tables from their logs.

``tablecert audit shuffler``, ``audit rng`` and ``audit rounds``, one module each. ``audit
rounds`` is built, importing the round-log machinery, only when it runs or is listed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import typer

from tablecert.cli import conventions
from tablecert.cli.audit import rng, shuffler
from tablecert.cli.common import EXIT_HELP
from tablecert.cli.lazy import LazySubGroup


class AuditGroup(LazySubGroup):
    """``tablecert audit``, with ``audit rounds`` imported when it runs."""

    lazy: ClassVar[Mapping[str, tuple[str, str]]] = {
        "rounds": ("audit.rounds", "audit_rounds_command")
    }


audit_app = typer.Typer(cls=AuditGroup, no_args_is_help=True, help=conventions.summary(__doc__))
audit_app.command("shuffler")(shuffler.shuffler)
audit_app.command("rng", epilog=EXIT_HELP)(rng.rng)


def register(app: typer.Typer) -> None:
    app.add_typer(audit_app, name="audit")
