"""The ``round-audit`` section of a game described by its rule file (no ``game`` key: the
``rules`` file names the game): the bundled Four Card Poker plan certifies its example log and
the certificate verifies; a planted log fails, each finding with its round and article; what
the section cannot take is refused when the plan is read, naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert import bundled
from tablecert.errors import PlanError
from tablecert.report.canonical import canonical_bytes
from tablecert.report.certify import certify, run_sections
from tablecert.report.plan import load_plan
from tablecert.report.signing import public_pem
from tablecert.rules import load_rules
from tests.support.hostile import run_cli
from tests.support.plan_support import write_plan
from tests.support.stud_rounds import make_log

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = ROOT / "fixtures" / "rounds"
FOUR = "four-card-poker.standard"
CONFIG = ROOT / "fixtures" / "configs" / "q-poker.casino-c.toml"


def _plan(folder: Path, body: str) -> Path:
    return write_plan(
        folder, '[certification]\ntitle = "t"\n\n[[section]]\nkind = "round-audit"\n' + body
    )


def test_the_bundled_four_card_poker_rounds_plan_certifies_and_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = bundled.bundled_plan("four-card-poker-rounds")
    key = Ed25519PrivateKey.generate()
    run = certify(plan, key, tmp_path / "certificate")
    report = run.data
    assert report["verdict"] == "pass"
    assert report["summary"] == {"requirements": 3, "pass": 3, "fail": 0, "inconclusive": 0}
    (section,) = report["sections"]
    assert section["id"] == "round-audit/four-card-poker.standard/four-card-poker-clean.csv"
    assert section["inputs"] == [
        "../rounds/four-card-poker-clean.csv",
        "../rules/four-card-poker.standard.toml",
    ]
    data = section["data"]
    assert (data["rounds"], data["seats"], data["files"]) == (40, 77, ["four-card-poker-clean.csv"])
    assert data["rules_file"] == "four-card-poker.standard.toml"
    assert data["rules_sha256"] == load_rules(FOUR).sha256
    assert set(data["spots"]) == {"ante", "raise", "aces-up"}
    for spot in data["spots"].values():
        assert spot["paid"] == spot["due"]
    # the articles of the description's values: the deal, the raise, the settlement
    assert [
        (r["requirement"].rsplit(".", 1)[1], r["article"], r["verdict"])
        for r in report["requirements"]
    ] == [
        ("deck", "Rules: the deal", "pass"),
        ("bet", "Rules: the play", "pass"),
        ("settlement", "Rules: settlement", "pass"),
    ]
    assert str(ROOT).encode() not in run.report.read_bytes()
    pub = tmp_path / "lab.pub"
    pub.write_bytes(public_pem(key.public_key()))
    verified = run_cli(
        ["verify", str(run.envelope), "--pubkey", str(pub), "--inputs", str(plan)],
        monkeypatch,
        capsys,
    )
    assert verified.code == 0, verified.out + verified.err
    assert "certified: Four Card Poker (standard rules): round audit" in verified.out
    assert "  verdict: PASS" in verified.out


def test_a_planted_log_gives_a_fail_section_naming_each_round_and_article(tmp_path: Path) -> None:
    plan = _plan(
        tmp_path, f'logs = ["{ROUNDS / "four-card-poker-planted.jsonl"}"]\nrules = "{FOUR}"\n'
    )
    (section,) = run_sections(load_plan(plan))
    canonical_bytes(section.data)
    outcomes = {v.requirement.rsplit(".", 1)[1]: (v.article, v.outcome) for v in section.verdicts}
    assert outcomes == {
        "deck": ("Rules: the deal", "pass"),
        "bet": ("Rules: the play", "pass"),
        "settlement": ("Rules: settlement", "fail"),
    }
    assert section.verdicts[2].detail == "40 rounds, 84 seats; 5 settlement findings"
    found = {
        (f["round_id"], f["seat"], f["spot"]): (f["article"], f["paid"], f["due"])
        for f in section.data["findings"]
    }
    assert found == {
        ("10", 1, "aces-up"): ("Aces Up: pay table (Live! Casino Philadelphia)", "20", "10"),
        ("20", 1, "ante"): ("Rules: settlement; Rules: ante bonus", "50", "1050"),
        ("30", 1, "ante"): ("Rules: settlement", "-20", "20"),
        ("30", 1, "raise"): ("Rules: settlement", "-60", "60"),
        ("40", 1, "aces-up"): ("Rules: Aces Up", "0", "-10"),
    }
    assert all(f["file"] == "four-card-poker-planted.jsonl" for f in section.data["findings"])
    assert "round 20 seat 1 ante: settlement (Rules: settlement; Rules: ante bonus)" in section.html


def test_a_dedicated_game_named_by_game_is_audited_as_before(tmp_path: Path) -> None:
    """With ``game`` the dedicated engine's audit and its statute's articles, as always."""
    plan = _plan(
        tmp_path,
        f'logs = ["{ROUNDS / "q-poker-clean.csv"}"]\nrules = "q-poker.macau"\ngame = "q-poker"\n',
    )
    (section,) = run_sections(load_plan(plan))
    assert section.id == "round-audit/q-poker/q-poker-clean.csv"
    assert [(v.requirement.rsplit(".", 1)[1], v.article) for v in section.verdicts] == [
        ("deck", "第七條"),
        ("bet", "第九條"),
        ("settlement", "第九條"),
    ]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            'rules = "mahjong-simple.macau"\n',
            r"rules: mahjong-simple.macau.toml describes no stud game",
        ),
        (
            f'rules = "{FOUR}"\nhold = true\n',
            r"hold: is for q-poker and caribbean-stud logs: a game described by its rule file",
        ),
        (
            f'rules = "{FOUR}"\nconfig = "{CONFIG}"\n',
            r"config: is for q-poker and caribbean-stud logs",
        ),
    ],
)
def test_what_a_described_game_cannot_take_is_refused_when_the_plan_is_read(
    tmp_path: Path, extra: str, message: str
) -> None:
    plan = _plan(tmp_path, f'logs = ["{ROUNDS / "four-card-poker-clean.csv"}"]\n' + extra)
    with pytest.raises(PlanError, match=r"plan.toml:\d+: section 1 \(round-audit\): " + message):
        load_plan(plan)


def test_a_statute_file_without_game_is_audited_as_described_under_whole_articles(
    tmp_path: Path,
) -> None:
    """Q Poker's statute file named by its rules alone: a described game's log, its checks
    under the statute's whole articles (第九條(二) is judged as 第九條), as the dedicated
    engine's section cites them."""
    log = make_log("q-poker.macau", 60, seed=3).write(tmp_path / "q.csv")
    plan = _plan(tmp_path, f'logs = ["{log}"]\nrules = "q-poker.macau"\n')
    (section,) = run_sections(load_plan(plan))
    assert section.id == "round-audit/q-poker.macau/q.csv"
    assert [(v.requirement.rsplit(".", 1)[1], v.article, v.outcome) for v in section.verdicts] == [
        ("deck", "第七條", "pass"),
        ("bet", "第九條", "pass"),
        ("settlement", "第九條", "pass"),
    ]
    assert section.data["spots"].keys() == {"play", "pair_plus"}
