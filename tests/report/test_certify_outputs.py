"""What certify may replace in its output folder: a previous certificate, exports included.

A described game's par sheet is exported under its rule file's name (``par-RULES.csv``,
``strategy-RULES.csv``), so a lab's own file gives names certify cannot list in advance: they
are recognised by their form, and only beside a certificate's envelope, so that a folder of
other files is never taken for a certificate and replaced.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.errors import ReportError
from tablecert.report.certify import ENVELOPE_JSON, OUTPUTS, certify
from tablecert.report.staging import check_target
from tablecert.rules import RULES_DIR
from tests.support.plan_support import write_plan

KEY = Ed25519PrivateKey.generate()


def _lab_plan(tmp_path: Path) -> Path:
    """A plan exporting the par sheet and the strategy of a lab's own rule file."""
    shutil.copy(RULES_DIR / "q-poker.standard.toml", tmp_path / "lab three card.toml")
    return write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n[[section]]\nkind = "stud-par-sheet"\n'
        'rules = "lab three card.toml"\nexport = "csv"\nstrategy = true\n',
    )


def test_a_lab_games_certificate_is_replaced_whole_exports_included(tmp_path: Path) -> None:
    plan = _lab_plan(tmp_path)
    out = tmp_path / "out"
    first = certify(plan, KEY, out)
    exports = ["par-lab three card.csv", "strategy-lab three card.csv"]
    assert first.data["outputs"] == exports
    assert {p.name for p in out.iterdir()} >= set(exports)
    again = certify(plan, KEY, out)
    assert again.data["outputs"] == exports


def test_export_names_alone_are_no_certificate(tmp_path: Path) -> None:
    # Without a certificate's envelope beside them, files named like exports are the user's.
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "par-budget.csv").write_text("x\n", encoding="utf-8")
    with pytest.raises(ReportError, match=r"holds 'par-budget\.csv', which certify did not write"):
        check_target(folder, OUTPUTS)
    (folder / ENVELOPE_JSON).write_text("{}", encoding="utf-8")
    check_target(folder, OUTPUTS)  # now a previous certificate's export
    (folder / "notes.txt").write_text("x\n", encoding="utf-8")
    with pytest.raises(ReportError, match=r"holds 'notes\.txt'"):
        check_target(folder, OUTPUTS)


def test_a_folder_of_a_certificate_and_another_file_is_refused_before_the_run(
    tmp_path: Path,
) -> None:
    plan = _lab_plan(tmp_path)
    out = tmp_path / "out"
    certify(plan, KEY, out)
    (out / "par-notes.txt").write_text("x\n", encoding="utf-8")
    with pytest.raises(ReportError, match=r"holds 'par-notes\.txt'"):
        certify(plan, KEY, out)
    assert (out / "par-notes.txt").exists()
