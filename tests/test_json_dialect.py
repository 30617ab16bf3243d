"""One JSON dialect: every --json output and report.json carry ``schema`` and
``tablecert_version``, follow I-JSON (integers beyond 2^53 as strings), and report.json's
canonical form is RFC 8785 (JCS), checked byte for byte against an independent implementation
(the ``rfc8785`` package)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from typer.testing import CliRunner

import tablecert
from tablecert.cli import app
from tablecert.report.canonical import MAX_EXACT_INT, canonical_bytes, canonical_pretty
from tablecert.report.certify import Certification, certify

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures"

COMMANDS = {
    "hands": ["hands", "q-poker"],
    "compare": ["compare", "q-poker", "9s 9h 5d", "9c 9d 5s"],
    "check": ["check", str(FIXTURES / "configs/q-poker.casino-b.toml"), "--no-returns"],
    "analyze-mahjong-simple": ["analyze", "mahjong-simple"],
    "mahjong-score": ["mahjong", "score", "mahjong-simple", "1m 2m 3m Gd Gd"],
    "audit-shuffler": ["audit", "shuffler", str(FIXTURES / "logs/shuffler-sample.csv")],
    "audit-rng": [
        "audit",
        "rng",
        str(FIXTURES / "nist/pi.bin"),
        "--bits",
        "100000",
        "-t",
        "Frequency",
    ],
    "analyze-sweep": ["analyze", "sweep", "q-poker", "q-poker.macau"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_json_output_names_its_schema_and_version(name: str) -> None:
    result = CliRunner().invoke(app, [*COMMANDS[name], "--json"])
    assert result.exit_code in (0, 1, 3), result.output
    data = json.loads(result.stdout)
    assert data["schema"] == f"tablecert.{name}/1"
    assert data["tablecert_version"] == tablecert.__version__
    if "verdict" in data:
        assert data["verdict"] in ("pass", "fail", "inconclusive", "conforms", "deviates")


def test_integers_beyond_2_53_are_strings_in_cli_json() -> None:
    """C(136, 14) = 4,250,305,029,168,216,000 dealt hands: a JavaScript reader would round it."""
    result = CliRunner().invoke(app, ["analyze", "mahjong-traditional", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["dealt_hands"] == "4250305029168216000"
    assert data["tiles"] == 136

    def ints(value: Any) -> list[int]:
        if isinstance(value, bool):
            return []
        if isinstance(value, int):
            return [value]
        if isinstance(value, dict):
            return [i for v in value.values() for i in ints(v)]
        if isinstance(value, list):
            return [i for v in value for i in ints(v)]
        return []

    assert all(abs(i) <= MAX_EXACT_INT for i in ints(data))


def test_canonical_bytes_are_jcs() -> None:
    """Keys in UTF-16 order (U+1F600, written as the surrogates D83D DE00, sorts before U+FB01,
    unlike code-point order), ECMAScript escapes, and a big integer written as a string, all as
    the independent implementation writes them."""
    data: dict[str, Any] = {
        "\U0001f600": 1,
        "\ufb01": 2,
        "b": [True, None, "tab\there", 'quote"\\', "\u2028", "\x7f\x01"],
        "a": 2**62,
        "é": -(2**53 - 1),
    }
    expected = rfc8785.dumps({**data, "a": str(2**62)})
    assert canonical_bytes(data) == expected
    assert json.loads(canonical_pretty(data)) == json.loads(expected)
    with pytest.raises(rfc8785.IntegerDomainError):
        rfc8785.dumps({"a": 2**62})  # why report data must carry it as a string


def _assert_jcs(run: Certification) -> None:
    report = json.loads(run.report.read_bytes())
    assert report["schema"] == "tablecert.report/1"
    assert report["tablecert_version"] == tablecert.__version__
    assert canonical_bytes(report) == rfc8785.dumps(report)
    envelope = json.loads(run.envelope.read_bytes())
    payload = base64.b64decode(envelope["payload"])
    assert payload == rfc8785.dumps(json.loads(payload))
    assert json.loads(payload)["predicate"] == report


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> Certification:
    out = tmp_path_factory.mktemp("jcs") / "smoke"
    return certify(FIXTURES / "plans" / "smoke.toml", Ed25519PrivateKey.generate(), out)


def test_smoke_plan_report_is_jcs(smoke: Certification) -> None:
    _assert_jcs(smoke)


def test_report_with_an_integer_beyond_2_53_is_jcs(tmp_path: Path) -> None:
    """The main plan's mahjong-traditional tables, alone: dealt_hands = C(136, 14)."""
    plan = tmp_path / "plan.toml"
    plan.write_text(
        '[certification]\ntitle = "big integers"\nlab = "tests"\n\n[[section]]\n'
        'kind = "mahjong-tables"\ngame = "mahjong-traditional"\n'
        'rules = "mahjong-traditional.macau"\n',
        encoding="utf-8",
    )
    run = certify(plan, Ed25519PrivateKey.generate(), tmp_path / "out")
    _assert_jcs(run)
    section = json.loads(run.report.read_bytes())["sections"][0]["data"]
    assert section["dealt_hands"] == "4250305029168216000"


@pytest.mark.slow
def test_main_plan_report_is_jcs(tmp_path: Path) -> None:
    main = FIXTURES / "plans" / "main.toml"
    _assert_jcs(certify(main, Ed25519PrivateKey.generate(), tmp_path / "out"))
