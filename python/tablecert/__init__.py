"""tablecert: certify casino table games against the Macau statutes that govern them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tablecert._core import __version__ as core_version
from tablecert.errors import CardError, GameError, RulesError, TableCertError

if TYPE_CHECKING:
    from tablecert.poker import Evaluation, compare, evaluate

__version__ = "0.1.0"

__all__ = [
    "CardError",
    "Evaluation",
    "GameError",
    "RulesError",
    "TableCertError",
    "__version__",
    "compare",
    "core_version",
    "evaluate",
]

# The poker API is imported on first use: importing it loads the rule files' machinery
# (tablecert.rules, tablecert.bundled), which the commands that judge no hand (`audit rng`,
# `verify`, ...) never need at start-up (tests/cli/test_cli_startup.py).
_POKER = ("Evaluation", "compare", "evaluate")


def __getattr__(name: str) -> Any:
    if name in _POKER:
        from tablecert import poker

        value = getattr(poker, name)
        globals()[name] = value  # later lookups find it without this function
        return value
    raise AttributeError(f"module 'tablecert' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_POKER})
