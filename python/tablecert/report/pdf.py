"""report.pdf: the HTML report printed by headless Chromium (no second layout engine).

The page size is the HTML's own ``@page size`` (A4 unless the plan or ``--paper`` says
Letter); every page carries a running header with the report id and "Page x of y". The PDF is
made byte-deterministic for the signed statement: Chromium's creation and modification dates
become the report's finish time, and its random document /ID a digest of the rest of the file
(same lengths, so the cross-reference offsets stay valid).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tablecert.errors import ReportError
from tablecert.report.chromium import print_pdf
from tablecert.report.html import (
    VERDICT_STATED,
    certificate_number,
    denied_deviations,
    esc,
    verdict_line,
)

_STYLE = (
    "font-family:sans-serif;font-size:8px;color:#333;width:100%;margin:0 14mm;"
    "display:flex;justify-content:space-between"
)
_DATE = re.compile(rb"/(CreationDate|ModDate) \(D:[0-9]{14}[^)]*\)")
_ID = re.compile(rb"/ID \[<([0-9A-Fa-f]+)> <([0-9A-Fa-f]+)>\]")


def header_footer(report: Mapping[str, Any]) -> tuple[str, str]:
    """The running header (report id, title) and footer (lab, page x of y) as Chromium HTML."""
    number = esc(certificate_number(report))
    title = esc(report["title"])
    header = f'<div style="{_STYLE}"><span>{number}</span><span>{title}</span></div>'
    footer = (
        f'<div style="{_STYLE}"><span>{esc(report["lab"])} · {number}</span>'
        '<span>Page <span class="pageNumber"></span> of <span class="totalPages"></span>'
        "</span></div>"
    )
    return header, footer


def deterministic(pdf: bytes, finished_at: str) -> bytes:
    """``pdf`` with its dates set to ``finished_at`` (YYYY-MM-DDTHH:MM:SSZ) and its /ID a digest
    of the content, every replacement the same length as what it replaces."""
    stamp = re.sub(r"[^0-9]", "", finished_at)[:14].encode()

    def date(match: re.Match[bytes]) -> bytes:
        old = match.group(0)
        new = b"/" + match.group(1) + b" (D:" + stamp + b"+00'00')"
        return new.ljust(len(old), b" ")[: len(old)] if len(new) <= len(old) else old

    dated = _DATE.sub(date, pdf)
    digest = hashlib.sha256(_ID.sub(b"", dated)).hexdigest().upper().encode()

    def ident(match: re.Match[bytes]) -> bytes:
        first, second = match.group(1), match.group(2)
        return (
            b"/ID [<"
            + digest[: len(first)].ljust(len(first), b"0")
            + b"> <"
            + digest[: len(second)].ljust(len(second), b"0")
            + b">]"
        )

    return _ID.sub(ident, dated)


def render_pdf(html: Path, report: Mapping[str, Any]) -> bytes:
    """The report at ``html`` printed to PDF bytes, deterministic for the same HTML."""
    header, footer = header_footer(report)
    return print_pdf(html, header, footer, lambda pdf: deterministic(pdf, report["finished_at"]))


def first_page_text(pdf: bytes) -> str:
    """The text of page 1 as poppler's pdftotext reads it, white space collapsed."""
    if shutil.which("pdftotext") is None:
        raise ReportError(
            "pdftotext (poppler-utils) is not installed: a PDF from a lab's template cannot be "
            "checked against report.json; run scripts/system-deps.sh"
        )
    try:
        done = subprocess.run(
            ["pdftotext", "-q", "-enc", "UTF-8", "-f", "1", "-l", "1", "-", "-"],
            input=pdf,
            capture_output=True,
            check=True,
            timeout=120,
        )
    except (subprocess.SubprocessError, OSError) as exc:
        raise ReportError(f"pdftotext could not read the printed report.pdf: {exc}") from None
    return " ".join(done.stdout.decode("utf-8", "replace").split())


def _holds(text: str, report: Mapping[str, Any]) -> bool:
    """Whether ``text`` holds page 1's verdict block as tablecert writes it (white space
    aside: pdftotext breaks lines where the page does)."""
    return "".join(verdict_line(report).split()) in "".join(text.split())


def check_pdf_text(pdf: bytes, report: Mapping[str, Any]) -> None:
    """Refuse a PDF (printed from a lab's template) whose page 1 does not show tablecert's
    verdict block, states another verdict before it, or says there is no deviation when there
    is one."""
    text = first_page_text(pdf)
    verdict = str(report["verdict"])
    stated = VERDICT_STATED.search(text)
    if stated is None or stated.group(1).lower() != verdict or not _holds(text, report):
        said = f"states {stated.group()!r}" if stated else "states no verdict"
        if stated is not None and stated.group(1).lower() == verdict:
            said = "does not show tablecert's verdict block"
        raise ReportError(
            f"report.pdf: page 1 {said}, but the verdict in report.json is {verdict} "
            "(a lab's template may not replace or hide it)"
        )
    denial = denied_deviations(text, report)
    if denial is not None:
        raise ReportError(f"report.pdf: page 1 {denial}")
