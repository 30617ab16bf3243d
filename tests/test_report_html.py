"""The HTML report: self-contained, and rendered by a real headless browser (Debian chromium)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.report.certify import Certification, certify
from tablecert.report.html import Markup, bar_chart, esc, table
from tests import browser

ROOT = Path(__file__).resolve().parents[1]
needs_chromium = pytest.mark.skipif(
    not browser.available(), reason="chromium missing: run scripts/system-deps.sh as root"
)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Certification:
    out = tmp_path_factory.mktemp("html") / "out"
    return certify(ROOT / "fixtures" / "plans" / "smoke.toml", Ed25519PrivateKey.generate(), out)


def test_self_contained(run: Certification) -> None:
    html = run.html.read_text(encoding="utf-8")
    assert "<script" not in html
    refs = re.findall(r"""(?:src|href)\s*=\s*["']([^"']*)""", html)
    assert refs == ["data:,"]  # only the empty inline favicon
    assert "url(" not in html
    assert "@import" not in html
    # The hand-category bar chart and the shuffler audit's heatmap and rising-sequence plot.
    assert html.count("<svg") == 3
    assert run.key_id in html


def test_summary_verdict_comes_first(run: Certification) -> None:
    html = run.html.read_text(encoding="utf-8")
    verdict = html.index('id="verdict"')
    assert verdict < html.index("<h2>Requirements</h2>") < html.index("<section")
    assert html.index("<section") < html.index("<h2>Integrity</h2>")
    assert "第八條" in html
    assert "第十條" in html  # the par sheet's pay table
    assert "第六条(乙)" in html  # the mahjong fan table


def test_helpers_escape() -> None:
    assert esc('<a href="x">') == "&lt;a href=&quot;x&quot;&gt;"
    cell = table(["<h>"], [["<b>"], [Markup("<b>ok</b>")]])
    assert "<th>&lt;h&gt;</th>" in cell
    assert "<td>&lt;b&gt;</td>" in cell
    assert "<td><b>ok</b></td>" in cell
    assert "&lt;x&gt;" in bar_chart("<x>", ["a"], [1])


_VERDICT_PROBE = """(() => {
  const v = document.getElementById("verdict");
  if (!v) return null;
  const r = v.getBoundingClientRect();
  const s = getComputedStyle(v);
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return {
    text: v.innerText, width: r.width, height: r.height, top: r.top,
    visibility: s.visibility, display: s.display, opacity: s.opacity,
    color: s.color, background: s.backgroundColor, onTop: v.contains(hit),
    sections: document.querySelectorAll("section").length,
    charts: [...document.querySelectorAll("svg")].map((e) => e.getBoundingClientRect().width),
    title: document.title,
  };
})()"""


@needs_chromium
def test_browser_probe_catches_console_errors_and_failed_loads(tmp_path: Path) -> None:
    """The detector itself: a page that logs an error or misses an asset is caught."""
    page = tmp_path / "broken.html"
    page.write_text(
        '<!DOCTYPE html><html><body><div id="verdict">x</div>'
        '<script>console.error("boom")</script><img src="missing.png"></body></html>'
    )
    result = browser.load(page, "document.title")
    assert "console.error: boom" in result.problems
    assert any("missing.png" in p for p in result.problems), result.problems


@needs_chromium
def test_renders_in_chromium_with_visible_verdict(run: Certification) -> None:
    result = browser.load(run.html, _VERDICT_PROBE)
    assert result.problems == []
    probe = result.value
    assert probe["text"].startswith("Verdict: PASS (36 passed, 0 failed")
    assert probe["width"] > 400
    assert probe["height"] > 30
    assert 0 <= probe["top"] < 300  # in the first screen, above everything else
    assert (probe["visibility"], probe["display"], probe["opacity"]) == ("visible", "block", "1")
    assert probe["onTop"] is True
    assert probe["color"] == "rgb(255, 255, 255)"
    assert probe["background"] == "rgb(30, 123, 52)"
    assert probe["sections"] == 7
    assert len(probe["charts"]) == 3
    assert all(w > 100 for w in probe["charts"])
    assert probe["title"].endswith(": PASS")
