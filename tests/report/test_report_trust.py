"""What tablecert renders, exports and writes cannot be turned against it: a lab's templates
run sandboxed and may not restate the verdict, the PDF printer fetches nothing and runs no
script, hidden characters from logs and file names are shown, spreadsheet cells from rule
files are never formulas, and no input or linked file is overwritten."""

from __future__ import annotations

import base64
import contextlib
import csv
import hashlib
import http.server
import io
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.errors import OutputError, PlanError, ReportError
from tablecert.games.par_export import Sheet, csv_bytes, inert, xlsx_bytes
from tablecert.io.outputs import replace_regular_file
from tablecert.report import dsse
from tablecert.report.certify import certify
from tablecert.report.chromium import available, print_pdf
from tablecert.report.html import esc
from tablecert.report.signing import generate_key_pair, public_pem
from tablecert.visible_text import plain
from tests.support import envelopes
from tests.support.cli_support import tablecert
from tests.support.plan_support import write_plan

ROOT = Path(__file__).resolve().parents[2]
DEVIATING = ROOT / "fixtures" / "plans" / "deviating.toml"
CONFIG = ROOT / "fixtures" / "configs" / "q-poker.casino-b.toml"
RULES = ROOT / "fixtures" / "rules" / "q-poker.macau.toml"
KEY = Ed25519PrivateKey.generate()
PASSPHRASE = {"TABLECERT_KEY_PASSPHRASE": "trust tests"}
needs_chromium = pytest.mark.skipif(
    not available() or shutil.which("pdftotext") is None,
    reason="chromium or poppler-utils missing: run scripts/system-deps.sh as root",
)


def _templates(tmp_path: Path, text: str, name: str = "lab") -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "report.html.j2").write_text(text, encoding="utf-8")
    return folder


def _refused(tmp_path: Path, folder: Path, match: str, **kwargs: object) -> None:
    out = tmp_path / "out"
    with pytest.raises(ReportError, match=match):
        certify(DEVIATING, KEY, out, template_dir=folder, **kwargs)  # type: ignore[arg-type]
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


# Templates ---------------------------------------------------------------------------------


def test_a_template_cannot_reach_python(tmp_path: Path) -> None:
    """Attack: ``cycler.__init__.__globals__.os.popen('id')`` ran a command from a template."""
    marker = tmp_path / "ran"
    folder = _templates(
        tmp_path,
        '{% extends "base.html.j2" %}{% block letterhead %}'
        f"{{{{ cycler.__init__.__globals__.os.popen('touch {marker}').read() }}}}"
        "{% endblock %}",
    )
    _refused(tmp_path, folder, r"template report\.html\.j2.*(unsafe|__init__|undefined)")
    assert not marker.exists()
    run = tablecert(
        ["certify", str(DEVIATING), "-o", str(tmp_path / "o"), "--template", str(folder)]
    )
    assert run.code == 2, run.stderr
    assert run.error_lines[0].startswith("error: template report.html.j2")
    assert not marker.exists()


def test_a_symlink_cannot_pull_a_file_into_the_report(tmp_path: Path) -> None:
    """Attack: a symlink in the template folder put any file of the machine in the report."""
    secret = tmp_path / "secret.txt"
    secret.write_text("THE-SECRET-TEXT", encoding="utf-8")
    folder = _templates(
        tmp_path,
        '{% extends "base.html.j2" %}{% block letterhead %}{% include "leak.txt" %}{% endblock %}',
    )
    (folder / "leak.txt").symlink_to(secret)
    _refused(tmp_path, folder, r"'leak\.txt' is a symbolic link")
    (folder / "leak.txt").unlink()
    (folder / "sub").symlink_to(tmp_path, target_is_directory=True)
    _refused(tmp_path, folder, r"'sub' is a symbolic link")
    (folder / "sub").unlink()
    # Nor by a name that climbs out of the folder.
    (folder / "report.html.j2").write_text(
        '{% extends "base.html.j2" %}{% block letterhead %}{% include "../secret.txt" %}'
        "{% endblock %}",
        encoding="utf-8",
    )
    _refused(tmp_path, folder, r"template report\.html\.j2.*secret\.txt")


