"""report.pdf: the HTML printed by headless Chromium, looked at page by page (pdftoppm PNGs,
pdftotext): page size, page count, the report id and "Page x of y" on every page, no table row
cut across pages, every deviation on page 1 of a FAIL report, byte-determinism, and the PDF a
signed subject. Needs chromium and poppler-utils (scripts/system-deps.sh)."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.report import dsse
from tablecert.report.certify import Certification, certify
from tablecert.report.chromium import print_pdf
from tablecert.report.pdf import deterministic
from tests.support import browser

ROOT = Path(__file__).resolve().parents[2]
DEVIATING = ROOT / "fixtures" / "plans" / "deviating.toml"
pytestmark = pytest.mark.skipif(
    not browser.available() or shutil.which("pdftoppm") is None,
    reason="chromium or poppler-utils missing: run scripts/system-deps.sh as root",
)
FIXED = ("2026-11-30T10:00:00+00:00", "2026-11-30T10:00:07+00:00")


def _clock() -> Any:
    it: Iterator[dt.datetime] = iter(dt.datetime.fromisoformat(m) for m in FIXED)
    return lambda: next(it)


@pytest.fixture(scope="module")
def key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, key: Ed25519PrivateKey) -> Certification:
    out = tmp_path_factory.mktemp("pdf") / "out"
    return certify(DEVIATING, key, out, pdf=True, clock=_clock())


def _pages(pdf: Path, out: Path) -> list[Path]:
    """Every page as a PNG at 72 dpi (one pixel per PostScript point)."""
    out.mkdir(exist_ok=True)
    subprocess.run(["pdftoppm", "-r", "72", "-png", str(pdf), str(out / "page")], check=True)
    return sorted(out.glob("page-*.png"))


def _png_size(png: Path) -> tuple[int, int]:
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _page_text(pdf: Path, page: int) -> str:
    args = ["pdftotext", "-f", str(page), "-l", str(page), str(pdf), "-"]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _pieces(text: str) -> list[str]:
    """The unbreakable pieces of a cell's text: words, and ids cut where they may wrap (after
    '.', '/', '+'); a table cell's text comes out of pdftotext line by line."""
    return [p for p in re.split(r"(?<=[./+])|\s+", text) if p]


def _on_page(page: str, text: str) -> bool:
    return all(p in page for p in _pieces(text))


def test_pages_size_count_and_running_header(run: Certification, tmp_path: Path) -> None:
    assert run.pdf is not None
    pngs = _pages(run.pdf, tmp_path / "png")
    assert len(pngs) >= 3
    assert {_png_size(p) for p in pngs} == {(595, 842)}  # A4: 210 x 297 mm
    count = len(pngs)
    for number in range(1, count + 1):
        text = _page_text(run.pdf, number)
        assert "TC-DEV-2026-002 rev. 0" in text, number  # the running header
        assert f"Page {number} of {count}" in text, number


def test_every_deviation_on_page_one(run: Certification) -> None:
    assert run.pdf is not None
    failed = [r for r in run.data["requirements"] if r["verdict"] != "pass"]
    assert [r["article"] for r in failed] == ["第九條(七)(3)", "第十條(三)"]
    first = _page_text(run.pdf, 1)
    assert "Verdict: FAIL (20 passed, 2 failed, 0 inconclusive of 22 requirements)" in first
    deviations = first[first.index("Deviations and open points") : first.index("Contents")]
    for r in failed:
        assert _on_page(deviations, r["requirement"]), r["requirement"]
        assert _on_page(deviations, r["detail"]), r["detail"]
    assert "play.win.straight: submitted 1," in deviations
    assert "pair_plus.straight: submitted 5," in deviations


_WORD = re.compile(
    r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>'
)
_BADGES = {"PASS", "FAIL", "INCONCLUSIVE", "SKIPPED"}


def cut_rows(pdf: Path) -> list[str]:
    """Pages where a requirements-table row is cut: below the (repeated) table header, text
    stands above the page's first row badge (the rest of a row begun on the page before), or
    the table runs on with no row starting at all."""
    out = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], check=True, capture_output=True)
    cuts = []
    pages = out.stdout.decode().split("<page ")[1:]
    for number, page in enumerate(pages, 1):
        words = [
            (float(a), float(b), float(c), float(d), w) for a, b, c, d, w in _WORD.findall(page)
        ]
        heads = [w for w in words if w[4] == "requirement"]
        for head in heads:
            below = [w for w in words if w[1] > head[3] and w[0] >= head[0] - 1]
            badges = [w for w in words if w[4] in _BADGES and w[2] < head[0] and w[1] > head[3]]
            if not badges:
                cuts.append(f"page {number}: the table runs on with no row starting")
                continue
            first = min(b[1] for b in badges)
            above = [w[4] for w in below if w[1] < first - 3]
            if above:
                cuts.append(f"page {number}: {' '.join(above)} above the first row")
    return cuts


