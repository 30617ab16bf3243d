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
from tests import browser

pytestmark = pytest.mark.skipif(
    not browser.available() or shutil.which("pdftotext") is None,
    reason="chromium or poppler-utils missing: run scripts/system-deps.sh as root",
)
ROOT = Path(__file__).resolve().parents[1]
A4_WIDTH = 595.0  # points
MARGIN = 14 / 25.4 * 72  # the stylesheet's 14 mm side margins
#: A device id with hyphens: a heading that wraps must not break it.
DEVICE = "SHUFFLER-MASTER-0417-UNIT-A"
#: A log whose name is one 120-character token: it leads a FAIL finding on page 1.
LONG_NAME = "shuffler-SM-0417-" + "x" * 96 + ".csv"
_WORD = re.compile(
    r'<word xMin="([\d.]+)" yMin="[\d.]+" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)</word>'
)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Certification:
    lab = tmp_path_factory.mktemp("layout")
    write_log(lab / "fair.csv.gz", "fair", 2_000, seed=3, device=DEVICE)
    bad = (ROOT / "fixtures" / "logs" / "shuffler-bad.csv").read_text()
    (lab / LONG_NAME).write_text(bad)
    plan = lab / "plan.toml"
    plan.write_text(
        '[certification]\ntitle = "Layout"\nlab = "tablecert tests"\nreport_id = "TC-L-1"\n'
        'revision = 0\n\n[[section]]\nkind = "shuffler-audit"\nlogs = ["fair.csv.gz"]\n'
        'rules = "q-poker.macau"\n\n[[section]]\nkind = "shuffler-audit"\n'
        f'logs = ["{LONG_NAME}"]\nrules = "q-poker.macau"\n',
        encoding="utf-8",
    )
    return certify(plan, Ed25519PrivateKey.generate(), lab / "out", pdf=True)


def _words(pdf: Path) -> list[tuple[int, float, float, str]]:
    """(page, xMin, xMax, text) of every word of the PDF."""
    html = subprocess.run(
        ["pdftotext", "-bbox", str(pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    out = []
    for page, body in enumerate(html.split("<page ")[1:], start=1):
        out += [(page, float(a), float(b), w) for a, b, w in _WORD.findall(body)]
    return out


def test_no_word_runs_past_the_right_margin(run: Certification) -> None:
    assert run.pdf is not None
    assert run.data["verdict"] == "fail"  # the bad log's finding is on page 1
    words = _words(run.pdf)
    assert any(page == 1 and "xxxxxxxx" in w for page, _, _, w in words)
    right = A4_WIDTH - MARGIN + 1
    beyond = [(page, w) for page, _, x_max, w in words if x_max > right]
    assert beyond == []


def test_device_ids_and_file_names_are_not_broken_mid_name(run: Certification) -> None:
    """pdftotext joins a line broken at a hyphen and drops the hyphen: a broken id reads
    SHUFFLER-MASTER0417-UNIT-A; the section's heading must hold it whole."""
    assert run.pdf is not None
    text = subprocess.run(
        ["pdftotext", "-raw", str(run.pdf), "-"], check=True, capture_output=True, text=True
    ).stdout
    heading = re.search(r"1\. Shuffler audit: (.*?) PASS", text, re.S)
    assert heading is not None
    assert " ".join(heading.group(1).split()) == (
        f"cards52, 2,000 shuffles from device {DEVICE} (fair.csv.gz)"
    )


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