def test_the_template_folder_digest_is_signed(tmp_path: Path) -> None:
    folder = _templates(
        tmp_path,
        '{% extends "base.html.j2" %}{% block letterhead %}<header>Lab letterhead</header>'
        '{% include "parts/footer.html.j2" %}{% endblock %}',
    )
    (folder / "parts").mkdir()
    (folder / "parts" / "footer.html.j2").write_text("<p>accredited lab</p>", encoding="utf-8")
    run = certify(DEVIATING, KEY, tmp_path / "out", template_dir=folder)
    manifest = "".join(
        f"{hashlib.sha256((folder / name).read_bytes()).hexdigest()}  {name}\n"
        for name in ("parts/footer.html.j2", "report.html.j2")
    )
    expected = {
        "sha256": hashlib.sha256(manifest.encode()).hexdigest(),
        "files": ["parts/footer.html.j2", "report.html.j2"],
    }
    assert run.data["template"] == expected
    envelope = json.loads(run.envelope.read_text(encoding="utf-8"))
    statement = json.loads(base64.b64decode(envelope["payload"]))
    assert statement["predicate"]["template"] == expected
    assert str(tmp_path) not in json.dumps(statement)
    html = run.html.read_text(encoding="utf-8")
    assert "<header>Lab letterhead</header><p>accredited lab</p>" in html
    plain_run = certify(DEVIATING, KEY, tmp_path / "plain")
    assert plain_run.data["template"] is None
    # A changed byte is another digest.
    (folder / "parts" / "footer.html.j2").write_text("<p>accredited lab.</p>", encoding="utf-8")
    again = certify(DEVIATING, KEY, tmp_path / "again", template_dir=folder)
    assert again.data["template"]["sha256"] != expected["sha256"]


@pytest.mark.parametrize(
    ("template", "match"),
    [
        # The issue's attack: the verdict and deviations blocks replaced (no such blocks now:
        # the override is ignored, and the letterhead's claim is refused).
        (
            '{% extends "base.html.j2" %}{% block verdict %}Verdict: PASS{% endblock %}'
            "{% block deviations %}No deviation{% endblock %}"
            "{% block letterhead %}<p>Verdict: PASS</p>{% endblock %}",
            r"states 'Verdict: PASS', but the verdict in report\.json is fail",
        ),
        (
            '{% extends "base.html.j2" %}{% block letterhead %}<p>No deviation was found.</p>'
            "{% endblock %}",
            r"says 'No deviation', but report\.json lists 2 deviation",
        ),
        # A whole page of its own, without tablecert's blocks.
        (
            "<html><body><h1>{{ report.title }}</h1><p>Verdict: PASS</p></body></html>",
            r"does not show tablecert's verdict block",
        ),
        # The blocks there, but out of sight (a comment, a template element).
        (
            "<html><body><!-- {{ fixed.verdict }} -->{{ fixed.identification }}"
            "{{ fixed.deviations }}</body></html>",
            r"does not show tablecert's verdict block",
        ),
        (
            "<html><body><template>{{ fixed.verdict }}{{ fixed.identification }}"
            "{{ fixed.deviations }}</template></body></html>",
            r"does not show tablecert's verdict block",
        ),
        (
            "<html><body><section hidden><p>{{ fixed.verdict }}</p></section>"
            "{{ fixed.identification }}{{ fixed.deviations }}</body></html>",
            r"does not show tablecert's verdict block",
        ),
        (
            '{% extends "base.html.j2" %}{% block letterhead %}<div style="Display: none">'
            "{% endblock %}{% block toc %}</div>{% endblock %}",
            r"does not show tablecert's verdict block",
        ),
        # Entities and full-width letters read the same to a reader.
        (
            '{% extends "base.html.j2" %}{% block letterhead %}<p>Verdict: P&#65;SS</p>'
            "{% endblock %}",
            r"states 'Verdict: PASS'",
        ),
        (
            '{% extends "base.html.j2" %}{% block letterhead %}<p>Verdict: ＰＡＳＳ</p>'
            "{% endblock %}",
            r"states 'Verdict: PASS'",
        ),
    ],
)
def test_a_template_cannot_state_another_verdict(tmp_path: Path, template: str, match: str) -> None:
    _refused(tmp_path, _templates(tmp_path, template), match)