def test_no_table_row_is_cut(run: Certification, tmp_path: Path) -> None:
    """No requirements-table row split across pages, on every page (word positions)."""
    assert run.pdf is not None
    assert cut_rows(run.pdf) == []
    # The detector finds a cut: a row taller than a page has to be split.
    page = tmp_path / "tall.html"
    lines = "<br>".join(f"line {i}" for i in range(120))
    page.write_text(
        "<table><thead><tr><th></th><th>requirement</th><th>finding</th></tr></thead><tbody>"
        f"<tr><td>PASS</td><td>short.id</td><td>one</td></tr>"
        f"<tr><td>FAIL</td><td>tall.id</td><td>{lines}</td></tr>"
        "<tr><td>PASS</td><td>after.id</td><td>two</td></tr></tbody></table>",
        encoding="utf-8",
    )
    tall = tmp_path / "tall.pdf"
    tall.write_bytes(print_pdf(page, "<span></span>", "<span></span>"))
    cuts = cut_rows(tall)
    assert cuts[0] == "page 2: the table runs on with no row starting"
    assert cuts[-1].startswith("page 3: line ")
    assert cuts[-1].endswith(" above the first row")


def _pdfinfo(pdf: Path) -> str:
    return subprocess.run(["pdfinfo", str(pdf)], check=True, capture_output=True, text=True).stdout


def test_pdf_is_a_signed_subject_and_deterministic(
    run: Certification, key: Ed25519PrivateKey, tmp_path: Path
) -> None:
    assert run.pdf is not None
    result = dsse.verify_file(run.envelope, [key.public_key()], [run.pdf])
    assert result.valid, result.reasons
    assert [c.subject for c in result.inputs] == ["report.pdf"]
    again = certify(DEVIATING, key, tmp_path / "again", pdf=True, clock=_clock())
    assert again.pdf is not None
    assert again.pdf.read_bytes() == run.pdf.read_bytes()
    assert again.envelope.read_bytes() == run.envelope.read_bytes()
    assert b"/CreationDate (D:20261130100007+00'00')" in run.pdf.read_bytes()
    tampered = tmp_path / "report.pdf"
    tampered.write_bytes(run.pdf.read_bytes().replace(b"/Producer", b"/Producex", 1))
    assert not dsse.verify_file(run.envelope, [key.public_key()], [tampered]).valid


def test_letter_on_request(tmp_path: Path) -> None:
    letter = certify(
        DEVIATING, Ed25519PrivateKey.generate(), tmp_path / "l", pdf=True, paper="Letter"
    )
    assert letter.pdf is not None
    assert "612 x 792 pts (letter)" in _pdfinfo(letter.pdf)
    assert "size:Letter" in letter.html.read_text(encoding="utf-8")
    assert json.loads(letter.report.read_text())["certificate"]["report_id"] == "TC-DEV-2026-002"


def test_deterministic_fixes_dates_and_id_in_place() -> None:
    pdf = (
        b"%PDF-1.4\n<< /CreationDate (D:20991231235959+00'00') /ModDate (D:20991231235959+00'00')"
        b" >>\ntrailer << /ID [<00112233445566778899AABBCCDDEEFF>"
        b" <00112233445566778899AABBCCDDEEFF>] >>"
    )
    fixed = deterministic(pdf, "2026-11-30T10:00:07Z")
    assert len(fixed) == len(pdf)  # the cross-reference offsets stay valid
    assert fixed.count(b"(D:20261130100007+00'00')") == 2
    assert b"00112233" not in fixed
    assert deterministic(pdf, "2026-11-30T10:00:07Z") == fixed


def test_fail_report_first_screen(run: Certification) -> None:
    probe = browser.load(
        run.html,
        """(() => {
          const d = document.getElementById("deviations");
          const r = d.getBoundingClientRect();
          return {bottom: r.bottom, rows: d.querySelectorAll("tbody tr").length,
                  links: [...d.querySelectorAll("a")].map((a) => a.getAttribute("href")),
                  verdict: document.getElementById("verdict").innerText};
        })()""",
    )
    assert probe.problems == []
    value = probe.value
    assert value["verdict"].startswith("Verdict: FAIL (20 passed, 2 failed")
    assert value["rows"] == 2
    assert value["bottom"] < 900  # the whole summary in the first screen
    assert value["links"] == ["#configuration/q-poker.casino-b.toml"] * 2
