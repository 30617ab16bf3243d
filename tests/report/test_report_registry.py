"""The section registry: a new kind plugs in, its files become signed subjects, verdicts roll up."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

from tablecert.cli import app
from tablecert.errors import ReportError
from tablecert.judgement import Outcome, Verdict
from tablecert.report import dsse
from tablecert.report.certify import certify
from tablecert.report.entry import Context, Field, PlanEntry, Section
from tablecert.report.html import table
from tablecert.report.registry import REGISTRY, register_section
from tablecert.report.signing import load_public_key
from tests.support.plan_support import write_plan

KIND = "test-log-count"


@pytest.fixture
def log_kind() -> Iterator[None]:
    """A toy analysis: counts the lines of a log; a requirement on the count."""

    @register_section(
        KIND,
        title="Log line count",
        fields={
            "log": Field("file", help="a log"),
            "minimum": Field("integer"),
            "note": Field("text", required=False),
        },
    )
    def build(entry: PlanEntry, context: Context) -> Section:
        log = entry.path("log")
        context.step(f"counting {log.name}")
        lines = log.read_text(encoding="utf-8").count("\n")
        minimum = entry.integer("minimum")
        verdict = Verdict(
            f"{KIND}.{log.name}.minimum",
            "第十一條",
            f"the log has at least {minimum} lines",
            Outcome.of(lines < minimum),
            f"{lines} lines",
        )
        return Section(
            id=f"{KIND}/{log.name}",
            title=f"Lines of {log.name}",
            data={"lines": lines, "share": Fraction(lines, max(minimum, 1))},
            verdicts=(verdict,),
            html=table(["lines"], [[lines]]),
        )

    yield
    del REGISTRY[KIND]


def _plan(tmp_path: Path, minimum: int) -> Path:
    (tmp_path / "logs").mkdir(exist_ok=True)
    (tmp_path / "logs" / "deal.log").write_text("a\nb\nc\n", encoding="utf-8")
    return write_plan(
        tmp_path,
        '[certification]\ntitle = "toy"\n\n'
        f'[[section]]\nkind = "{KIND}"\nlog = "logs/deal.log"\nminimum = {minimum}\n\n'
        '[[section]]\nkind = "hand-categories"\ngame = "q-poker"\nrules = "q-poker.macau"\n',
    )


@pytest.mark.usefixtures("log_kind")
def test_a_registered_kind_runs_and_its_file_is_a_subject(tmp_path: Path) -> None:
    run = certify(_plan(tmp_path, 3), Ed25519PrivateKey.generate(), tmp_path / "out")
    assert run.verdict == "pass"
    section = run.data["sections"][0]
    assert section["data"] == {"lines": 3, "share": "1/1"}
    assert section["inputs"] == ["logs/deal.log"]
    assert [(i["name"], i["role"]) for i in run.data["inputs"]] == [
        ("bundled/rules/q-poker.macau.toml", "rules"),
        ("logs/deal.log", "log"),
        ("plan.toml", "plan"),
    ]
    key = [load_public_key(run.signer_public_key)]
    log = tmp_path / "logs" / "deal.log"
    assert dsse.verify_file(run.envelope, key, [log]).valid
    log.write_text("a\nb\nc\nd\n", encoding="utf-8")
    result = dsse.verify_file(run.envelope, key, [log])
    assert "does not match the certified logs/deal.log" in result.reasons[0]


@pytest.mark.usefixtures("log_kind")
def test_a_failed_requirement_fails_the_certification(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(app, ["certify", str(_plan(tmp_path, 4)), "-o", str(out)])
    assert result.exit_code == 1
    assert "verdict:  FAIL (3 of 4 requirements passed, 1 failed)" in result.stdout
    html = (out / "report.html").read_text(encoding="utf-8")
    assert 'class="verdict fail" id="verdict">Verdict: FAIL' in html


@pytest.mark.usefixtures("log_kind")
def test_registering_a_kind_twice_is_an_error() -> None:
    with pytest.raises(ReportError, match="registered twice"):
        register_section(KIND, title="again", fields={})(lambda entry, context: None)  # type: ignore[arg-type,return-value]