def test_the_issue_attack_on_the_command_line(tmp_path: Path) -> None:
    """certify deviating.toml with a template overriding the verdict block: exit 2, nothing
    written (before: exit 1 and a PDF reading "Verdict: PASS ... No deviation")."""
    folder = _templates(
        tmp_path,
        '{% extends "base.html.j2" %}{% block letterhead %}<div>Verdict: PASS</div>{% endblock %}',
    )
    out = tmp_path / "out"
    run = tablecert(["certify", str(DEVIATING), "-o", str(out), "--template", str(folder)])
    assert run.code == 2, run.stderr
    assert "the verdict in report.json is fail" in run.error_lines[0]
    assert not out.exists()


def test_a_template_may_restyle_and_restate_the_true_verdict(tmp_path: Path) -> None:
    folder = _templates(
        tmp_path,
        '{% extends "base.html.j2" %}{% block css %}h1{color:#123456}{% endblock %}'
        "{% block letterhead %}<header>Verdict: {{ verdict | upper }}</header>{% endblock %}",
    )
    run = certify(DEVIATING, KEY, tmp_path / "out", template_dir=folder)
    html = run.html.read_text(encoding="utf-8")
    assert "<header>Verdict: FAIL</header>" in html
    assert 'id="verdict">Verdict: FAIL' in html
    assert 'id="deviations"' in html
    assert 'id="identification"' in html


@pytest.mark.parametrize(
    ("template", "match"),
    [
        ('{% include "report.html.j2" %}', r"template report\.html\.j2: it includes or extends"),
        ('{% extends "report.html.j2" %}', r"template report\.html\.j2"),
        ("line one\n{{ 1 // 0 }}", r"template report\.html\.j2:2: ZeroDivisionError"),
        ("{{ no_such_value.x }}", r"template report\.html\.j2:1: 'no_such_value' is undefined"),
        # Memory and CPU bombs in one expression, and a page without end.
        ('{{ "x" * 10**12 }}', r"report\.html\.j2:1: 'x' \* 1000000000000 is too large"),
        ("{{ 7 ** 1000000000 }}", r"report\.html\.j2:1: 7 \*\* 1000000000 is too large"),
        (
            '{% for i in range(100000) %}{{ "x" * 1000 }}{% endfor %}',
            r"template report\.html\.j2: the page is longer than 67,108,864 characters",
        ),
    ],
)
def test_a_failing_template_is_an_input_error(tmp_path: Path, template: str, match: str) -> None:
    """A template that includes itself (RecursionError) or raises: exit 2 with one line."""
    folder = _templates(tmp_path, template)
    _refused(tmp_path, folder, match)
    run = tablecert(
        ["certify", str(DEVIATING), "-o", str(tmp_path / "o"), "--template", str(folder)]
    )
    assert run.code == 2, run.stderr
    assert len(run.error_lines) == 1
    assert run.error_lines[0].startswith("error: template ")


@needs_chromium
def test_a_pdf_hiding_the_verdict_is_refused(tmp_path: Path) -> None:
    """CSS can hide the verdict block and print another from a style: the printed page 1 is
    read back (pdftotext) and must state report.json's verdict first."""
    folder = _templates(
        tmp_path,
        '{% extends "base.html.j2" %}{% block css %}#verdict{display:none}'
        '.forged::before{content:"Verdict: PASS"}{% endblock %}'
        '{% block letterhead %}<p class="forged"></p>{% endblock %}',
    )
    _refused(tmp_path, folder, r"report\.pdf: page 1 states 'Verdict: PASS'", pdf=True)
    shutil.rmtree(folder)
    hidden = _templates(
        tmp_path, '{% extends "base.html.j2" %}{% block css %}#verdict{display:none}{% endblock %}'
    )
    _refused(tmp_path, hidden, r"report\.pdf: page 1 (states no verdict|does not show)", pdf=True)


