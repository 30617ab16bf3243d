"""MkDocs hooks: make the CLI-reference module importable and fill generated tables.

``<!-- generated: readings -->`` in a page becomes the table of every rule-file value marked
``reading = true`` in the bundled rule files, and ``<!-- generated: articles -->`` the
articles each statute rule file cites with the values under each; both are read from the
files at build time, so the documentation cannot list a reading or an article the rules do
not hold, or miss one they do.
"""

from __future__ import annotations

import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

MARKER = "<!-- generated: readings -->"
ARTICLES = "<!-- generated: articles -->"
SCHEMA = "<!-- generated: report-schema -->"
GAMES = "<!-- generated: games -->"
_ARTICLE = re.compile(r"^(第[^條条]+[條条]|批示[一二三四五六七八九十]+)")


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


def _cited(table: dict[str, Any], prefix: str = "") -> list[tuple[str, str]]:
    """Every (dotted key, article) of ``table`` whose entry cites an article."""
    found: list[tuple[str, str]] = []
    for key, value in table.items():
        if isinstance(value, dict):
            dotted = f"{prefix}{key}"
            if isinstance(value.get("article"), str):
                found.append((dotted, value["article"]))
            found.extend(_cited(value, f"{dotted}."))
    return found


def articles_tables() -> str:
    """Per statute rule file, its articles and the keys citing each, in the file's order."""
    out: list[str] = []
    for path in sorted((ROOT / "fixtures" / "rules").glob("*.macau.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        by_article: dict[str, list[str]] = {}
        for key, article in _cited(data):
            m = _ARTICLE.match(article)
            by_article.setdefault(m.group(1) if m else article, []).append(f"`{key}`")
        out += [f"### `{path.name}`", "", "| article | values |", "|---|---|"]
        out += [f"| {a} | {', '.join(keys)} |" for a, keys in by_article.items()]
        out.append("")
    return "\n".join(out)


def games_table() -> str:
    """The bundled rule files that describe a stud poker game (a ``[deal]`` table): the deal,
    the title and where the rules come from."""
    rows = [
        "| rule file | game | cards (player, dealer, hand, upcards) | title | rules from |",
        "|---|---|---|---|---|",
    ]
    for path in sorted((ROOT / "fixtures" / "rules").glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        if "deal" not in data:
            continue
        game, deal = data["game"], data["deal"]
        cards = [deal[k]["value"] for k in ("player_cards", "dealer_cards")]
        cards += [game["hand_size"]["value"], deal["upcards"]["value"]]
        source = game.get("source", game.get("statute", {})).get("value", "")
        rows.append(
            f"| `{path.stem}` | `{game['id']['value']}` | {', '.join(map(str, cards))} "
            f"| {_cell(game['title']['value'])} | {_cell(source)} |"
        )
    return "\n".join(rows)


def schema_table() -> str:
    """report.json's top-level fields from its JSON Schema: name, required, type, description."""
    schema = json.loads(
        (ROOT / "python" / "tablecert" / "report" / "report.schema.json").read_text("utf-8")
    )
    required = set(schema.get("required", []))
    rows = ["| field | required | type | description |", "|---|---|---|---|"]
    for name, prop in schema["properties"].items():
        kind = prop.get("type") or prop.get("$ref", "").rsplit("/", 1)[-1] or "const"
        if isinstance(kind, list):
            kind = " or ".join(kind)
        text = _cell(prop.get("description", ""))
        rows.append(f"| `{name}` | {'yes' if name in required else 'no'} | {kind} | {text} |")
    return "\n".join(rows)


def on_config(config: Any) -> Any:
    """Put this folder on ``sys.path`` for mkdocs-click's ``cli_app`` (MkDocs restores the path
    after loading the hooks, so this runs when the build starts)."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    return config


def on_page_markdown(markdown: str, **_: Any) -> str:
    """Fill the generated tables a page asks for."""
    if MARKER in markdown:
        markdown = markdown.replace(MARKER, readings_table())
    if SCHEMA in markdown:
        markdown = markdown.replace(SCHEMA, schema_table())
    if ARTICLES in markdown:
        markdown = markdown.replace(ARTICLES, articles_tables())
    if GAMES in markdown:
        markdown = markdown.replace(GAMES, games_table())
    return markdown
