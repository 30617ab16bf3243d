"""MkDocs hooks: make the CLI-reference module importable and fill generated tables.

``<!-- generated: readings -->`` in a page becomes the table of every rule-file value marked
``reading = true`` in the bundled rule files, read from the files at build time, so the
documentation cannot list a reading the rules do not hold or miss one they do.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))

MARKER = "<!-- generated: readings -->"


def _readings(table: dict[str, Any], prefix: str = "") -> list[tuple[str, dict[str, Any]]]:
    """Every sub-table of ``table`` that says ``reading = true``, by dotted key."""
    found: list[tuple[str, dict[str, Any]]] = []
    for key, value in table.items():
        if isinstance(value, dict):
            dotted = f"{prefix}{key}"
            if value.get("reading") is True:
                found.append((dotted, value))
            found.extend(_readings(value, f"{dotted}."))
    return found


def _cell(value: Any) -> str:
    """A value as a table cell: one line, pipes escaped."""
    text = value if isinstance(value, str) else repr(value)
    return " ".join(str(text).split()).replace("|", "\\|")


def readings_table() -> str:
    """The Markdown table of the bundled rule files' readings."""
    rows = ["| rule file | key | value | article | note |", "|---|---|---|---|---|"]
    for path in sorted((ROOT / "fixtures" / "rules").glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for key, entry in _readings(data):
            rows.append(
                f"| `{path.name}` | `{key}` | `{_cell(entry.get('value', ''))}` "
                f"| {_cell(entry.get('article', ''))} | {_cell(entry.get('note', ''))} |"
            )
    return "\n".join(rows)


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Fill the generated tables a page asks for."""
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, readings_table())
    return markdown
