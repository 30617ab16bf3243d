"""The analysis cache is proven before use: an edited, truncated, moved or foreign entry is
recomputed, never signed; a cache that cannot be written costs the cache, not the figures."""

from __future__ import annotations

import json
import stat
from dataclasses import astuple
from pathlib import Path

import pytest

from tablecert.games import cache as analysis_cache
from tablecert.games import caribbean_stud
from tablecert.games.cache import AnalysisCache, Entry
from tests.support.games_support import caribbean


@pytest.fixture
def own_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh cache folder and key for one test (the session's test cache is left alone)."""
    root = tmp_path / "cache"
    monkeypatch.setenv("TABLECERT_CACHE", str(root))
    monkeypatch.setenv("TABLECERT_CACHE_KEY", str(tmp_path / "config" / "cache.key"))
    return root


ENTRY = Entry([(1, 2, 3), (4, 5, 6)], b"\x01\x02\x03\x04")


def _computed(calls: list[int]) -> Entry:
    calls.append(1)
    return ENTRY


@pytest.mark.usefixtures("own_cache")
def test_an_entry_is_used_only_when_its_mac_proves_it() -> None:
    cache = AnalysisCache()
    calls: list[int] = []
    assert cache.get_or_compute("x-1", True, lambda: _computed(calls)) == (ENTRY, "computed")
    assert cache.get_or_compute("x-1", True, lambda: _computed(calls)) == (ENTRY, "cache")
    assert len(calls) == 1
    key = analysis_cache.key_path()
    assert key.parent != cache.root
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_edited_truncated_moved_and_foreign_entries_are_recomputed(
    own_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = AnalysisCache()
    calls: list[int] = []
    cache.store("x-1", ENTRY)
    meta, table = own_cache / "x-1.json", own_cache / "x-1.bin"
    record = json.loads(meta.read_text())
    # the counts moved between rows, the total kept: the MAC no longer matches
    record["rows"] = json.dumps([[1, 3, 2], [4, 5, 6]])
    meta.write_text(json.dumps(record))
    assert cache.get_or_compute("x-1", True, lambda: _computed(calls)) == (ENTRY, "computed")
    table.write_bytes(table.read_bytes()[:2])  # truncated
    assert cache.get_or_compute("x-1", True, lambda: _computed(calls)) == (ENTRY, "computed")
    meta.write_text("{")  # not JSON at all
    assert cache.get_or_compute("x-1", True, lambda: _computed(calls)) == (ENTRY, "computed")
    # a valid entry copied under another name is not that name's entry
    for suffix in (".json", ".bin"):
        (own_cache / f"x-2{suffix}").write_bytes((own_cache / f"x-1{suffix}").read_bytes())
    assert cache.get_or_compute("x-2", True, lambda: _computed(calls)) == (ENTRY, "computed")
    # an entry written under another installation's key is foreign
    monkeypatch.setenv("TABLECERT_CACHE_KEY", str(tmp_path / "other.key"))
    assert cache.get_or_compute("x-1", True, lambda: _computed(calls)) == (ENTRY, "computed")
    assert len(calls) == 5
    # each recomputation rewrote the entry, which now verifies
    assert cache.load("x-1") == ENTRY


def test_a_cache_that_cannot_be_written_keeps_the_figures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TABLECERT_CACHE", "/dev/null")
    monkeypatch.setenv("TABLECERT_CACHE_KEY", str(tmp_path / "cache.key"))
    calls: list[int] = []
    got = AnalysisCache().get_or_compute("x-1", True, lambda: _computed(calls))
    assert got == (ENTRY, "computed")
    assert "warning: analysis cache: cannot write /dev/null" in capsys.readouterr().err


def test_a_tampered_caribbean_entry_is_recomputed_and_the_report_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attack: 10^8 two-pair wins moved to losses in the cached rows, the totals kept.
    The entry fails its MAC, the par sheet is computed afresh (here: the core's answer
    replayed, counted), and the figures are the statute's."""
    fresh = caribbean("caribbean-stud.macau")  # the session's cache, filled once
    own_cache = tmp_path / "cache"
    monkeypatch.setenv("TABLECERT_CACHE", str(own_cache))
    monkeypatch.setenv("TABLECERT_CACHE_KEY", str(tmp_path / "cache.key"))
    runs: list[int] = []

    def core(*args: object, **kwargs: object) -> tuple[list[tuple[int, ...]], bytes]:
        runs.append(1)
        return [astuple(c)[1:] for c in fresh.categories], fresh.decisions

    monkeypatch.setattr(caribbean_stud, "_run_core", core)
    first = caribbean_stud.analyze("caribbean-stud.macau")
    assert (first.figures, len(runs)) == ("computed", 1)
    assert caribbean_stud.analyze("caribbean-stud.macau").figures == "cache"
    (meta,) = own_cache.glob("caribbean-*.json")
    record = json.loads(meta.read_text())
    rows = json.loads(record["rows"])
    two_pair = next(i for i, c in enumerate(fresh.categories) if "two" in c.category)
    won, lost = 4, 6  # CategoryLine's won and lost counters: the total is kept
    assert rows[two_pair][won] > 10**8
    rows[two_pair][won] -= 10**8
    rows[two_pair][lost] += 10**8
    record["rows"] = json.dumps(rows)
    meta.write_text(json.dumps(record))
    again = caribbean_stud.analyze("caribbean-stud.macau")
    assert (again.figures, len(runs)) == ("computed", 2)
    assert again.house_edge == fresh.house_edge