# The PDF printer ---------------------------------------------------------------------------


@contextlib.contextmanager
def _listening() -> Iterator[tuple[int, list[str]]]:
    """A local HTTP server on 127.0.0.1 that records every request it receives."""
    received: list[str] = []

    class Recorder(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            received.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], received
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def _hostile(port: int) -> str:
    return (
        f'<img src="http://127.0.0.1:{port}/img">'
        f'<script>fetch("http://127.0.0.1:{port}/fetch");'
        'document.write("SCRIPT-RAN")</script>'
        '<iframe src="file:///etc/hostname" width="400" height="60"></iframe>'
        f'<link rel="stylesheet" href="http://127.0.0.1:{port}/css">'
    )


def _pdf_text(pdf: bytes) -> str:
    done = subprocess.run(["pdftotext", "-", "-"], input=pdf, capture_output=True, check=True)
    return done.stdout.decode("utf-8", "replace")


@needs_chromium
def test_the_printer_fetches_nothing_and_runs_no_script(tmp_path: Path) -> None:
    """Attack: a template's img, script fetch and file: iframe reached a local server three
    times and put the machine's hostname into the signed PDF."""
    hostname = Path("/etc/hostname").read_text(encoding="utf-8").strip()
    with _listening() as (port, received):
        page = tmp_path / "page.html"
        page.write_text(f"<!DOCTYPE html><html><body><p>printed</p>{_hostile(port)}</body></html>")
        pdf = print_pdf(page, "<span></span>", "<span></span>")
        folder = _templates(
            tmp_path,
            '{% extends "base.html.j2" %}{% block letterhead %}'
            + _hostile(port)
            + "{% endblock %}",
        )
        run = certify(DEVIATING, KEY, tmp_path / "out", template_dir=folder, pdf=True)
        assert run.pdf is not None
        signed = run.pdf.read_bytes()
    assert received == []
    for text in (_pdf_text(pdf), _pdf_text(signed)):
        assert "SCRIPT-RAN" not in text
        assert hostname not in text.split()
    assert "printed" in _pdf_text(pdf)


# Outputs -----------------------------------------------------------------------------------


def _config_plan(tmp_path: Path, file: str) -> Path:
    return write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\nlab = "l"\n'
        f'[[section]]\nkind = "configuration"\nfile = {json.dumps(file)}\n',
    )


def test_an_input_inside_the_output_folder_is_refused(tmp_path: Path) -> None:
    """Attack: ``file = "out/report.json"`` and ``certify -o out`` replaced the input."""
    out = tmp_path / "out"
    out.mkdir()
    shutil.copy(CONFIG, out / "report.json")
    before = (out / "report.json").read_bytes()
    plan = _config_plan(tmp_path, "out/report.json")
    with pytest.raises(ReportError, match=r"output folder .*out: holds the input"):
        certify(plan, KEY, out)
    run = tablecert(["certify", str(plan), "-o", str(out)])
    assert run.code == 2, run.stderr
    assert "holds the input" in run.error_lines[0]
    assert (out / "report.json").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == ["report.json"]
    # Reached through a link from outside the folder, or the plan itself inside it.
    (tmp_path / "link.toml").symlink_to(out / "report.json")
    with pytest.raises(ReportError, match="holds the input"):
        certify(_config_plan(tmp_path, "link.toml"), KEY, out)
    assert (out / "report.json").read_bytes() == before
    shutil.copy(CONFIG, tmp_path / "config.toml")
    shutil.copy(_config_plan(tmp_path, "../config.toml"), out / "report.json")
    with pytest.raises(ReportError, match="holds the input"):
        certify(out / "report.json", KEY, out)


