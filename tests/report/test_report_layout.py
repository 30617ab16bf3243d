"""The certificate's layout in print: long tokens stay inside the page and its deviations box,
identifiers (device ids, file names) are never broken mid-name, and a figure is not pushed to
the next page by its own height. Looked at in the PDF Chromium prints (word boxes of
``pdftotext -bbox``). Needs chromium and poppler-utils (scripts/system-deps.sh)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.audit.simulate import write_log
from tablecert.report.certify import Certification, certify
from tests.support import browser
from tests.support.plan_support import write_plan

pytestmark = pytest.mark.skipif(
    not browser.available() or shutil.which("pdftotext") is None,
    reason="chromium or poppler-utils missing: run scripts/system-deps.sh as root",
)
ROOT = Path(__file__).resolve().parents[2]
A4_WIDTH = 595.0  # points
MARGIN = 14 / 25.4 * 72  # the stylesheet's 14 mm side margins
#: A device id and a log name with hyphens: section 1's heading is long enough to wrap, and
#: at a hyphen inside the id unless ids are kept whole.
DEVICE = "SM-0417"
FAIR = "casino-lotus-fair.csv.gz"
#: A log whose name is one 120-character token: it leads a FAIL finding on page 1.
LONG_NAME = "shuffler-log-" + "x" * 100 + ".csv"
_WORD = re.compile(
    r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>'
)
#: Word boxes taller than this (points) are headings' (body text is 10 pt, boxes about 7).
HEADING = 12


def _certify(lab: Path, logs: list[str]) -> Certification:
    plan = write_plan(
        lab,
        '[certification]\ntitle = "Layout"\nlab = "tablecert tests"\nreport_id = "TC-L-1"\n'
        "revision = 0\n"
        + "".join(
            f'\n[[section]]\nkind = "shuffler-audit"\nlogs = ["{log}"]\nrules = "q-poker.macau"\n'
            for log in logs
        ),
    )
    return certify(plan, Ed25519PrivateKey.generate(), lab / "out", pdf=True)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Certification:
    """A fair log and a bad one whose 120-character name leads a FAIL finding on page 1."""
    lab = tmp_path_factory.mktemp("layout")
    write_log(lab / FAIR, "fair", 2_000, seed=3, device=DEVICE)
    (lab / LONG_NAME).write_text((ROOT / "fixtures" / "logs" / "shuffler-bad.csv").read_text())
    return _certify(lab, [FAIR, LONG_NAME])


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Certification:
    """The fair log alone: nothing overflows, so the page is printed at full size and the
    section's heading wraps."""
    lab = tmp_path_factory.mktemp("layout-plain")
    write_log(lab / FAIR, "fair", 2_000, seed=3, device=DEVICE)
    return _certify(lab, [FAIR])


def _words(pdf: Path) -> list[tuple[int, float, float, str, float]]:
    """(page, xMin, xMax, text, height) of every word of the PDF."""
    html = subprocess.run(
        ["pdftotext", "-bbox", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    out = []
    for page, body in enumerate(html.split("<page ")[1:], start=1):
        out += [
            (page, float(a), float(b), w, float(y1) - float(y0))
            for a, y0, b, y1, w in _WORD.findall(body)
        ]
    return out


def test_no_word_runs_past_the_right_margin(run: Certification) -> None:
    assert run.pdf is not None
    assert run.data["verdict"] == "fail"  # the bad log's finding is on page 1
    words = _words(run.pdf)
    assert any(page == 1 and "xxxxxxxx" in w for page, _, _, w, _ in words)
    right = A4_WIDTH - MARGIN + 1
    beyond = [(page, w) for page, _, x_max, w, _ in words if x_max > right]
    assert beyond == []


def test_device_ids_and_file_names_are_not_broken_mid_name(plain: Certification) -> None:
    """A heading broken inside an id leaves two words ("SM-" and "0417"): in the section's
    heading every word holding a piece of the device id or of the log's name holds all of
    it (the heading is long enough to wrap, and did so at the id's hyphen)."""
    assert plain.pdf is not None
    heading = [w for _, _, _, w, height in _words(plain.pdf) if height > HEADING]
    device = [w for w in heading if w.endswith("SM-") or w.startswith("0417") or DEVICE in w]
    assert device == [DEVICE]
    names = [w for w in heading if "lotus" in w or "casino" in w]
    assert names == [f"({FAIR})"]


def test_keep_ids_keeps_each_identifier_whole() -> None:
    from tablecert.report.html import keep_ids

    assert str(keep_ids("from device SM-0417 (fair.csv.gz) & <x>")) == (
        'from device <span class="id">SM-0417</span> '
        '<span class="id">(fair.csv.gz)</span> &amp; &lt;x&gt;'
    )


def test_figures_are_bounded_in_print_so_a_page_does_not_break_before_them() -> None:
    css = (ROOT / "python/tablecert/report/templates/style.css").read_text()
    printed = css[css.index("@media print{") :]
    assert re.search(r"figure svg\{[^}]*max-height:\s*1[01]\dmm", printed)


def test_table_headers_of_the_battery_are_not_broken(plain: Certification) -> None:
    """The battery's "p-value" header is one word, not "p-" above "value"."""
    assert plain.pdf is not None
    words = [w for _, _, _, w, _ in _words(plain.pdf)]
    assert "p-value" in words
    assert "p-" not in words
