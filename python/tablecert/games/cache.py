"""The on-disk cache of long analyses, proven before use.

A cache entry is trusted only if it carries the HMAC-SHA256, under a key only this user's
tablecert holds, of exactly the bytes it stores (and of the entry's name, so an entry cannot
be moved under another key). Anything else (an edited count with the totals kept, a
truncated file, a file from another machine, a folder that cannot be written) is not an error
and never a figure: the analysis is computed afresh and the entry rewritten. Entries are
written atomically (a temporary file renamed into place), so a crash never leaves half an
entry. Whether figures came from a verified entry or were computed is returned with them, and
the report says which.

The key lives outside the cache folder (``$TABLECERT_CACHE_KEY``, default
``~/.config/tablecert/cache.key``, mode 0600), so a shared or copied cache folder gives no one
the means to forge an entry.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tablecert.errors import OutputError
from tablecert.io.outputs import write_atomic

KEY_BYTES = 32
_MAC = "hmac_sha256"

Source = Literal["computed", "cache"]
"""Where a figure came from: computed in this run, or a verified cache entry."""


def cache_dir() -> Path:
    """Where analyses are cached: ``$TABLECERT_CACHE`` or ``~/.cache/tablecert``."""
    root = os.environ.get("TABLECERT_CACHE")
    return Path(root) if root else Path.home() / ".cache" / "tablecert"


def key_path() -> Path:
    """Where the cache's key is kept: ``$TABLECERT_CACHE_KEY`` or
    ``~/.config/tablecert/cache.key``."""
    named = os.environ.get("TABLECERT_CACHE_KEY")
    if named:
        return Path(named)
    config = os.environ.get("XDG_CONFIG_HOME")
    base = Path(config) if config else Path.home() / ".config"
    return base / "tablecert" / "cache.key"


def _warn(message: str) -> None:
    print(f"warning: analysis cache: {message}; computing without it", file=sys.stderr)


def _read_key(path: Path) -> bytes | None:
    try:
        with path.open("rb") as handle:
            key = handle.read(KEY_BYTES + 1)
    except OSError as exc:
        _warn(f"cannot read its key {path}: {exc.strerror}")
        return None
    if len(key) != KEY_BYTES:
        _warn(f"its key {path} is not {KEY_BYTES} bytes")
        return None
    return key


def cache_key_bytes(create: bool) -> bytes | None:
    """The cache's secret key (made on first use when ``create``); None when there is none
    or it cannot be used (the cache is then not used)."""
    path = key_path()
    if path.is_file() or path.is_symlink():
        return _read_key(path)
    if not create:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        return _read_key(path)  # made by a concurrent run
    except OSError as exc:
        _warn(f"cannot create its key {path}: {exc.strerror}")
        return None
    with os.fdopen(fd, "wb") as handle:
        handle.write(secrets.token_bytes(KEY_BYTES))
    return _read_key(path)


def _mac(key: bytes, name: str, meta: bytes, table: bytes) -> str:
    """The entry's MAC over its name and both stored byte strings (each length-prefixed)."""
    mac = hmac.new(key, digestmod=hashlib.sha256)
    for part in (name.encode(), meta, table):
        mac.update(len(part).to_bytes(8, "little"))
        mac.update(part)
    return mac.hexdigest()


@dataclass(frozen=True)
class Entry:
    """What one cache entry stores: JSON rows and a binary table."""

    rows: list[tuple[int, ...]]
    table: bytes


class AnalysisCache:
    """Entries named ``{kind}-{key}`` in ``root``, each a ``.json`` (rows and MAC) beside a
    ``.bin`` (the table); see the module's docstring for what is trusted."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = cache_dir() if root is None else root

    def _paths(self, name: str) -> tuple[Path, Path]:
        return self.root / f"{name}.json", self.root / f"{name}.bin"

    def load(self, name: str) -> Entry | None:
        """The entry if it exists and its MAC proves this user's tablecert wrote it."""
        meta_path, table_path = self._paths(name)
        if not (meta_path.is_file() and table_path.is_file()):
            return None
        key = cache_key_bytes(create=False)
        if key is None:
            return None
        try:
            record = json.loads(meta_path.read_bytes())
            table = table_path.read_bytes()
            rows_text = record["rows"].encode()
            claimed = record[_MAC]
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None
        if not isinstance(claimed, str) or not hmac.compare_digest(
            claimed, _mac(key, name, rows_text, table)
        ):
            return None
        try:
            rows = [tuple(int(v) for v in row) for row in json.loads(rows_text)]
        except (ValueError, TypeError):
            return None
        return Entry(rows, table)

    def store(self, name: str, entry: Entry) -> None:
        """Write the entry atomically with its MAC; a cache that cannot be written is
        reported on stderr and skipped (the figures are kept)."""
        key = cache_key_bytes(create=True)
        if key is None:
            return
        rows_text = json.dumps([list(r) for r in entry.rows])
        record = {"rows": rows_text, _MAC: _mac(key, name, rows_text.encode(), entry.table)}
        meta_path, table_path = self._paths(name)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            _warn(f"cannot write {self.root}: {exc.strerror or exc}")
            return
        try:
            write_atomic(table_path, entry.table, what="entry")
            write_atomic(meta_path, json.dumps(record).encode(), what="entry")
        except OutputError as exc:
            _warn(str(exc))

    def get_or_compute(
        self, name: str, use: bool, compute: Callable[[], Entry]
    ) -> tuple[Entry, Source]:
        """The verified entry, or ``compute()`` (stored when ``use``), with its source."""
        if use:
            found = self.load(name)
            if found is not None:
                return found, "cache"
        entry = compute()
        if use:
            self.store(name, entry)
        return entry, "computed"