def test_an_output_folder_inside_the_template_folder_is_refused(tmp_path: Path) -> None:
    folder = _templates(tmp_path, '{% extends "base.html.j2" %}')
    with pytest.raises(ReportError, match="is inside the input folder"):
        certify(DEVIATING, KEY, folder / "out", template_dir=folder)
    assert sorted(p.name for p in folder.iterdir()) == ["report.html.j2"]


def _signed_envelope(tmp_path: Path) -> tuple[Path, Path]:
    """A certified envelope (ephemeral signer) and a reviewer's key file."""
    run = certify(_config_plan(tmp_path, str(CONFIG)), KEY, tmp_path / "cert")
    reviewer = tmp_path / "reviewer"
    generate_key_pair(reviewer, PASSPHRASE["TABLECERT_KEY_PASSPHRASE"].encode())
    return run.envelope, reviewer


def test_sign_never_replaces_a_link(tmp_path: Path) -> None:
    """Attack: ``sign`` replaced a symlinked envelope with a regular file."""
    envelope, reviewer = _signed_envelope(tmp_path)
    link = tmp_path / "link.json"
    link.symlink_to(envelope)
    before = envelope.read_bytes()
    run = tablecert(
        ["sign", str(link), "--key", str(reviewer), "--trust-on-first-use"], env=PASSPHRASE
    )
    assert run.code == 2, run.stderr
    assert run.error_lines == [
        f"error: envelope {link}: is a symbolic link; give the file it points to"
    ]
    assert link.is_symlink()
    assert envelope.read_bytes() == before
    signed = tablecert(
        ["sign", str(envelope), "--key", str(reviewer), "--trust-on-first-use"], env=PASSPHRASE
    )
    assert signed.code == 0, signed.stderr
    assert len(json.loads(envelope.read_bytes())["signatures"]) == 2


def test_sign_never_replaces_a_fifo(tmp_path: Path) -> None:
    """A FIFO (or device) is never read or replaced: refused by name before it is opened (a
    writer stands ready to feed it, so a sign that read it would go on to replace it).
    ``sign /dev/stdin < envelope`` is the link case above: /dev/stdin is a symbolic link."""
    envelope, reviewer = _signed_envelope(tmp_path)
    fifo = tmp_path / "stdin"
    os.mkfifo(fifo)
    data = envelope.read_bytes()
    done = threading.Event()

    def feed() -> None:
        """Once a reader has the FIFO open, give it the envelope (never blocking)."""
        while not done.is_set():
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # no reader yet
                done.wait(0.01)
                continue
            with contextlib.suppress(OSError), os.fdopen(fd, "wb") as pipe:
                pipe.write(data)
            return

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    try:
        run = tablecert(
            ["sign", str(fifo), "--key", str(reviewer), "--trust-on-first-use"], env=PASSPHRASE
        )
    finally:
        done.set()
        writer.join()
    assert run.code == 2, run.stderr
    assert run.error_lines == [f"error: envelope {fifo}: is not a regular file; not replacing it"]
    assert fifo.is_fifo()
    with pytest.raises(OutputError, match="is not a regular file"):
        replace_regular_file(fifo, b"x")


def _formula_rules(tmp_path: Path) -> Path:
    text = RULES.read_text(encoding="utf-8")
    text = text.replace('value = "Q撲克 (Macau statute 89/2004)"', 'value = "=1+2"', 1)
    text = text.replace('article = "第十條(一)"', "article = \"=cmd|' /C calc'!A0\"", 1)
    assert "=1+2" in text
    assert "=cmd|" in text
    path = tmp_path / '=HYPERLINK("http:x",A1).toml'
    path.write_text(text, encoding="utf-8")
    return path


