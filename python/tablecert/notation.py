"""Values read from a TOML or JSON input, written back in messages as TOML writes them:
``true`` not ``True``, ``1.0`` not ``Decimal('1.0')``, ``'text'`` as a TOML literal string
(double-quoted with escapes where it holds a quote or a control character), arrays and inline
tables in TOML's brackets. A message about a value shows the user their own notation, never
Python's."""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date, datetime, time
from decimal import Decimal
from fractions import Fraction
from typing import Any

#: The longest a value is shown in a message (longer ones are cut with "...").
SHOWN_CHARS = 80


def written(value: Any, limit: int = SHOWN_CHARS) -> str:
    """``value`` as TOML and JSON write it, cut to ``limit`` characters."""
    text = _written(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _written(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        literal = "'" not in value and value.isprintable()
        return f"'{value}'" if literal else json.dumps(value, ensure_ascii=False)
    if isinstance(value, int | Decimal):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Fraction):
        return f"'{value}'"
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if isinstance(value, Mapping):
        return (
            "{" + ", ".join(f"{_written(str(k))} = {_written(v)}" for k, v in value.items()) + "}"
        )
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_written(v) for v in value) + "]"
    return str(value)
