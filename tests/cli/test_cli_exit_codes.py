"""One exit-code scheme for every command, through the real entry point (``run_app``):
0 pass / conforms / valid, 1 fail / deviates / invalid, 2 usage or input error (nothing was
judged), 3 inconclusive, 4 internal error; the JSON of every judging command carries the same
verdict word, and every judging command's --help states its codes."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tablecert.cli import app
from tablecert.cli.common import run_app
from tests.support.mahjong_support import CHICKEN_RECORD
from tests.support.plan_support import write_plan

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
VENDOR = FIXTURES / "evaluators" / "vendor_poker.py"
MAHJONG_VENDOR = FIXTURES / "evaluators" / "vendor_mahjong.py"
CORPUS = FIXTURES / "mahjong" / "corpus-traditional.jsonl"
PASS_ENV = "s3cret passphrase"


class Run:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err

    def json(self) -> dict[str, Any]:
        data = json.loads(self.out)
        assert isinstance(data, dict)
        return data


@pytest.fixture
def tablecert(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., Run]:
    """Run ``tablecert ARGS`` as the installed script does; the exit status and output."""
    monkeypatch.setenv("TABLECERT_KEY_PASSPHRASE", PASS_ENV)

    def run(*args: str | Path) -> Run:
        capsys.readouterr()
        monkeypatch.setattr(sys, "argv", ["tablecert", *map(str, args)])
        with pytest.raises(SystemExit) as exited:
            run_app(app)
        code = exited.value.code
        captured = capsys.readouterr()
        result = Run(0 if code is None else int(code), captured.out, captured.err)
        assert "Traceback" not in result.err, result.err
        return result

    return run


def _internal(monkeypatch: pytest.MonkeyPatch, target: str) -> None:
    """Make ``module.attribute`` raise an unexpected error (a bug) when called."""
    module, _, name = target.rpartition(".")

    def boom(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(f"{module}.{name}", boom)


def _internal_error(result: Run) -> None:
    assert result.code == 4, (result.out, result.err)
    last = result.err.splitlines()[-1]
    assert last.startswith("internal error: RuntimeError: simulated bug (a bug in tablecert")
    assert result.err.count("internal error") == 1


def _config(tmp_path: Path, name: str, body: str, game: str = "q-poker") -> Path:
    path = tmp_path / name
    path.write_text(f'[submission]\ngame = "{game}"\n{body}', encoding="utf-8")
    return path


# --- check ----------------------------------------------------------------------------------


def test_check(
    tablecert: Callable[..., Run], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok = tablecert("check", _config(tmp_path, "ok.toml", "[pair_plus]\nflush = 4\n"), "--json")
    assert (ok.code, ok.json()["verdict"]) == (0, "conforms")
    bad = tablecert("check", _config(tmp_path, "bad.toml", "[pair_plus]\nflush = 3\n"), "--json")
    assert (bad.code, bad.json()["verdict"]) == (1, "deviates")
    nothing = tablecert("check", _config(tmp_path, "none.toml", ""), "--json", "--no-returns")
    assert (nothing.code, nothing.json()["verdict"]) == (3, "inconclusive")
    nan = tablecert("check", _config(tmp_path, "nan.toml", "[pair_plus]\nflush = nan\n"))
    assert nan.code == 2
    assert (
        nan.err
        == f"error: {tmp_path / 'nan.toml'}:4: pair_plus.flush: NaN is not a finite number\n"
    )
    assert tablecert("check", tmp_path / "missing.toml").code == 2
    assert tablecert("check").code == 2
    _internal(monkeypatch, "tablecert.cli.check.check_configuration")
    _internal_error(tablecert("check", tmp_path / "ok.toml"))


def test_check_royal_outside_the_range_is_judged_not_refused(
    tablecert: Callable[..., Run], tmp_path: Path
) -> None:
    """Before: `error: <the statute's rule file>:78: ... must be within 50..100`, exit 1."""
    path = _config(tmp_path, "r.toml", "[play.raise_pays]\nroyal-flush = 120\n", "caribbean-stud")
    result = tablecert("check", path, "--json")
    assert result.code == 1, result.err
    data = result.json()
    assert data["verdict"] == "deviates"
    ante = data["returns"][0]
    assert ante["house_edge_submitted"] is not None
    assert ante["not_computed"] is None


# --- crosscheck -----------------------------------------------------------------------------

SMALL = ("--hands", "200", "--suit-pairs", "200", "--other-pairs", "100")


def test_crosscheck_poker(
    tablecert: Callable[..., Run], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ("crosscheck", "poker", "q-poker", *SMALL, "--json")
    good = tablecert(*base, "--evaluator", f"{VENDOR}:q_poker_statute")
    assert (good.code, good.json()["verdict"]) == (0, "conforms")
    bad = tablecert(*base, "--evaluator", f"{VENDOR}:q_poker_pushes_ties")
    assert (bad.code, bad.json()["verdict"]) == (1, "deviates")
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\ndef f(request):\n    sys.exit(0)\n")
    failed = tablecert(*base, "--evaluator", f"{exits}:f")
    assert (failed.code, failed.json()["verdict"]) == (1, "deviates")
    checks = failed.json()["checks"]
    assert isinstance(checks, list)
    assert "evaluator raised SystemExit" in checks[0]["error"]
    text = tablecert(*base[:-1], "--evaluator", f"{exits}:f")
    assert "verdict: DEVIATES" in text.out
    assert "evaluator raised SystemExit" in text.out
    nothing = tablecert(
        "crosscheck", "poker", "q-poker", "--hands", "200", "--suit-pairs", "200",
        "--other-pairs", "0", "--json", "--evaluator", f"{VENDOR}:q_poker_statute",
    )  # fmt: skip
    assert (nothing.code, nothing.json()["verdict"]) == (3, "inconclusive")
    assert tablecert(*base, "--evaluator", "nonsense").code == 2
    assert tablecert("crosscheck", "poker", "q-poker", "--hands", "-3").code == 2
    _internal(monkeypatch, "tablecert.conformance.poker_crosscheck.crosscheck")
    _internal_error(tablecert(*base, "--evaluator", f"{VENDOR}:q_poker_statute"))


def test_crosscheck_mahjong(
    tablecert: Callable[..., Run], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    base = ("crosscheck", "mahjong", "mahjong-traditional", "--corpus", CORPUS, "--json")
    good = tablecert(*base, "--scorer", f"{MAHJONG_VENDOR}:statute")
    assert (good.code, good.json()["verdict"]) == (0, "conforms")
    bad = tablecert(*base, "--scorer", f"{MAHJONG_VENDOR}:uncapped")
    assert (bad.code, bad.json()["verdict"]) == (1, "deviates")
    exits = tmp_path / "exits.py"
    exits.write_text("def f(record):\n    raise KeyboardInterrupt\n")
    failed = tablecert(*base, "--scorer", f"{exits}:f")
    assert (failed.code, failed.json()["verdict"]) == (1, "deviates")
    assert "KeyboardInterrupt" in str(failed.json()["error"])
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert (
        tablecert(*base[:3], "--corpus", empty, "--scorer", f"{MAHJONG_VENDOR}:statute").code == 2
    )
    _internal(monkeypatch, "tablecert.conformance.mahjong_crosscheck.crosscheck")
    _internal_error(tablecert(*base, "--scorer", f"{MAHJONG_VENDOR}:statute"))


# --- audit shuffler -------------------------------------------------------------------------


def _log(tablecert: Callable[..., Run], tmp_path: Path, model: str, decks: int) -> Path:
    path = tmp_path / f"{model.replace(':', '-')}-{decks}.csv"
    made = tablecert(
        "simulate", "shuffler", "--model", model, "--shuffles", str(decks), "--seed", "5",
        "-o", path, "--force",
    )  # fmt: skip
    assert made.code == 0, made.err
    return path


def test_audit_shuffler(
    tablecert: Callable[..., Run], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    audit = ("audit", "shuffler", "--input-order", "logged", "--json")
    fair = tablecert(*audit, _log(tablecert, tmp_path, "fair", 300))
    assert (fair.code, fair.json()["verdict"]) == (0, "pass")
    small = tablecert(*audit, _log(tablecert, tmp_path, "fair", 200))
    assert (small.code, small.json()["verdict"]) == (3, "inconclusive")
    assert small.json()["shuffles_to_conclude"] == 260
    # Rejected by Holm on 100 decks: FAIL, not "inconclusive (too few shuffles)".
    riffles = tablecert(*audit, _log(tablecert, tmp_path, "riffle:7", 100))
    assert riffles.json()["holm_rejected"]
    assert (riffles.code, riffles.json()["verdict"]) == (1, "fail")
    assert riffles.json()["verdict_text"] == "FAIL (randomness)"
    text = tablecert(*audit[:-1], _log(tablecert, tmp_path, "riffle:7", 100))
    assert "verdict: FAIL (randomness)" in text.out
    assert tablecert(*audit, tmp_path / "missing.csv").code == 2
    log = _log(tablecert, tmp_path, "fair", 30)
    for option, value in [
        ("--alpha", "nan"),
        ("--alpha", "-1"),
        ("--alpha", "0"),
        ("--alpha", "1"),
        ("--confidence", "0"),
        ("--confidence", "1"),
        ("--confidence", "5"),
        ("--confidence", "nan"),
    ]:
        refused = tablecert(*audit, log, option, value)
        assert refused.code == 2, (option, value, refused.out)
        assert "strictly between 0 and 1" in refused.err
        assert option in refused.err
    _internal(monkeypatch, "tablecert.audit.shuffler.audit_shuffler")
    _internal_error(tablecert(*audit, log))


def test_audit_rng(
    tablecert: Callable[..., Run], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    zeros = tmp_path / "zeros.bin"
    zeros.write_bytes(bytes(12_500))
    rng = ("audit", "rng", "--bits", "100000", "--json")
    good = tablecert(*rng, FIXTURES / "nist" / "e.bin", "-N", "2")
    assert (good.code, good.json()["verdict"]) == (0, "pass")
    # One sequence of zeros: FAIL (no pass count can reject with one sequence; the p-values do).
    bad = tablecert(*rng, zeros)
    assert (bad.code, bad.json()["verdict"]) == (1, "fail")
    # No test judged at this length: nothing could reject.
    none = tablecert(*rng, zeros, "-t", "LinearComplexity")
    assert (none.code, none.json()["verdict"]) == (3, "inconclusive")
    eight = tmp_path / "eight.bin"
    eight.write_bytes(b"01234567")
    assert tablecert("audit", "rng", eight).code == 2
    assert tablecert("audit", "rng", zeros, "-n", "1").code == 2
    for option, value in [("--alpha", "nan"), ("--alpha", "1"), ("--confidence", "0")]:
        refused = tablecert(*rng, zeros, option, value)
        assert refused.code == 2, (option, value)
        assert "strictly between 0 and 1" in refused.err
    _internal(monkeypatch, "tablecert.cli.audit.rng.decide")
    _internal_error(tablecert(*rng, zeros))


def test_audit_shuffler_all_bad_records_fail_with_their_report(
    tablecert: Callable[..., Run], tmp_path: Path
) -> None:
    """Every record bad (empty device ids): FAIL (integrity) with every bad record listed;
    before, a ZeroDivisionError in the serial-correlation test lost the report."""
    good = _log(tablecert, tmp_path, "fair", 12)
    lines = good.read_text().splitlines()
    header = lines[0].split(",")
    column = header.index("device_id")
    bad = tmp_path / "bad.csv"
    rows = [line.split(",", column + 1) for line in lines[1:]]
    bad.write_text(
        "\n".join([lines[0], *(",".join([*r[:column], "", *r[column + 1 :]]) for r in rows)]) + "\n"
    )
    result = tablecert("audit", "shuffler", bad, "--json")
    assert result.code == 1, result.err
    data = result.json()
    assert (data["verdict"], data["verdict_text"]) == ("fail", "FAIL (integrity)")
    integrity = data["integrity"]
    assert isinstance(integrity, dict)
    assert (integrity["records"], integrity["bad_count"]) == (0, 12)
    assert [r["line"] for r in integrity["bad_records"]] == list(range(2, 14))
    text = tablecert("audit", "shuffler", bad)
    assert "integrity: 12 bad records" in text.out
    assert "verdict: FAIL (integrity)" in text.out


# --- certify and verify -----------------------------------------------------------------------


def _plan(tmp_path: Path, sections: str) -> Path:
    return write_plan(
        tmp_path,
        '[certification]\ntitle = "exit codes"\nlab = "tests"\n\n' + sections,
    )


def _configuration_section(path: Path) -> str:
    return f'[[section]]\nkind = "configuration"\nfile = "{path}"\nreturns = false\n'


def test_certify_and_verify(
    tablecert: Callable[..., Run], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ok = _config(tmp_path, "ok.toml", "[pair_plus]\nflush = 4\n")
    bad = _config(tmp_path, "bad.toml", "[pair_plus]\nflush = 3\n")
    none = _config(tmp_path, "none.toml", "")
    runs = {}
    for name, config, code, verdict in [
        ("pass", ok, 0, "pass"),
        ("fail", bad, 1, "fail"),
        ("inconclusive", none, 3, "inconclusive"),
    ]:
        plan = _plan(tmp_path, _configuration_section(config))
        out = tmp_path / f"out-{name}"
        result = tablecert("certify", plan, "-o", out, "--json")
        assert (result.code, result.json()["verdict"]) == (code, verdict), result.err
        assert (out / "report.json").is_file()  # written for every verdict
        runs[name] = out
    plan = _plan(tmp_path, _configuration_section(tmp_path / "missing.toml"))
    assert tablecert("certify", plan, "-o", tmp_path / "out-missing").code == 2
    assert not (tmp_path / "out-missing").exists()

    key = tmp_path / "keys" / "lab"
    assert tablecert("keys", "generate", "-o", key).code == 0
    assert tablecert("keys", "generate", "-o", key).code == 2  # never overwrites a key
    signed = tmp_path / "out-signed"
    plan = _plan(tmp_path, _configuration_section(ok))
    assert tablecert("certify", plan, "-o", signed, "--key", key).code == 0
    envelope = signed / "report.intoto.dsse.json"
    pub = key.with_name(key.name + ".pub")
    valid = tablecert("verify", envelope, "--pubkey", pub, "--json")
    assert (valid.code, valid.json()["verdict"]) == (0, "valid")
    other = tmp_path / "keys" / "other"
    assert tablecert("keys", "generate", "-o", other).code == 0
    invalid = tablecert("verify", envelope, "--pubkey", other.with_name("other.pub"), "--json")
    assert (invalid.code, invalid.json()["verdict"]) == (1, "invalid")
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    assert tablecert("verify", garbage, "--pubkey", pub).code == 2  # malformed input
    assert tablecert("verify", tmp_path / "none.json", "--pubkey", pub).code == 2
    _internal(monkeypatch, "tablecert.report.certify.certify")
    _internal_error(tablecert("certify", plan, "-o", tmp_path / "out-bug"))
    _internal(monkeypatch, "tablecert.cli.keys.generate_key_pair")
    _internal_error(tablecert("keys", "generate", "-o", tmp_path / "keys" / "third"))


def test_certify_with_an_evaluator_that_exits(
    tablecert: Callable[..., Run], tmp_path: Path
) -> None:
    """sys.exit(0) in the vendor's evaluator: a failed, signed verdict (exit 1), not exit 0
    with nothing written."""
    exits = tmp_path / "exits.py"
    exits.write_text("import sys\ndef f(request):\n    sys.exit(0)\n")
    plan = _plan(
        tmp_path,
        '[[section]]\nkind = "evaluator-crosscheck"\ngame = "q-poker"\n'
        f'rules = "q-poker.macau"\nevaluator = "{exits}"\nfunction = "f"\n'
        "hands = 50\nsuit_pairs = 50\nother_pairs = 50\nsettlements = 1\n",
    )
    out = tmp_path / "out"
    result = tablecert("certify", plan, "-o", out, "--json")
    assert (result.code, result.json()["verdict"]) == (1, "fail"), result.err
    report = json.loads((out / "report.json").read_text())
    details = [r["detail"] for r in report["requirements"] if r["verdict"] == "fail"]
    assert any("evaluator raised SystemExit" in d for d in details), details


@pytest.mark.parametrize(
    ("key", "value"),
    [("hands", "0"), ("other_pairs", "-5"), ("suit_pairs", "0"), ("settlements", "0")],
)
def test_certify_refuses_counts_below_one(
    tablecert: Callable[..., Run], tmp_path: Path, key: str, value: str
) -> None:
    """A crosscheck of nothing used to certify `pass` with "0 wrong of 0"."""
    plan = _plan(
        tmp_path,
        '[[section]]\nkind = "evaluator-crosscheck"\ngame = "q-poker"\n'
        f'rules = "q-poker.macau"\nevaluator = "{VENDOR}"\nfunction = "q_poker_statute"\n'
        f"{key} = {value}\n",
    )
    result = tablecert("certify", plan, "-o", tmp_path / "out")
    assert result.code == 2
    assert result.err.strip() == (
        f"error: {plan}:11: section 1 (evaluator-crosscheck): {key}: must be at least 1, "
        f"got {value}"
    )
    assert not (tmp_path / "out").exists()


# --- commands that compute, not judge: 0 done, 2 input error, 4 bug --------------------------


@pytest.mark.parametrize(
    ("good", "bad", "patched"),
    [
        (
            ("hands", "q-poker", "--json"),
            ("hands", "blackjack"),
            "tablecert.cli.poker.category_table",
        ),
        (
            ("compare", "q-poker", "9s 9h 5d", "9c 9d 5s"),
            ("compare", "q-poker", "1x As Kd", "2s 3h 4d"),
            "tablecert.poker.decide",
        ),
        (
            ("analyze", "q-poker", "--json"),
            ("analyze", "q-poker", "--rules", "no-such-rules"),
            "tablecert.games.q_poker.analyze",
        ),
        (
            ("mahjong", "score", "mahjong-simple", "1m 2m 3m Gd Gd", "--json"),
            ("mahjong", "score", "mahjong-simple", "1m 2m 3m Gd"),
            "tablecert.mahjong.score",
        ),
        (
            ("simulate", "shuffler", "--model", "fair", "--shuffles", "3", "-o", "{tmp}/s.csv"),
            ("simulate", "shuffler", "--model", "nonsense", "--shuffles", "3", "-o", "{tmp}/t.csv"),
            "tablecert.cli.simulate.shuffler.write_log",
        ),
    ],
)
def test_computing_commands(
    tablecert: Callable[..., Run],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    good: tuple[str, ...],
    bad: tuple[str, ...],
    patched: str,
) -> None:
    def fill(args: tuple[str, ...], folder: Path = tmp_path) -> list[str]:
        return [a.replace("{tmp}", str(folder)) for a in args]

    assert tablecert(*fill(good)).code == 0
    refused = tablecert(*fill(bad))
    assert refused.code == 2, refused.err
    assert refused.err.count("\n") >= 1
    _internal(monkeypatch, patched)
    # A fresh folder: outputs are never overwritten, so the good run's file would be an input
    # error before the patched bug is reached.
    again = tmp_path / "again"
    again.mkdir()
    _internal_error(tablecert(*fill(good, again)))


def test_mahjong_settle(
    tablecert: Callable[..., Run], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = tmp_path / "game.json"
    record.write_text(json.dumps(CHICKEN_RECORD))
    assert tablecert("mahjong", "settle", record, "--json").code == 0
    broken = tmp_path / "broken.json"
    broken.write_text('{"game": "mahjong-traditional", "game": "x"}')
    assert tablecert("mahjong", "settle", broken).code == 2
    _internal(monkeypatch, "tablecert.mahjong.settle_record")
    _internal_error(tablecert("mahjong", "settle", record))


def test_mahjong_replay(
    tablecert: Callable[..., Run], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """0 valid play, 1 a violation (its event and article), 2 malformed, 4 internal error."""
    games = FIXTURES / "mahjong"
    legal = tmp_path / "legal.json"
    legal.write_text(games.joinpath("games-traditional.jsonl").read_text().splitlines()[0])
    valid = tablecert("mahjong", "replay", legal, "--json")
    assert (valid.code, valid.json()["verdict"]) == (0, "valid")
    item = json.loads(games.joinpath("games-illegal-traditional.jsonl").read_text().splitlines()[0])
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps(item["record"]))
    invalid = tablecert("mahjong", "replay", illegal, "--json")
    assert (invalid.code, invalid.json()["verdict"]) == (1, "invalid")
    assert invalid.json()["violations"][0]["article"] == item["breaks"]
    broken = tmp_path / "broken.json"
    broken.write_text('{"game": "mahjong-traditional", "limit": "25/50", "deal": {}, "play": 1}')
    refused = tablecert("mahjong", "replay", broken)
    assert refused.code == 2
    assert refused.err.endswith("broken.json:1: deal.E: missing\n"), refused.err
    _internal(monkeypatch, "tablecert.cli.mahjong.replay_game")
    _internal_error(tablecert("mahjong", "replay", legal))


@pytest.mark.parametrize(
    "command",
    [
        ("mahjong", "replay"),
        ("check",),
        ("crosscheck", "poker"),
        ("crosscheck", "mahjong"),
        ("audit", "shuffler"),
        ("certify",),
        ("verify",),
        ("audit", "rng"),
    ],
)
def test_judging_commands_state_their_exit_codes(
    tablecert: Callable[..., Run], command: tuple[str, ...]
) -> None:
    text = " ".join(tablecert(*command, "--help").out.split())
    assert "Exit status: 0 " in text
    for code in ("1 ", "2 usage or input error", "4 internal error"):
        assert code in text, (command, code)
