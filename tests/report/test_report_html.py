"""The HTML report: self-contained, and rendered by a real headless browser (Debian chromium)."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.errors import ReportError
from tablecert.hand_tables import category_table
from tablecert.report.certify import Certification, certify
from tablecert.report.display import display, grouped
from tablecert.report.html import HtmlCell, bar_chart, esc, table, tag_languages
from tablecert.report.sections import hand_categories
from tablecert.rules import load_rules
from tests.support import browser

ROOT = Path(__file__).resolve().parents[2]
DEVIATING = ROOT / "fixtures" / "plans" / "deviating.toml"
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
    assert refs[0] == "data:,"  # the empty inline favicon; every other link is an anchor
    ids = set(re.findall(r'\bid="([^"]+)"', html))
    anchors = refs[1:]
    assert anchors
    assert all(a.startswith("#") for a in anchors)
    assert {unquote(a[1:]) for a in anchors} <= ids
    # Every section and the appendix are in the contents.
    assert {f"#{quote(s['id'], safe='/:+._-')}" for s in run.data["sections"]} <= set(anchors)
    assert "#appendix-A" in anchors
    assert "url(" not in html
    assert "@import" not in html
    # The hand-category bar chart and the shuffler audit's heatmap and rising-sequence plot.
    assert html.count("<svg") == 3
    assert run.key_id in html


def test_summary_verdict_comes_first(run: Certification) -> None:
    html = run.html.read_text(encoding="utf-8")
    order = [
        'id="verdict"',
        'id="identification"',
        'id="deviations"',
        'id="contents"',
        'id="scope"',
        'id="requirements"',
        "<section",
        'id="integrity"',
        'id="appendix-A"',
    ]
    places = [html.index(mark) for mark in order]
    assert places == sorted(places)
    # Page 1 identifies the equipment found in the logs: the smoke plan's shuffler log has one
    # device, SIM-QP-2 (the fixture's 2,000 records), and the JSON carries it too.
    identification = html[html.index('id="identification"') : html.index('id="deviations"')]
    assert "<th>devices in the logs</th><td><code>SIM-QP-2</code></td>" in identification
    audits = [s for s in run.data["sections"] if s["kind"] == "shuffler-audit"]
    assert [s["data"]["integrity"]["devices"] for s in audits] == [["SIM-QP-2"]]
    assert "第八條" in html
    assert "第十條" in html  # the par sheet's pay table
    assert "第六条(乙)" in html  # the mahjong fan table


def test_helpers_escape() -> None:
    assert esc('<a href="x">') == "&lt;a href=&quot;x&quot;&gt;"
    cell = table(["<h>"], [["<b>"], [HtmlCell("<b>ok</b>")]])
    assert "<th>&lt;h&gt;</th>" in cell
    assert "<td>&lt;b&gt;</td>" in cell
    assert "<td><b>ok</b></td>" in cell
    assert "&lt;x&gt;" in bar_chart("<x>", ["a"], [1])


def _text(html: str) -> str:
    """The visible text of a page (no tags, styles, titles or SVG)."""
    body = re.sub(r"<svg\b.*?</svg>|<style\b.*?</style>|<title>.*?</title>", " ", html, flags=re.S)
    return re.sub(r"<[^>]+>", " ", body)


def test_details_a_reader_sees(run: Certification) -> None:
    html = run.html.read_text(encoding="utf-8")
    text = _text(html)
    # No Python reprs anywhere a reader looks.
    for pattern in (r"\bNone\b", r"\['", r"\[\]", r"\{'", r"\bTrue\b", r"\bFalse\b"):
        assert not re.search(pattern, text), (pattern, re.search(pattern, text))
    # A skipped battery test shows SKIPPED, as the JSON says, never INCONCLUSIVE.
    audit = next(s for s in run.data["sections"] if s["kind"] == "shuffler-audit")
    skipped = [t["key"] for t in audit["data"]["tests"] if t["verdict"] == "skipped"]
    assert skipped == ["coupon", "second-level"]
    fragment = html[html.index(f'<section id="{audit["id"]}"') :]
    fragment = fragment[: fragment.index("</section>")]
    assert fragment.count('<span class="badge skipped">SKIPPED</span>') == len(skipped)
    assert "badge inconclusive" not in fragment
    # Thousands separators in "1 in" values; the heavenly hand of simple mahjong.
    assert not re.search(r"1 in \d{4}", text)
    five = category_table("caribbean-stud", load_rules("caribbean-stud.macau"))
    assert '<td class="num">649,740.00</td>' in hand_categories._html(five, "第八条")
    # Chinese article text carries its language; the page is English.
    assert html.startswith('<!DOCTYPE html>\n<html lang="en">')
    assert '<span lang="zh-Hant">第八條</span>' in html
    assert '<span lang="zh-Hant">第十條(一)</span>' in html
    assert '<span lang="zh-Hans">第六条(乙)</span>' in html
    untagged = re.sub(r'<span lang="zh-Han[st]">[^<]*</span>', "", html)
    assert not re.search("[\u4e00-\u9fff]", _text(untagged))
    # Requirement ids break only after '.', '/' or '+', never mid-word.
    assert (
        '<code class="rid"><span>hand-categories.</span><wbr><span>q-poker.</span><wbr>'
        "<span>macau.</span><wbr><span>complete</span></code>"
    ) in html


def test_helpers_display_and_language() -> None:
    assert display(None) == "-"
    assert display(["spades", "hearts"]) == "spades, hearts"
    assert display({"a": [1, 2], "b": True}) == "a: 1, 2; b: true"
    assert display(Fraction(3, 2)) == "3/2"
    assert grouped("649739.00") == "649,739.00"
    assert grouped("-1234") == "-1,234"
    assert grouped("12.5") == "12.5"
    assert tag_languages("<p>第九條(七)(3) 多寶 x</p><svg><text>第八條</text></svg>") == (
        '<p><span lang="zh-Hant">第九條(七)(3)</span> <span lang="zh-Hant">多寶</span> x</p>'
        "<svg><text>第八條</text></svg>"
    )
    assert (
        tag_languages("<td>第六条(甲)(2)</td>")
        == '<td><span lang="zh-Hans">第六条(甲)(2)</span></td>'
    )


def test_template_override(tmp_path: Path) -> None:
    """A lab's folder: its report.html.j2 extends the default and replaces the letterhead."""
    folder = tmp_path / "lab"
    folder.mkdir()
    (folder / "report.html.j2").write_text(
        '{% extends "base.html.j2" %}{% block letterhead %}<header id="lab-head">'
        "Example Lab &amp; Co, accredited {{ cert.report_id }}</header>{% endblock %}",
        encoding="utf-8",
    )
    run = certify(DEVIATING, Ed25519PrivateKey.generate(), tmp_path / "out", template_dir=folder)
    html = run.html.read_text(encoding="utf-8")
    assert '<header id="lab-head">Example Lab &amp; Co, accredited TC-DEV-2026-002</header>' in html
    assert 'class="letterhead"' not in html
    assert 'id="deviations"' in html  # the rest is the default
    (folder / "report.html.j2").write_text("{% block x %}", encoding="utf-8")
    with pytest.raises(ReportError, match=r"template .*report\.html\.j2:1: "):
        certify(DEVIATING, Ed25519PrivateKey.generate(), tmp_path / "bad", template_dir=folder)
    with pytest.raises(ReportError, match="not a folder"):
        certify(
            DEVIATING, Ed25519PrivateKey.generate(), tmp_path / "x", template_dir=tmp_path / "no"
        )


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
    screen: ["identification", "deviations"].map((id) => {
      const e = document.getElementById(id).getBoundingClientRect();
      return [id, e.top, e.bottom, document.getElementById(id).innerText];
    }),
    ridBreak: getComputedStyle(document.querySelector("code.rid")).wordBreak,
    ridPiece: getComputedStyle(document.querySelector("code.rid span")).whiteSpace,
  };
})()"""


@needs_chromium
def test_browser_probe_catches_console_errors_and_failed_loads(tmp_path: Path) -> None:
    """The detector itself: a console error or an asset the page asks for is caught (the
    page's own scripts never run: the browser is contained)."""
    page = tmp_path / "broken.html"
    page.write_text(
        '<!DOCTYPE html><html><body><div id="verdict">x</div>'
        '<script>console.error("page script")</script><img src="missing.png"></body></html>'
    )
    result = browser.load(page, 'console.error("boom"); document.title')
    assert "console.error: boom" in result.problems
    assert "console.error: page script" not in result.problems
    assert any("missing.png" in p for p in result.problems), result.problems


@needs_chromium
def test_renders_in_chromium_with_visible_verdict(run: Certification) -> None:
    result = browser.load(run.html, _VERDICT_PROBE)
    assert result.problems == []
    probe = result.value
    assert probe["text"].startswith("Verdict: PASS (39 passed, 0 failed")
    assert probe["width"] > 400
    assert probe["height"] > 30
    assert 0 <= probe["top"] < 300  # in the first screen, above everything else
    assert (probe["visibility"], probe["display"], probe["opacity"]) == ("visible", "block", "1")
    assert probe["onTop"] is True
    assert probe["color"] == "rgb(255, 255, 255)"
    assert probe["background"] == "rgb(30, 123, 52)"
    assert probe["sections"] == 9  # eight sections and the NIST appendix
    assert len(probe["charts"]) == 3
    assert all(w > 100 for w in probe["charts"])
    assert probe["title"] == "TC-SMOKE-001: Smoke plan: every section kind on small inputs: PASS"
    # The first screen (1200 x 900) shows the identification and the deviations summary whole.
    (_, i_top, i_bottom, i_text), (_, d_top, d_bottom, d_text) = probe["screen"]
    assert probe["top"] < i_top < i_bottom <= d_top < d_bottom < 900, probe["screen"]
    for line in ("TC-SMOKE-001 rev. 1", "2026-11-30", "Casino C (example)", "T. Tester"):
        assert line in i_text
    assert "model SIM-QP, serial SIM-QP-2, firmware 1.0" in i_text
    assert "No deviation: every one of the 39 judged requirements passed." in d_text
    assert probe["ridBreak"] == "keep-all"  # no break inside 第九條 either
    assert probe["ridPiece"] == "nowrap"  # nor at the hyphen of q-poker
