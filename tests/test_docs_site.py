"""The documentation site, built strictly and opened in headless chromium as a reader opens it:
each page renders with its navigation, its scripts raise nothing, it asks for nothing outside
the site, and the search index holds every page. Every topic of the former long README has a
home in the site."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html import unescape
from pathlib import Path
from typing import Any

import pytest

from tests.support import browser, site_browser

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


#: Every heading of the long README (as of 395d481, plus the two added after it),
#: with the page of the site that now holds the topic and the heading it holds it under.
FORMER_README = {
    "tablecert": ("", "tablecert"),
    "Two commands": ("install/", "Two commands"),
    "Rust crates without crates.io": ("install/", "Rust crates without crates.io"),
    "Install from a wheel": ("install/", "Install from a wheel"),
    "Command-line conventions": ("cli/conventions/", "Command-line conventions"),
    "JSON output": ("formats/json/", "JSON output"),
    "Exit codes and verdict words": ("methodology/verdicts/", "Exit codes and verdict words"),
    "What tablecert trusts": ("methodology/trust/", "What tablecert trusts"),
    "Hand orderings (the card core)": ("games/poker/", "Hand orderings (the card core)"),
    "Rule files are the statute as data: a value drives the result or is refused": (
        "games/rule-files/",
        "Rule files are the statute as data: a value drives the result or is refused",
    ),
    "Signed certification reports": ("methodology/signing/", "Signed certification reports"),
    "What exactly is signed": ("methodology/signing/", "What exactly is signed"),
    "The signature policy (verify and sign)": (
        "methodology/signing/",
        "The signature policy (verify and sign)",
    ),
    "Verifying with third-party tools": (
        "methodology/signing/",
        "Verifying with third-party tools",
    ),
    "The certificate document": ("formats/certificate/", "The certificate document"),
    "The plan": ("formats/plans/", "The plan"),
    "The analysis cache": ("methodology/enumeration/", "The analysis cache"),
    "Configuration conformance": ("formats/configurations/", "Configuration conformance"),
    'Evaluator conformance ("benchmarking evaluators")': (
        "formats/evaluators/",
        'Evaluator conformance ("benchmarking evaluators")',
    ),
    "Native evaluators: the C ABI, exhaustive checks, benchmark mode": (
        "formats/evaluators/",
        "Native evaluators: the C ABI, exhaustive checks, benchmark mode",
    ),
    "Game math (par sheets)": ("games/par-sheets/", "Game math (par sheets)"),
    "Mahjong (order 135/91/M, both games)": (
        "games/mahjong/",
        "Mahjong (order 135/91/M, both games)",
    ),
    "Readings": ("games/mahjong/", "Readings"),
    "Whole hands replayed: `tablecert mahjong replay`": (
        "formats/mahjong-records/",
        "Whole hands replayed: tablecert mahjong replay",
    ),
    "Raw RNG output: the NIST SP 800-22 battery": (
        "methodology/nist/",
        "Raw RNG output: the NIST SP 800-22 battery",
    ),
    "The RNG verdict: decision rule, level and power": (
        "methodology/nist/",
        "The RNG verdict: decision rule, level and power",
    ),
    "NIST tool compatibility": ("methodology/nist/", "NIST tool compatibility"),
    "Shuffler and automatic-table audits": (
        "methodology/shuffler/",
        "Shuffler and automatic-table audits",
    ),
    "Log formats": ("formats/shuffler-logs/", "Log formats"),
    "The battery": ("methodology/shuffler/", "The battery"),
    "Power and calibration": ("methodology/shuffler/", "Power and calibration"),
    "Round logs: did the table pay what the statute says?": (
        "methodology/rounds/",
        "Round logs: did the table pay what the statute says?",
    ),
    "The round-log format": ("formats/round-logs/", "The round-log format"),
    "The audit": ("methodology/rounds/", "The audit"),
    "Hold analysis": ("methodology/rounds/", "Hold analysis"),
    "Reading in the core, speed and scale": (
        "methodology/rounds/",
        "Reading in the core, speed and scale",
    ),
    "In a certification: the `round-audit` report section": (
        "methodology/rounds/",
        "In a certification: the round-audit report section",
    ),
    "The progressive: Art. 10's round and the meter's accounting": (
        "methodology/rounds/",
        "The progressive: Art. 10's round and the meter's accounting",
    ),
    "Simulated logs": ("methodology/rounds/", "Simulated logs"),
    "Running on a Dask cluster (fleet audits, heavy enumerations)": (
        "cluster/",
        "Running on a Dask cluster (fleet audits, heavy enumerations)",
    ),
    "Layout": ("development/", "Layout"),
    "Benchmarks": ("performance/", "Current figures"),
}


def _plain(html_text: str) -> str:
    """A search-index title as text: tags dropped, entities read."""
    return unescape(re.sub(r"<[^>]+>", "", html_text)).strip()


def test_every_former_readme_section_has_a_home_in_the_site(site: Path) -> None:
    """Each heading of the long README is a heading of the page that now holds its topic."""
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    titles = {(d["location"].split("#")[0], _plain(d["title"])) for d in index["docs"]}
    missing = [old for old, home in FORMER_README.items() if home not in titles]
    assert missing == []


def _command_paths(command: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command path of the command line, asked the way the command line asks."""
    paths = [prefix]
    if hasattr(command, "list_commands"):
        ctx = command.context_class(command, info_name=command.name)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                paths += _command_paths(sub, (*prefix, name))
    return paths


def test_cli_reference_documents_every_command(site: Path) -> None:
    """The generated CLI reference has a section for every command, lazy ones included."""
    import typer.main

    from tablecert.cli import app

    page = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    paths = _command_paths(typer.main.get_command(app))
    assert ("audit", "rounds") in paths
    missing = [p for p in paths if f'id="{"-".join(("tablecert", *p))}"' not in page]
    assert missing == []
