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
from tablecert.cli.common import exit_for
from tablecert.exact import MAX_EXACT_INT
from tablecert.report.canonical import canonical_bytes
from tablecert.report.certify import Certification, certify
from tests.support.plan_support import write_plan

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
    assert _floats(data) == []  # exact values as strings, measured ones as decimal strings


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
    plan = write_plan(
        tmp_path,
        '[certification]\ntitle = "big integers"\nlab = "tests"\n\n[[section]]\n'
        'kind = "mahjong-tables"\ngame = "mahjong-traditional"\n'
        'rules = "mahjong-traditional.macau"\n',
    )
    run = certify(plan, Ed25519PrivateKey.generate(), tmp_path / "out")
    _assert_jcs(run)
    section = json.loads(run.report.read_bytes())["sections"][0]["data"]
    assert section["dealt_hands"] == "4250305029168216000"


@pytest.mark.slow
def test_main_plan_report_is_jcs(tmp_path: Path) -> None:
    main = FIXTURES / "plans" / "main.toml"
    _assert_jcs(certify(main, Ed25519PrivateKey.generate(), tmp_path / "out"))


# One dialect, field by field: each judging or analysing command's --json beside the section of
# report.json that holds the same result (the smoke plan's inputs). Every field the two share
# must be written the same way (same JSON type; an exact value as {"exact": "n/d", "decimal"};
# a measured float as a decimal string), and no --json may hold a float at all.
DIALECT_PAIRS = {
    "hand-categories": ["hands", "q-poker"],
    "par-sheet": ["analyze", "q-poker"],
    "mahjong-tables": ["analyze", "mahjong-simple"],
    "configuration": ["check", str(FIXTURES / "configs/q-poker.casino-c.toml")],
    "shuffler-audit": [
        "audit",
        "shuffler",
        str(FIXTURES / "logs/shuffler-fair-52-small.csv.gz"),
        "--deck",
        "cards52",
    ],
    "rng-audit": ["audit", "rng", str(FIXTURES / "nist/pi.bin"), "--bits", "100000", "-N", "10"],
    "round-audit": [
        "audit",
        "rounds",
        str(FIXTURES / "rounds/q-poker-clean.csv"),
        "--game",
        "q-poker",
    ],
}

#: Fields a command and its section both hold but legitimately name different things by: the
#: report names its input files as signed subjects (base names), the CLI as given.
PATH_FIELDS = {"files", "rules"}

VERDICT_WORDS = {"pass", "fail", "inconclusive", "conforms", "deviates", "valid", "invalid"}


def _encoding(value: Any) -> str:
    """What kind of JSON value this is, as the dialect distinguishes them."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        if value.lstrip("-").isdigit():
            return "int-string"  # I-JSON: an integer beyond 2^53
        if "/" in value and all(p.lstrip("-").isdigit() for p in value.split("/", 1)):
            return "fraction"
        try:
            float(value)
        except ValueError:
            return "text"
        return "decimal"
    if isinstance(value, dict):
        return "exact" if set(value) == {"exact", "decimal"} else "object"
    return "array" if isinstance(value, list) else "null"


def _compare(cli: Any, report: Any, where: str, out: list[str]) -> int:
    """Differences of encoding between the fields both hold (into ``out``); how many compared."""
    if cli is None or report is None:
        return 0  # null stands in for any type (a value that did not apply)
    kinds = {_encoding(cli), _encoding(report)}
    if kinds <= {"int", "int-string"} or kinds <= {"decimal", "int-string"}:
        return 1  # "0" is a decimal string that happens to be integral
    if len(kinds) > 1:
        out.append(
            f"{where}: --json {_encoding(cli)} {cli!r}, report {_encoding(report)} {report!r}"
        )
        return 1
    if isinstance(cli, dict):
        return 1 + sum(
            _compare(cli[k], report[k], f"{where}.{k}", out)
            for k in sorted(set(cli) & set(report))
            if k not in PATH_FIELDS
        )
    if isinstance(cli, list) and cli and report:
        return 1 + sum(
            _compare(c, r, f"{where}[{i}]", out)
            for i, (c, r) in enumerate(zip(cli, report, strict=False))
        )
    return 1


def _floats(value: Any, where: str = "$") -> list[str]:
    if isinstance(value, float):
        return [where]
    if isinstance(value, dict):
        return [f for k, v in value.items() for f in _floats(v, f"{where}.{k}")]
    if isinstance(value, list):
        return [f for i, v in enumerate(value) for f in _floats(v, f"{where}[{i}]")]
    return []


@pytest.mark.parametrize("kind", sorted(DIALECT_PAIRS))
def test_cli_json_and_report_section_speak_one_dialect(smoke: Certification, kind: str) -> None:
    result = CliRunner().invoke(app, [*DIALECT_PAIRS[kind], "--json"])
    assert result.exit_code in (0, 1, 3), result.output
    cli = json.loads(result.stdout)
    report = json.loads(smoke.report.read_bytes())
    [section] = [s for s in report["sections"] if s["kind"] == kind]
    data = section["data"]
    assert _floats(cli) == []
    shared = set(cli) & set(data) - PATH_FIELDS
    # The section is the command's result: most of its top-level fields are the command's.
    assert len(shared) >= 0.6 * len(set(data) - PATH_FIELDS), (sorted(cli), sorted(data))
    differences: list[str] = []
    compared = _compare(cli, data, kind, differences)
    assert differences == []
    assert compared >= len(shared)
    assert section["verdict"] in VERDICT_WORDS
    if "verdict" in cli:
        assert cli["verdict"] in VERDICT_WORDS
        assert cli["verdict"] == data.get("verdict", cli["verdict"])
        # The command's words and the section's agree, by the one exit scheme (conforms: pass).
        assert exit_for(cli["verdict"]).exit_code == exit_for(section["verdict"]).exit_code
        assert result.exit_code == exit_for(cli["verdict"]).exit_code


def test_shuffler_p_values_are_the_reports_exact_strings(smoke: Certification) -> None:
    """The same log gives the same digits in both: "0.166515", never 0.16651512345."""
    args = DIALECT_PAIRS["shuffler-audit"]
    cli = json.loads(CliRunner().invoke(app, [*args, "--json"]).stdout)
    report = json.loads(smoke.report.read_bytes())
    [section] = [s["data"] for s in report["sections"] if s["kind"] == "shuffler-audit"]
    position = next(t for t in cli["tests"] if t["key"] == "position")
    assert (position["statistic"], position["p_value"]) == ("2670.77", "0.166515")
    assert cli["tests"] == section["tests"]
    assert cli["alpha"] == section["alpha"] == "0.01"


def test_probabilities_are_one_form_in_cli_and_report(smoke: Certification) -> None:
    cli = json.loads(CliRunner().invoke(app, ["hands", "q-poker", "--json"]).stdout)
    report = json.loads(smoke.report.read_bytes())
    [section] = [s["data"] for s in report["sections"] if s["kind"] == "hand-categories"]
    assert cli["categories"][0]["probability"] == {"exact": "12/5525", "decimal": "0.002171945701"}
    assert cli["categories"] == section["categories"]


def test_report_json_on_disk_is_the_jcs_bytes(smoke: Certification) -> None:
    """report.json is exactly what is signed: the RFC 8785 bytes of the predicate."""
    data = smoke.report.read_bytes()
    assert data == rfc8785.dumps(json.loads(data))
    payload = base64.b64decode(json.loads(smoke.envelope.read_bytes())["payload"])
    assert rfc8785.dumps(json.loads(payload)["predicate"]) == data