def test_par_export_cells_are_never_formulas(tmp_path: Path) -> None:
    """Attack: a rule file named ``=HYPERLINK(...)`` and its title and articles became formula
    cells in ``analyze --export par.xlsx`` and raw cells in the CSV."""
    from openpyxl import load_workbook

    rules = _formula_rules(tmp_path)
    xlsx, text = tmp_path / "par.xlsx", tmp_path / "par.csv"
    for path in (xlsx, text):
        run = tablecert(["analyze", "q-poker", "--rules", str(rules), "--export", str(path)])
        assert run.code == 0, run.stderr
    book = load_workbook(xlsx)
    cells = [c for sheet in book.worksheets for row in sheet.iter_rows() for c in row]
    assert [c for c in cells if c.data_type == "f"] == []
    values = {c.value for c in cells}
    assert {'=HYPERLINK("http:x",A1).toml', "=1+2", "=cmd|' /C calc'!A0"} <= values
    numbers = [c.value for c in cells if c.data_type == "n" and c.value is not None]
    assert any(isinstance(v, float) and v < 0 for v in numbers)  # a negative return, a number
    rows = list(csv.reader(io.StringIO(text.read_bytes().decode("utf-8-sig"))))
    flat = [cell for row in rows for cell in row]
    assert '\'=HYPERLINK("http:x",A1).toml' in flat
    assert "'=1+2" in flat
    assert "'=cmd|' /C calc'!A0" in flat
    assert [c for c in flat if c[:1] in ("=", "+", "@", "\t", "\r")] == []
    negatives = [c for c in flat if c.startswith("-")]
    assert negatives
    assert all(c.lstrip("-").replace(".", "").replace("/", "").isdigit() for c in negatives)


def test_inert_cells() -> None:
    assert [inert(t) for t in ("=1+2", "+1", "-x", "@SUM(A1)", "\tx", "\rx", "a=b")] == [
        "'=1+2",
        "'+1",
        "'-x",
        "'@SUM(A1)",
        "'\tx",
        "'\rx",
        "a=b",
    ]
    assert [inert(t) for t in ("-1/20", "-0.0523", "-3")] == ["-1/20", "-0.0523", "-3"]
    table: list[Sheet] = [("S", [["=1+2", Decimal("-0.5"), -3, "-1/20"]])]
    assert csv_bytes(table).decode("utf-8-sig") == "S,'=1+2,-0.5,-3,-1/20\r\n"
    from openpyxl import load_workbook

    book = load_workbook(io.BytesIO(xlsx_bytes(table)))
    row = next(book["S"].iter_rows())
    assert [(c.value, c.data_type) for c in row] == [
        ("=1+2", "s"),
        (-0.5, "n"),
        (-3, "n"),
        ("-1/20", "s"),
    ]


def test_analyze_export_never_overwrites(tmp_path: Path) -> None:
    """``analyze --export`` replaced an existing file or wrote through a link (simulate and
    --write-requests refuse)."""
    existing = tmp_path / "par.csv"
    existing.write_text("mine", encoding="utf-8")
    run = tablecert(["analyze", "q-poker", "--export", str(existing)])
    assert run.code == 2
    assert "already exists" in run.stderr
    assert existing.read_text(encoding="utf-8") == "mine"
    target = tmp_path / "elsewhere.csv"
    target.write_text("theirs", encoding="utf-8")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    for force in ([], ["--force"]):
        run = tablecert(["analyze", "q-poker", "--export", str(link), *force])
        assert run.code == 2
        assert "not a regular file" in run.stderr
    assert link.is_symlink()
    assert target.read_text(encoding="utf-8") == "theirs"
    forced = tablecert(["analyze", "q-poker", "--export", str(existing), "--force"])
    assert forced.code == 0, forced.stderr
    assert existing.read_text(encoding="utf-8-sig").startswith("Summary,par sheet,")


# Hidden characters -------------------------------------------------------------------------

HIDDEN = "B\u202eLIAF A\x1b[31mRED \u061c\u00ad\ufff9\u200b\u2028\ufeff\u0085"


