"""The ``evaluator-crosscheck`` section of a game described by its rule file (no ``game`` key:
the ``rules`` file names the game): the bundled plan certifies the correct Four Card Poker
vendor evaluator (PASS) and the certificate verifies; a defective one fails the check it
breaks under the ranking's article, naming the defect; what the section cannot take, and an
evaluator that cannot start, are refused when the plan is read, naming the key (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tablecert import bundled
from tablecert.errors import PlanError
from tablecert.report.certify import certify, run_sections
from tablecert.report.plan import load_plan
from tablecert.report.signing import public_pem
from tablecert.rules import load_rules
from tests.support.hostile import run_cli
from tests.support.plan_support import write_plan

ROOT = Path(__file__).resolve().parents[2]
VENDOR = ROOT / "fixtures" / "evaluators" / "four_card_vendor.py"
POKER_VENDOR = ROOT / "fixtures" / "evaluators" / "vendor_poker.py"
FOUR = "four-card-poker.standard"
CHECKS = ("hand-categories", "adjacent-rank-classes", "other-pairs")


def _plan(folder: Path, body: str) -> Path:
    return write_plan(
        folder,
        '[certification]\ntitle = "t"\n\n[[section]]\nkind = "evaluator-crosscheck"\n' + body,
    )


def _vendor(function: str, extra: str = "hands = 200\nother_pairs = 200\nseed = 1\n") -> str:
    return f'rules = "{FOUR}"\nevaluator = "{VENDOR}"\nfunction = "{function}"\n' + extra


def _verified(
    run_dir: Path,
    key: Ed25519PrivateKey,
    plan: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> str:
    pub = run_dir.parent / f"{run_dir.name}.pub"
    pub.write_bytes(public_pem(key.public_key()))
    envelope = run_dir / "report.intoto.dsse.json"
    verified = run_cli(
        ["verify", str(envelope), "--pubkey", str(pub), "--inputs", str(plan)],
        monkeypatch,
        capsys,
    )
    assert verified.code == 0, verified.out + verified.err
    return verified.out


def test_the_bundled_four_card_poker_evaluator_plan_certifies_and_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    plan = bundled.bundled_plan("four-card-poker-evaluator")
    key = Ed25519PrivateKey.generate()
    run = certify(plan, key, tmp_path / "certificate")
    report = run.data
    assert report["verdict"] == "pass"
    assert report["summary"] == {"requirements": 3, "pass": 3, "fail": 0, "inconclusive": 0}
    (section,) = report["sections"]
    ident = "four_card_vendor.py:four_card"
    assert section["id"] == f"evaluator-crosscheck/{FOUR}/{ident}"
    assert section["inputs"] == [
        "../evaluators/four_card_vendor.py",
        "../rules/four-card-poker.standard.toml",
    ]
    data = section["data"]
    assert (data["game"], data["rules_file"], data["evaluator"], data["evaluator_file"]) == (
        FOUR,
        "four-card-poker.standard.toml",
        ident,
        "four_card_vendor.py",
    )
    assert data["rules_sha256"] == load_rules(FOUR).sha256
    # 2,000 of each hand size; every boundary the dealt hands meet; the seeded deals
    assert [(c["name"], c["checked"], c["mismatches"]) for c in data["checks"]] == [
        ("hand categories", 6000, 0),
        ("adjacent rank classes", 2149, 0),
        ("other pairs", 2000, 0),
    ]
    assert [
        (r["requirement"], r["article"], r["verdict"], r["statement"])
        for r in report["requirements"]
    ] == [
        (
            f"evaluator-crosscheck.{FOUR}.{ident}.{check}",
            "Rules: hand ranks",
            "pass",
            f"the evaluator answers every {check.replace('-', ' ')} request as the ranking "
            "its rule file describes does",
        )
        for check in CHECKS
    ]
    scope = section["scope"]
    assert [(s["what"], s["size"], s["population"]) for s in scope["sampled"]] == [
        ("4-card hands asked for their category", 2000, 270_725),
        ("5-card hands asked for their category", 2000, 2_598_960),
        ("6-card hands asked for their category", 2000, 20_358_520),
        ("seeded deals from one deck", 2000, None),
    ]
    assert scope["limitations"][0].startswith("settlements are not checked")
    assert str(ROOT).encode() not in run.report.read_bytes()
    out = _verified(run.report.parent, key, plan, monkeypatch, capsys)
    assert "certified: Four Card Poker (standard rules): vendor evaluator crosscheck" in out
    assert "  verdict: PASS" in out


def test_a_defective_evaluator_fails_the_check_it_breaks_under_its_article(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Five-card poker's category order (three of a kind below a straight): the boundaries
    across categories are answered wrong, under the ranking's article, the defect named."""
    plan = _plan(tmp_path, _vendor("four_card_five_card_order"))
    key = Ed25519PrivateKey.generate()
    run = certify(plan, key, tmp_path / "certificate")
    report = run.data
    assert report["verdict"] == "fail"
    outcomes = {
        r["requirement"].rsplit(".", 1)[1]: (r["article"], r["verdict"])
        for r in report["requirements"]
    }
    assert outcomes["hand-categories"] == ("Rules: hand ranks", "pass")  # names are right
    assert outcomes["adjacent-rank-classes"] == ("Rules: hand ranks", "fail")
    (boundaries,) = [r for r in report["requirements"] if "adjacent" in r["requirement"]]
    assert boundaries["detail"] == (
        "12 wrong of 2,149; Rules: hand ranks (three-of-a-kind, decided by rank of the three): "
        "evaluator reverses the order in 10 of 144 such cases; Rules: hand ranks "
        "(three-of-a-kind, decided by category): evaluator reverses the order in 1 of 1 such "
        "cases; Rules: hand ranks (four-of-a-kind, decided by category): evaluator reverses "
        "the order in 1 of 1 such cases"
    )
    out = _verified(run.report.parent, key, plan, monkeypatch, capsys)
    assert "  verdict: FAIL" in out


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            f'rules = "{FOUR}"\nlibrary = "{VENDOR}"\n',
            r"library: a native evaluator is checked for q-poker or caribbean-stud only",
        ),
        (
            _vendor("four_card", "settlements = 5\n"),
            r"settlements: a game described by its rule file is crosschecked on its hands",
        ),
        (
            f'rules = "mahjong-simple.macau"\nevaluator = "{VENDOR}"\nfunction = "four_card"\n',
            r"rules: mahjong-simple.macau.toml describes no stud game",
        ),
        (
            _vendor("no_such_function", ""),
            r"evaluator: .*no_such_function",
        ),
        (
            _vendor("four_card", "suit_pairs = 100\n"),
            r"suit_pairs: four-card-poker.standard.toml ranks hands rank-only: suits never "
            r"decide a showdown, so none is asked",
        ),
        (
            _vendor("four_card", "other_pairs = 2000001\n"),
            r"other_pairs: 2,000,001: a sample holds at most 2,000,000 requests",
        ),
    ],
)
def test_what_a_described_game_cannot_take_is_refused_when_the_plan_is_read(
    tmp_path: Path, body: str, message: str
) -> None:
    plan = _plan(tmp_path, body)
    pattern = r"plan.toml:\d+: section 1 \(evaluator-crosscheck\): " + message
    with pytest.raises(PlanError, match=pattern):
        load_plan(plan)


