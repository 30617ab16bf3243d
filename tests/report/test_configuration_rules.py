"""The ``configuration`` section with the lab's own rule file (``rules``, as ``tablecert check
CONFIG --rules FILE``): a configuration naming the id of the games described by their files
(``stud``) is judged against the lab's copy of the Four Card Poker file, certified and
verified, the file signed as a rule file of the certificate; a file of another game or
variant is refused by name when the plan is read (exit 2)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert.errors import PlanError
from tablecert.judgement import Outcome
from tablecert.report.certify import certify, run_sections
from tablecert.report.plan import load_plan
from tablecert.report.signing import public_pem
from tablecert.rules import load_rules
from tests.support.hostile import run_cli
from tests.support.plan_support import write_plan

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "fixtures" / "rules"
CONFORMING = ROOT / "fixtures" / "configs" / "four-card-poker.casino-d.toml"


def _plan(folder: Path, body: str) -> Path:
    return write_plan(
        folder,
        '[certification]\ntitle = "t"\n\n[[section]]\nkind = "configuration"\nreturns = false\n'
        + body,
    )


def _config(folder: Path, game: str, source: Path = CONFORMING) -> Path:
    """``source`` with its ``[submission] game`` replaced by ``game``."""
    text = source.read_text(encoding="utf-8")
    path = folder / "casino.toml"
    path.write_text(text.replace('game = "four-card-poker.standard"', f'game = "{game}"'), "utf-8")
    return path


def test_a_labs_four_card_poker_file_judges_a_stud_configuration(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lab = tmp_path / "four-card-poker.lab.toml"
    shutil.copy(RULES / "four-card-poker.standard.toml", lab)
    _config(tmp_path, "stud")
    plan = _plan(tmp_path, 'file = "casino.toml"\nrules = "four-card-poker.lab.toml"\n')
    key = Ed25519PrivateKey.generate()
    run = certify(plan, key, tmp_path / "certificate")
    report = run.data
    assert report["verdict"] == "pass"
    (section,) = report["sections"]
    assert section["id"] == "configuration/casino.toml"
    assert section["title"] == "stud configuration casino.toml (Casino D (example))"
    assert section["inputs"] == ["casino.toml", "four-card-poker.lab.toml"]
    assert [(i["name"], i["role"]) for i in report["inputs"]] == [
        ("casino.toml", "file"),
        ("four-card-poker.lab.toml", "rules"),
        ("plan.toml", "plan"),
    ]
    data = section["data"]
    assert (data["game"], data["statute_rules"], data["verdict"], data["judged"]) == (
        "stud",
        "four-card-poker.lab.toml",
        "conforms",
        9,
    )
    assert data["statute_rules_sha256"] == load_rules(lab).sha256
    assert [(r["name"], r["game"], r["variant"]) for r in report["rule_data"]] == [
        ("four-card-poker.lab.toml", "stud", "four-card-poker")
    ]
    rows = {
        r["requirement"].removeprefix("configuration.casino."): (r["article"], r["verdict"])
        for r in report["requirements"]
    }
    assert rows["Rules: the play"] == ("Rules: the play", "pass")
    assert rows["Rules: ante bonus"] == ("Rules: ante bonus", "pass")
    assert rows["Aces Up: pay table (Live! Casino Philadelphia).house-choice"][1] == (
        "house-choice"
    )
    assert str(tmp_path).encode() not in run.report.read_bytes()
    pub = tmp_path / "lab.pub"
    pub.write_bytes(public_pem(key.public_key()))
    verified = run_cli(
        [
            "verify",
            str(run.report.parent / "report.intoto.dsse.json"),
            "--pubkey",
            str(pub),
            "--inputs",
            str(plan),
        ],
        monkeypatch,
        capsys,
    )
    assert verified.code == 0, verified.out + verified.err
    assert "  verdict: PASS" in verified.out


def test_the_labs_file_judges_a_deviation_against_its_own_values(tmp_path: Path) -> None:
    """The lab's copy with ties a push: a submission of ties to the player deviates from it
    (it conforms to the bundled file), so the section judges against the file given."""
    lab = tmp_path / "four-card-poker.lab.toml"
    text = (RULES / "four-card-poker.standard.toml").read_text(encoding="utf-8")
    ties = 'ties = { value = "player", article = "Rules: settlement"'
    assert ties in text
    lab.write_text(text.replace(ties, ties.replace('"player"', '"push"')), encoding="utf-8")
    _config(tmp_path, "stud")
    plan = _plan(tmp_path, f'file = "casino.toml"\nrules = "{lab}"\n')
    (section,) = run_sections(load_plan(plan))
    failed = {v.article: v.detail for v in section.verdicts if v.outcome is Outcome.FAIL}
    assert failed == {"Rules: settlement": "settlement.ties: submitted player, statute push"}


@pytest.mark.parametrize(
    ("game", "rules", "message"),
    [
        (
            "four-card-poker.standard",
            "caribbean-stud.no-upcard",
            r"rules: caribbean-stud.no-upcard.toml is not the submission's game: .*"
            r"caribbean-stud.no-upcard.toml:\d+: game.variant: the submission is for "
            r"'four-card-poker.standard' \('four-card-poker'\)",
        ),
        (
            "stud",
            "q-poker.macau",
            r"rules: q-poker.macau.toml is not the submission's game: .*q-poker.macau.toml:\d+: "
            r"game.id: the submission is for 'stud', not 'q-poker'",
        ),
    ],
)
def test_a_rule_file_of_another_game_or_variant_is_refused_when_the_plan_is_read(
    tmp_path: Path, game: str, rules: str, message: str
) -> None:
    _config(tmp_path, game)
    plan = _plan(tmp_path, f'file = "casino.toml"\nrules = "{rules}"\n')
    with pytest.raises(PlanError, match=r"plan.toml:\d+: section 1 \(configuration\): " + message):
        load_plan(plan)


def test_without_rules_a_stud_configuration_is_refused_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _config(tmp_path, "stud")
    plan = _plan(tmp_path, 'file = "casino.toml"\n')
    out = tmp_path / "out"
    run = run_cli(["certify", str(plan), "-o", str(out)], monkeypatch, capsys)
    assert run.code == 2
    (line,) = [line for line in run.err.splitlines() if line]
    assert line.startswith(
        f"error: {config}:6: submission.game: 'stud' names a game described by its rule file"
    )
    assert not out.exists()


def test_a_statute_games_configuration_against_the_labs_file_with_a_side_bet(
    tmp_path: Path,
) -> None:
    """A Q Poker configuration judged against the bundled file with the 6 Card Bonus, as
    ``check --rules q-poker.six-card-bonus`` judges it: the bet's value is a line."""
    path = tmp_path / "casino.toml"
    path.write_text(
        '[submission]\ngame = "q-poker"\n\n[side_bets.six-card-bonus.pays]\nroyal-flush = 500\n',
        encoding="utf-8",
    )
    plan = _plan(tmp_path, 'file = "casino.toml"\nrules = "q-poker.six-card-bonus"\n')
    (section,) = run_sections(load_plan(plan))
    failed = {v.article: v.detail for v in section.verdicts if v.outcome is Outcome.FAIL}
    assert failed == {
        "6 Card Bonus: pay table": "side_bets.six-card-bonus.pays.royal-flush: submitted 500, "
        "statute 1000"
    }
    assert section.rule_files == ()