def test_hidden_characters_are_shown_in_the_terminal_and_the_page() -> None:
    shown = "B\\u202eLIAF A\\x1b[31mRED \\u061c\\xad\\ufff9\\u200b\\u2028\\ufeff\\x85"
    assert plain(HIDDEN) == shown
    assert esc(HIDDEN + " <&>") == shown + " &lt;&amp;&gt;"


def test_file_names_with_direction_overrides_are_neutralised_in_the_report(
    tmp_path: Path,
) -> None:
    """Attack: a file name ``B\\u202eLIAF`` made page 1 read "..., BxZ ,FAIL"."""
    name = "B\u202eLIAF A\x1b[31mRED\u061c.toml"
    shutil.copy(CONFIG, tmp_path / name)
    run = certify(_config_plan(tmp_path, name), KEY, tmp_path / "out")
    html = run.html.read_text(encoding="utf-8")
    assert not any(ch in html for ch in "\u202e\x1b\u061c")
    assert "B\\u202eLIAF A\\x1b[31mRED\\u061c.toml" in html
    assert name in [i["name"] for i in json.loads(run.report.read_bytes())["inputs"]]


@pytest.mark.parametrize(
    "char",
    ["\u200e", "\u200f", "\u061c", "\u0085", "\u2028", "\u2029", "\u200b", "\ufeff", "\u2066"],
)
def test_certificate_fields_refuse_hidden_characters(tmp_path: Path, char: str) -> None:
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\nlab = "l"\n'
        f"applicant = {json.dumps('Casino' + char + 'C')}\n"
        f'[[section]]\nkind = "configuration"\nfile = {json.dumps(str(CONFIG))}\n',
    )
    with pytest.raises(
        PlanError, match=rf"applicant: control or direction character U\+{ord(char):04X}"
    ):
        certify(plan, KEY, tmp_path / "out")


def test_verify_shows_hidden_characters_of_an_envelope(tmp_path: Path) -> None:
    """verify printed U+061C, U+00AD and U+FFF9 of a signed title raw."""
    subjects = [dsse.Subject("plan.toml", "a" * 64)]
    title = "Casino\u061cB\u00adC\ufff9D\u202eE"
    path = tmp_path / "env.json"
    path.write_bytes(envelopes.certification(subjects, KEY, title=title).to_bytes())
    pub = tmp_path / "lab.pub"
    pub.write_bytes(public_pem(KEY.public_key()))
    run = tablecert(["verify", str(path), "--pubkey", str(pub)])
    assert run.code == 0, run.stderr
    assert "certified: Casino\\u061cB\\xadC\\ufff9D\\u202eE" in run.stdout.splitlines()
    assert not any(ch in run.stdout for ch in "\u061c\u00ad\ufff9\u202e")


def test_overriding_the_page_one_blocks_changes_nothing(tmp_path: Path) -> None:
    """The issue's attack template (blocks verdict and deviations replaced): the blocks are
    tablecert's own, so the page still says FAIL and lists both deviations."""
    folder = _templates(
        tmp_path,
        '{% extends "base.html.j2" %}{% block verdict %}Verdict: PASS{% endblock %}'
        "{% block identification %}{% endblock %}"
        "{% block deviations %}No deviation{% endblock %}",
    )
    run = certify(DEVIATING, KEY, tmp_path / "out", template_dir=folder)
    html = run.html.read_text(encoding="utf-8")
    assert 'id="verdict">Verdict: FAIL' in html
    assert "Verdict: PASS" not in html
    assert "No deviation" not in html
    assert html.count('<td><span class="badge fail">FAIL</span></td>') >= 2


def test_a_template_that_loops_without_writing_is_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nested loops that write nothing are bounded by time, not by the page's size."""
    from tablecert.report import html

    monkeypatch.setattr(html, "RENDER_SECONDS", 0.5)
    folder = _templates(
        tmp_path,
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
    )
    _refused(tmp_path, folder, r"template report\.html\.j2: rendering took longer than 0\.5 s")