def test_an_evaluator_that_cannot_start_is_exit_2_before_anything_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def f(line:\n", encoding="utf-8")  # cannot be imported
    plan = _plan(tmp_path, f'rules = "{FOUR}"\nevaluator = "{broken}"\nfunction = "f"\n')
    out = tmp_path / "out"
    run = run_cli(["certify", str(plan), "-o", str(out)], monkeypatch, capsys)
    assert run.code == 2
    (line,) = [line for line in run.err.splitlines() if line]
    assert line.startswith(f"error: {plan}:")
    assert "section 1 (evaluator-crosscheck): evaluator:" in line
    assert not out.exists()


def test_a_dedicated_games_file_without_game_is_that_games_crosscheck(tmp_path: Path) -> None:
    """As ``crosscheck poker q-poker.macau`` runs it: Q Poker's own checks, settlements
    included, under the statute's articles."""
    plan = _plan(
        tmp_path,
        f'rules = "q-poker.macau"\nevaluator = "{POKER_VENDOR}"\nfunction = "q_poker_statute"\n'
        "hands = 100\nsuit_pairs = 100\nother_pairs = 100\nsettlements = 1\n",
    )
    (section,) = run_sections(load_plan(plan))
    assert section.id == "evaluator-crosscheck/q-poker/vendor_poker.py:q_poker_statute"
    assert section.outcome == "pass"
    assert [c["name"] for c in section.data["checks"]][-1] == "settlements"
    assert {v.article for v in section.verdicts} == {"第八條", "第九條, 第十條"}


def test_where_suits_decide_the_suit_decided_showdowns_are_a_check(tmp_path: Path) -> None:
    """The Four Card Poker file with the statutes' suit tie-breaks: ``suit_pairs`` showdowns
    spread over the categories; an evaluator that ignores suits answers PUSH to every one."""
    text = load_rules(FOUR).path.read_text(encoding="utf-8")
    suits = tmp_path / "four-card-suits.toml"
    suits.write_text(
        text.replace('ordering = { value = "rank-only"', 'ordering = { value = "statute"'),
        encoding="utf-8",
    )
    plan = _plan(
        tmp_path,
        f'rules = "{suits}"\nevaluator = "{VENDOR}"\nfunction = "four_card"\n'
        "hands = 100\nother_pairs = 100\nsuit_pairs = 160\nseed = 3\n",
    )
    (section,) = run_sections(load_plan(plan))
    outcomes = {v.requirement.rsplit(".", 1)[1]: v.outcome for v in section.verdicts}
    assert outcomes["suit-decided-pairs"] == "fail"
    (suit,) = [c for c in section.data["checks"] if c["name"] == "suit-decided pairs"]
    assert (suit["checked"], suit["mismatches"]) == (120, 120)  # 20 in each of 6 categories
    assert ("showdowns decided only by suit (distinct, spread over the categories)", 120) in [
        (s.what, s.size) for s in section.scope.sampled
    ]
