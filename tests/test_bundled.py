"""The package carries its data: every fixture ships in the wheel (as tablecert/data/), found
through importlib.resources; bundled names resolve; ``--version`` names the rules bundle."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

import tablecert
from tablecert import bundled
from tablecert.cli import app
from tablecert.errors import PlanError, RuleFileError
from tablecert.report.plan import load_plan
from tablecert.rules import load_rules

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DATA = ROOT / "python" / "tablecert" / "data"


def _tracked(folder: str) -> set[str]:
    out = subprocess.run(
        ["git", "ls-files", folder], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return {line.removeprefix(folder) for line in out.splitlines()}


def test_every_fixture_is_package_data() -> None:
    """python/tablecert/data/ mirrors fixtures/ file by file (symlinks in the tree, the files in
    the wheel). scripts/bootstrap.sh runs scripts/link-package-data.sh, which adds the link of a
    new fixture (commit it with the fixture) and removes the link of a deleted one."""
    fixtures = _tracked("fixtures/")
    linked = {
        p.relative_to(PACKAGE_DATA).as_posix()
        for p in PACKAGE_DATA.rglob("*")
        if (p.is_symlink() or p.is_file()) and "__pycache__" not in p.parts
    }
    assert fixtures - linked == set(), "run scripts/link-package-data.sh"
    assert linked - fixtures == set(), "package data without a fixture"
    for name in linked:
        link = PACKAGE_DATA / name
        assert link.is_symlink(), name
        assert link.resolve() == (ROOT / "fixtures" / name).resolve(), name
    tracked_links = _tracked("python/tablecert/data/")
    assert tracked_links <= fixtures


def test_data_root_is_found_through_the_package() -> None:
    assert (bundled.DATA_ROOT / "statutes" / "INTERPRETATION.md").is_file()
    assert bundled.RULES_DIR == bundled.DATA_ROOT / "rules"
    assert bundled.SCHEMA_FILE.name == "report.schema.json"
    assert bundled.SCHEMA_FILE.is_file()


def test_bundled_names_resolve_and_unknown_names_are_listed() -> None:
    assert load_rules("q-poker.macau").path == bundled.RULES_DIR / "q-poker.macau.toml"
    assert load_plan("smoke").path == bundled.PLANS_DIR / "smoke.toml"
    with pytest.raises(RuleFileError, match=r"no bundled rule file 'nope'; bundled: .*q-poker"):
        load_rules("nope")
    with pytest.raises(PlanError, match=r"no bundled plan 'nope'; bundled: .*main, smoke"):
        load_plan("nope")


def test_version_names_tool_core_and_rules_bundle() -> None:
    digest = hashlib.sha256()
    for path in sorted(bundled.RULES_DIR.glob("*.toml")):
        digest.update(f"{path.name}\0{hashlib.sha256(path.read_bytes()).hexdigest()}\n".encode())
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    first, second = result.stdout.splitlines()
    assert first == (
        f"tablecert {tablecert.__version__} (core {tablecert.core_version}; "
        f"bundled rules sha256 {digest.hexdigest()})"
    )
    assert second == f"bundled data: {bundled.DATA_ROOT}"
