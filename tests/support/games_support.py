"""Shared, computed-once analyses for the game-math tests (the Caribbean runs take seconds).

Every analysis here caches into one temporary directory, so the CLI tests read the cache the
library tests filled.
"""

from __future__ import annotations

import os
import tempfile
from functools import cache
from pathlib import Path

from tablecert.games import caribbean_stud

CACHE = Path(tempfile.mkdtemp(prefix="tablecert-test-cache-"))
#: The cache's key, outside the cache folder as a user's is (``tablecert.games.cache``).
CACHE_KEY = Path(tempfile.mkdtemp(prefix="tablecert-test-cache-key-")) / "cache.key"


def use_test_cache() -> None:
    os.environ["TABLECERT_CACHE"] = str(CACHE)
    os.environ["TABLECERT_CACHE_KEY"] = str(CACHE_KEY)


@cache
def caribbean(rules: str) -> caribbean_stud.CaribbeanAnalysis:
    use_test_cache()
    return caribbean_stud.analyze(rules)
