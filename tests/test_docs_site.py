"""The documentation site, built strictly and opened in headless chromium as a reader opens it:
each page renders with its navigation, its scripts raise nothing, it asks for nothing outside
the site, and the search index holds every page. Every topic of the former long README has a
home in the site."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import browser, site_browser

ROOT = Path(__file__).resolve().parents[1]
MKDOCS = Path(sys.executable).parent / "mkdocs"

needs_chromium = pytest.mark.skipif(
    not browser.available(), reason="chromium missing: run scripts/system-deps.sh as root"
)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built strictly into a fresh folder (a warning fails the build)."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [str(MKDOCS), "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return out


_PROBE = """(async () => {
  const primary = document.querySelector("nav.md-nav--primary");
  const nav = [...primary.querySelectorAll(".md-nav__link")];
  const index = await (await fetch("%s")).json();
  return {
    title: document.title,
    h1: (document.querySelector("article h1") || {}).textContent || "",
    nav: nav.map(a => a.textContent.trim()).filter(Boolean),
    nav_shown: primary.getBoundingClientRect().width > 100,
    search_input: !!document.querySelector("input.md-search__input"),
    indexed: [...new Set(index.docs.map(d => d.location.split("#")[0]))],
  };
})()"""

PAGES = {
    "": "tablecert",
    "getting-started/lab/": "Getting started: a test lab",
    "methodology/verdicts/": "Exit codes and verdict words",
    "reference/cli/": "CLI reference",
}


@needs_chromium
@pytest.mark.parametrize(("page", "h1"), PAGES.items())
def test_page_renders_with_navigation_and_no_errors(site: Path, page: str, h1: str) -> None:
    """The page's heading, the whole navigation and the search box are there; nothing failed."""
    depth = page.count("/")
    result = site_browser.load(site, page, _PROBE % ("../" * depth + "search/search_index.json"))
    assert result.problems == []
    value = result.value
    assert value["h1"].strip().rstrip("¶").strip() == h1
    for section in ("Getting started", "Games and statutes", "Formats", "Methodology"):
        assert section in value["nav"]
    assert "Test labs" in value["nav"]
    assert "CLI reference" in value["nav"]
    assert value["nav_shown"] is True
    assert value["search_input"] is True
    assert len(value["indexed"]) >= 30


def test_search_index_holds_every_page(site: Path) -> None:
    """Every page of the navigation is in the search index, with its text."""
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    locations = {d["location"].split("#")[0] for d in index["docs"]}
    pages = {
        str(p.relative_to(site).parent) + "/"
        for p in site.rglob("index.html")
        if p.parent != site and "assets" not in p.parts
    }
    assert pages - locations == set()
    text = " ".join(d["text"] for d in index["docs"])
    assert "第八條(五)" in text
    assert "Holm" in text
