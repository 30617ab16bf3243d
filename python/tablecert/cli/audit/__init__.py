"""Randomness audits of shuffling machines and automatic tables from their logs.

``tablecert audit shuffler``, ``audit rounds`` and ``audit rng``, one module each, each built
(importing its machinery: the shuffler battery, the round logs, the NIST battery) only when it
runs or is listed, so that one audit does not pay for the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import typer

from tablecert.cli import conventions
from tablecert.cli.common import EXIT_HELP
from tablecert.cli.lazy import Lazy, LazySubGroup


class AuditGroup(LazySubGroup):
    """``tablecert audit``: each audit imported when it runs."""

    lazy: ClassVar[Mapping[str, Lazy]] = {
        "shuffler": ("audit.shuffler", "shuffler"),
        "rounds": ("audit.rounds", "audit_rounds_command"),
        "rng": ("audit.rng", "rng", EXIT_HELP),
    }


audit_app = typer.Typer(cls=AuditGroup, no_args_is_help=True, help=conventions.summary(__doc__))


def register(app: typer.Typer) -> None:
    app.add_typer(audit_app, name="audit")
