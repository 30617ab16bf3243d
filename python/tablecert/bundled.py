"""The data that ships inside the package: the statutes and their reading, the rule files, the
report schema, the bundled plans with every input they name (configurations, evaluators,
sample logs, NIST expansions) and the mahjong corpora.

It is found through ``importlib.resources``, never relative to a source tree, so an installed
wheel works from any folder. In a source checkout ``python/tablecert/data/`` holds symlinks to
``fixtures/`` (one copy of each file in git; the wheel carries the files themselves), and
:data:`DATA_ROOT` names where the files really are, so that resolved paths compare equal.
"""

from __future__ import annotations

import hashlib
import os
import tomllib
from importlib.resources import files
from pathlib import Path

from tablecert.errors import TableCertError


class BundledDataError(TableCertError):
    """Bundled data that is missing (a broken install) or a bundled name that does not exist."""


def _data_root() -> Path:
    packaged = files("tablecert").joinpath("data")
    if not isinstance(packaged, Path):  # e.g. imported from a zip file
        raise BundledDataError(f"tablecert's data is not on the file system ({packaged})")
    marker = packaged / "plans" / "smoke.toml"
    if not marker.is_file():
        raise BundledDataError(f"tablecert's bundled data is missing: no {marker}")
    return marker.resolve().parents[1]


DATA_ROOT = _data_root()
RULES_DIR = DATA_ROOT / "rules"
STATUTES_DIR = DATA_ROOT / "statutes"
PLANS_DIR = DATA_ROOT / "plans"
SCHEMA_FILE = Path(str(files("tablecert").joinpath("report", "report.schema.json")))


def _named(folder: Path, name: str, what: str) -> Path:
    path = folder / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(sorted(p.stem for p in folder.glob("*.toml")))
        raise BundledDataError(f"no bundled {what} {name!r}; bundled: {known}")
    return path


def bundled_plan(name: str) -> Path:
    """The path of a bundled certification plan, e.g. ``smoke`` or ``main``."""
    return _named(PLANS_DIR, name, "plan")


def is_bare_name(source: str | os.PathLike[str]) -> bool:
    """A name such as ``smoke`` or ``q-poker.macau`` that is no existing file: a bundled one."""
    path = Path(source)
    return not path.exists() and path.suffix != ".toml" and len(path.parts) == 1


def bundled_rule_file(name: str) -> Path:
    """The path of a bundled rule file, e.g. ``q-poker.macau``."""
    return _named(RULES_DIR, name, "rule file")


def bundled_games(having: str | None = None) -> dict[str, tuple[str, ...]]:
    """Every game the bundled rule files describe (its ``game.id``) and the names of its files,
    read from the files: a game is known by its rule files, never by a list in code. With
    ``having``, only the files that have that table (``"deal"``: the poker games, whose files
    say what is dealt)."""
    games: dict[str, list[str]] = {}
    for path in sorted(RULES_DIR.glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8-sig"))
        game = data.get("game", {}).get("id", {})
        if having is not None and not isinstance(data.get(having), dict):
            continue
        if isinstance(game, dict) and isinstance(game.get("value"), str):
            games.setdefault(game["value"], []).append(path.stem)
    return {game: tuple(names) for game, names in games.items()}


def bundled_rules_sha256() -> str:
    """One digest of every bundled rule file (name and content), for ``tablecert --version``:
    two installs with the same digest judge by the same rule data."""
    digest = hashlib.sha256()
    for path in sorted(RULES_DIR.glob("*.toml")):
        digest.update(f"{path.name}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\n".encode())
    return digest.hexdigest()
