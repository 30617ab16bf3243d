"""How a submitted configuration is judged on the certificate: house choices are recorded,
never passed; every row shows the values it judged; a duty the statute attaches to a value
is an open point; only judged rows count towards the verdict."""

from __future__ import annotations

from pathlib import Path

from tablecert.judgement import Outcome, overall
from tablecert.report.certify import run_sections
from tablecert.report.entry import Section
from tablecert.report.plan import load_plan
from tests.support.plan_support import write_plan

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _section(tmp_path: Path, config: str) -> Section:
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n\n[[section]]\nkind = "configuration"\nreturns = false\n'
        f'file = "{FIXTURES}/configs/{config}"\n',
    )
    (section,) = run_sections(load_plan(plan))
    return section


def test_house_choices_are_recorded_not_passed(tmp_path: Path) -> None:
    s = _section(tmp_path, "caribbean-stud.casino-a.toml")
    choices = [v for v in s.verdicts if v.outcome is Outcome.HOUSE_CHOICE]
    recorded = {value for v in choices for value in v.values}
    assert {
        "play.cap.maximum_payout = 5000",
        "play.cap.ante = 100",
        "progressive.meter = 250000",
        "progressive.seed = 50000",
        "progressive.contribution = 7/10",
    } <= recorded
    # none of them is in a row that passes
    passing = [v for v in s.verdicts if v.outcome is Outcome.PASS]
    assert not any(value in recorded for v in passing for value in v.values)
    assert all("conform" not in v.statement for v in choices)
    # they do not count towards the verdict: the section is what the judged rows say
    judged = [v.outcome for v in s.verdicts if v.outcome.judged]
    assert s.outcome is overall(judged)


def test_every_row_shows_the_values_it_judged(tmp_path: Path) -> None:
    s = _section(tmp_path, "q-poker.casino-c.toml")
    for v in s.verdicts:
        if v.requirement.split(".")[-1] in ("submitted",) or ".consistency." in v.requirement:
            continue
        assert v.values, v.requirement
        assert "value(s): conforms" not in v.detail
        assert all(" = " in value for value in v.values)


def test_a_duty_on_a_submitted_value_is_an_open_point(tmp_path: Path) -> None:
    s = _section(tmp_path, "caribbean-stud.casino-a.toml")
    (royal,) = [v for v in s.verdicts if "play.raise_pays.royal-flush = 80" in v.values]
    assert royal.outcome is Outcome.PASS  # 80 lies within the statute's range
    assert len(royal.duties) == 1
    assert royal.duties[0].startswith("play.raise_pays.royal-flush: 第十三条")
    assert "DICJ" in royal.duties[0]
    assert royal.as_json()["duties"] == list(royal.duties)


def test_page_one_lists_open_points_and_house_choices_never_as_deviations(
    tmp_path: Path,
) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from tablecert.report.certify import certify
    from tablecert.report.html import visible_text

    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "t"\n\n[[section]]\nkind = "configuration"\nreturns = false\n'
        f'file = "{FIXTURES}/configs/caribbean-stud.casino-a.toml"\n',
    )
    run = certify(plan, Ed25519PrivateKey.generate(), tmp_path / "out")
    assert run.verdict is Outcome.PASS
    summary = run.data["summary"]
    assert summary["house-choice"] > 0
    assert summary["requirements"] == sum(
        summary[k] for k in ("pass", "fail", "inconclusive", "house-choice")
    )
    html = run.html.read_text(encoding="utf-8")
    block = html[
        html.index('id="deviations"') : html.index("</div>", html.index('id="deviations"'))
    ]
    text = visible_text(block)
    judged = summary["pass"] + summary["fail"] + summary["inconclusive"]
    assert f"No deviation: every one of the {judged} judged requirements passed." in text
    assert "Open points: duties the statute attaches to submitted values" in text
    assert "DICJ" in text
    assert "House choices: values the statute leaves to the house (recorded, not judged)" in text
    assert "progressive.meter = 250000" in text
    assert "HOUSE-CHOICE" not in text.split("Open points")[0]  # none among the deviations
