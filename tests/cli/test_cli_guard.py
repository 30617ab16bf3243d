"""One guard for every command: every command of the CLI, found by walking the Typer
app (a new command or option is covered without editing this file), run in-process over
malformed values of every option and over malformed inputs of every kind (logs, mahjong
records, evaluator answers, plans, rule files, configurations, envelopes, keys).

What every run must show:

- never a traceback and never exit 4 (an internal error is a bug, never a verdict);
- exit 2 (usage or input error, nothing judged) with exactly one ``error:`` line, the last
  line on stderr, naming the option (for a bad option value) or the file (for a bad input);
- a value that is malformed for every option of its type (NaN, infinities, 1e400, fractions
  with a zero denominator, text where a number goes, ...) is always exit 2;
- after exit 2 the working folder is as it was: no output file left behind.

The malformed values come from tables generated per option type plus Hypothesis strategies
(text with control characters, huge and negative numbers); the malformed files are mutations
of the bundled, valid ones (a value replaced by junk, bytes inserted, truncation, encodings).
Every case runs in a fresh temporary folder; the whole guard takes about a minute.
"""

from __future__ import annotations

import contextlib
import gzip
import importlib.util
import os
import re
import resource
import shutil
import tempfile
import typing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer.main
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tablecert.cli import app
from tests.support.cli_support import Run, certify_small_plan, tablecert

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures"
EVAL = FIX / "evaluators"
PASSPHRASE = {"TABLECERT_KEY_PASSPHRASE": "guard passphrase"}

# ------------------------------------------------------------------ the malformed values

#: Not a number of any kind: refused by every int and float option.
NOT_A_NUMBER = [
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "1e400",
    "-1e400",
    "1/0",
    "6/0",
    "",
    " ",
    "abc",
    "0x1f",
    "1,5",
    "\x1b[31m1",
    "1\n2",
    "½",
]
#: Not a whole number: refused by every int option (floats may accept them).
NOT_WHOLE = ["1.5", "-0.5", "2e3"]
#: Numbers that may or may not be valid for a given option: never a traceback.
NUMBER_EDGES = [
    "-1",
    "0",
    "-0",
    "1e-400",
    "9" * 5001,
    "-" + "9" * 400,
    "18446744073709551616",
    "-9223372036854775809",
    "99999999999",
]
#: Text for str options: control characters, markup, bidi overrides, NUL, very long, paths.
TEXT_JUNK = [
    "",
    " ",
    "\x1b[2J\x1b[31mred",
    "line\nbreak",
    "tab\there",
    "\u202eevil",
    "[bold]markup[/]",
    "a" * 5000,
    "nan",
    "../" * 8,
    "{}",
    "'",
    "cmd:'unbalanced",
    "file:.",
    "py:",
    ":",
    "x:y",
]
#: Paths: empty, folders, devices, missing parents, a file where a folder goes.
PATH_JUNK = [
    "",
    ".",
    "/",
    "/dev/null",
    "/dev/full",
    "/dev/zero",
    "/proc/self/mem",
    "missing/sub/file",
    "afile/sub",
    "\x1b[31mred",
]


def junk_text() -> st.SearchStrategy[str]:
    """Arbitrary text, biased to control characters and separators."""
    return st.text(
        st.one_of(
            st.characters(codec="utf-8", exclude_characters="\x00"),
            st.sampled_from("\x1b\n\r\t\v\f\u00a0\u202e[]/:,;=\"'"),
        ),
        max_size=40,
    )


# ------------------------------------------------------------------ every command, found


@dataclass(frozen=True)
class Option:
    command: tuple[str, ...]
    flag: str
    kind: type

    def __str__(self) -> str:
        return f"{' '.join(self.command)} {self.flag}"


def _leaves(cmd: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    if hasattr(cmd, "list_commands"):  # a group (lazy groups load their commands here)
        ctx = cmd.make_context(path[-1] if path else "tablecert", [], resilient_parsing=True)
        for name in sorted(cmd.list_commands(ctx)):
            sub = cmd.get_command(ctx, name)
            if sub is not None and not getattr(sub, "hidden", False):
                yield from _leaves(sub, (*path, name))
    else:
        yield path, cmd


def _kind(annotation: Any) -> type:
    """int, float, Path or str: what an option's annotation (``X | None`` too) takes."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    found: type = next((k for k in (int, float, Path) if args[0] is k), str)
    return found


def _options() -> list[Option]:
    found = []
    for path, cmd in _leaves(typer.main.get_command(app), ()):
        for param in cmd.params:
            if param.param_type_name != "option" or param.hidden or param.is_flag:
                continue
            if param.name in ("cluster", "workers"):  # Dask: tested in test_distributed
                continue
            kind = _kind(param.type_descriptor.annotation)
            found.append(Option(path, max(param.opts, key=len), kind))
    return found


COMMANDS = [path for path, _ in _leaves(typer.main.get_command(app), ())]
OPTIONS = _options()


@dataclass(frozen=True)
class Inputs:
    """Files every base invocation can use (absolute paths, made once per session)."""

    folder: Path
    envelope: Path
    signer_pub: Path
    key: Path
    plan: Path


@pytest.fixture(scope="session")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    folder = tmp_path_factory.mktemp("guard-inputs")
    plan = certify_small_plan(folder)
    run = tablecert(["keys", "generate", "-o", str(folder / "keys" / "lab")], env=PASSPHRASE)
    assert run.code == 0, run.stderr
    return Inputs(
        folder,
        folder / "report" / "report.intoto.dsse.json",
        folder / "report" / "signer.pub",
        folder / "keys" / "lab",
        plan,
    )


def base(command: tuple[str, ...], given: Inputs) -> list[str] | None:
    """A quick, valid invocation of ``command`` (outputs relative to the working folder);
    ``None`` for a command too slow to run once per malformed value."""
    f = FIX
    table: dict[tuple[str, ...], list[str] | None] = {
        ("hands",): ["hands", "q-poker"],
        ("compare",): ["compare", "q-poker", "9s 9h 5d", "9c 9d 5s"],
        ("certify",): ["certify", str(given.plan), "-o", "out"],
        ("sign",): [
            "sign",
            "envelope.json",
            "--key",
            str(given.key),
            "--pubkey",
            str(given.signer_pub),
        ],
        ("verify",): ["verify", str(given.envelope), "--pubkey", str(given.signer_pub)],
        ("check",): ["check", str(f / "configs" / "q-poker.casino-c.toml")],
        ("keys", "generate"): ["keys", "generate", "-o", "k/lab"],
        ("keys", "export"): ["keys", "export", str(given.signer_pub)],
        ("crosscheck", "poker"): [
            "crosscheck",
            "poker",
            "q-poker",
            "--evaluator",
            f"{EVAL / 'vendor_poker.py'}:q_poker_statute",
            "--hands",
            "20",
            "--suit-pairs",
            "20",
            "--other-pairs",
            "20",
        ],
        ("crosscheck", "mahjong"): [
            "crosscheck",
            "mahjong",
            "mahjong-simple",
            "--scorer",
            f"{EVAL / 'vendor_mahjong.py'}:statute",
            "--generate",
            "20",
        ],
        ("analyze", "q-poker"): ["analyze", "q-poker"],
        ("analyze", "caribbean-stud"): None,
        ("analyze", "sweep"): [
            "analyze",
            "sweep",
            "q-poker",
            str(f / "rules" / "q-poker.standard.toml"),
        ],
        ("analyze", "diff"): ["analyze", "diff", "q-poker.macau", "q-poker.standard"],
        ("analyze", "game"): ["analyze", "game", "q-poker.standard"],
        ("rules", "check"): ["rules", "check", "q-poker.macau"],
        ("analyze", "mahjong-traditional"): None,
        ("analyze", "mahjong-simple"): ["analyze", "mahjong-simple"],
        ("mahjong", "score"): ["mahjong", "score", "mahjong-simple", "1m 2m 3m Gd Gd"],
        ("mahjong", "settle"): ["mahjong", "settle", "{corpus}"],
        ("mahjong", "replay"): ["mahjong", "replay", "{game}"],
        ("mahjong", "analyze"): ["mahjong", "analyze", "mahjong-simple"],
        ("audit", "shuffler"): ["audit", "shuffler", str(f / "logs" / "shuffler-sample.csv")],
        ("audit", "rng"): [
            "audit",
            "rng",
            str(f / "nist" / "pi.bin"),
            "--bits",
            "1000",
            "--sequences",
            "4",
        ],
        ("audit", "rounds"): ["audit", "rounds", "{rounds}", "--game", "q-poker"],
        ("simulate", "rounds"): [
            "simulate",
            "rounds",
            "--game",
            "q-poker",
            "--rounds",
            "20",
            "-o",
            "sim.csv",
        ],
        ("simulate", "shuffler"): [
            "simulate",
            "shuffler",
            "--model",
            "fair",
            "--shuffles",
            "3",
            "-o",
            "sim.csv",
        ],
    }
    args = table[command]
    if args is None:
        return None
    record = '{"game": "mahjong-simple", "hand": "1m 2m 3m Gd Gd", "winner": "S", "limit": "100/200", "context": {"round_wind": "E", "win_by": "self-drawn"}}'  # noqa: E501
    corpus = given.folder / "record.json"
    if not corpus.exists():
        corpus.write_text(record + "\n")
    game = given.folder / "game.json"
    if not game.exists():
        lines = (FIX / "mahjong" / "games-simple.jsonl").read_text(encoding="utf-8").splitlines()
        game.write_text(lines[0] + "\n", encoding="utf-8")
    rounds = given.folder / "rounds.jsonl"
    if not rounds.exists():
        run = tablecert(
            [
                "simulate",
                "rounds",
                "--game",
                "q-poker",
                "-o",
                str(rounds),
                "--rounds",
                "50",
                "--seed",
                "1",
            ]
        )
        assert run.code == 0, run.stderr
    files = {"{corpus}": str(corpus), "{game}": str(game), "{rounds}": str(rounds)}
    return [files.get(a, a) for a in args]


@contextlib.contextmanager
def memory_cap(extra: int = 3 << 30) -> Iterator[None]:
    """Cap this process's address space at its current size plus ``extra`` while a command
    runs: a reader that swallows /dev/zero fails here (MemoryError, exit 4) instead of taking
    the machine down."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    with open("/proc/self/statm") as statm:
        size = int(statm.read().split()[0]) * resource.getpagesize()
    cap = size + extra if hard == resource.RLIM_INFINITY else min(hard, size + extra)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


@contextlib.contextmanager
def workdir(given: Inputs) -> Iterator[Path]:
    """A fresh working folder holding ``afile`` (a file where a folder is expected) and a copy
    of the signed envelope (``sign`` adds to the envelope it is given)."""
    with tempfile.TemporaryDirectory(prefix="guard-") as name:
        here = Path(name)
        (here / "afile").write_text("x\n")
        shutil.copyfile(given.envelope, here / "envelope.json")
        saved = os.getcwd()
        os.chdir(here)
        try:
            yield here
        finally:
            os.chdir(saved)


def contents(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


def judged(run: Run, *, names: Sequence[str] = (), always_invalid: bool = False) -> None:
    """The guard's assertions on one run (see the module note)."""
    both = run.stdout + run.stderr
    tail = run.stderr[-400:]
    assert "Traceback" not in both, both[-400:]
    assert run.code != 4, tail
    assert run.code in (0, 1, 2, 3), (run.code, tail)
    if always_invalid:
        assert run.code == 2, (run.code, run.stdout[-300:], tail)
    if run.code == 2:
        lines = run.error_lines
        errors = [line for line in lines if line.startswith("error:")]
        assert len(errors) == 1, tail
        assert lines[-1] == errors[0], tail
        if names:
            flat = errors[0].replace(",", "")
            assert any(name in flat for name in names), (names, errors[0][:300])


def _names(option: Option, value: str, always_invalid: bool) -> list[str]:
    """What the error line must mention: the option; or, for a value only out of range for
    this command, the value itself (its longest plain run, as control characters are shown
    escaped); nothing for a value with no plain run of 3 (only the one-line rule applies)."""
    if always_invalid:
        return [option.flag]
    if option.kind is not int and option.kind is not float:
        return []  # text is shown escaped or normalised: only the one-line rule applies
    runs = sorted(re.findall(r"[A-Za-z0-9._/-]{3,}", value), key=len)
    if not runs:
        return []
    return [option.flag, runs[-1][:40]]


def run_with(option: Option, value: str, given: Inputs, *, always_invalid: bool) -> None:
    args = base(option.command, given)
    assert args is not None
    with workdir(given) as here:
        before = contents(here)
        with memory_cap():
            run = tablecert([*args, option.flag, value], env=PASSPHRASE)
        # A value malformed for its type must be blamed on the option; one that is only out
        # of range for this command may be named by its value instead.
        judged(run, names=_names(option, value, always_invalid), always_invalid=always_invalid)
        if run.code == 2:
            assert contents(here) == before, f"{option} {value!r} left files behind"


def test_every_command_is_in_the_guard(inputs: Inputs) -> None:
    for command in COMMANDS:
        base(command, inputs)  # a KeyError here: add the new command to `base`


def test_base_invocations_are_valid(inputs: Inputs) -> None:
    """Each base invocation runs and judges (else the malformed cases prove nothing)."""
    for command in COMMANDS:
        args = base(command, inputs)
        if args is None:
            continue
        with workdir(inputs):
            run = tablecert(args, env=PASSPHRASE)
        assert run.code in (0, 1, 3), (command, run.code, run.stderr)


NUMERIC = [o for o in OPTIONS if o.kind in (int, float)]
OTHER = [o for o in OPTIONS if o.kind not in (int, float)]


@pytest.mark.parametrize("option", NUMERIC, ids=str)
def test_numbers_that_are_not_numbers(option: Option, inputs: Inputs) -> None:
    if base(option.command, inputs) is None:
        pytest.skip("command too slow for the guard; its options are checked elsewhere")
    refused = NOT_A_NUMBER + (NOT_WHOLE if option.kind is int else [])
    for value in refused:
        run_with(option, value, inputs, always_invalid=True)


@pytest.mark.parametrize("option", NUMERIC, ids=str)
@given(
    value=st.one_of(
        st.sampled_from(NUMBER_EDGES),
        # zero, negative or absurdly large: sizes in between are real work, not malformed
        st.integers(max_value=0).map(str),
        st.integers(min_value=10**12).map(str),
    )
)
@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
def test_number_edges(option: Option, inputs: Inputs, value: str) -> None:
    if base(option.command, inputs) is None:
        pytest.skip("command too slow for the guard; its options are checked elsewhere")
    run_with(option, value, inputs, always_invalid=False)


@pytest.mark.parametrize("option", OTHER, ids=str)
@given(data=st.data())
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
def test_text_and_paths(option: Option, inputs: Inputs, data: st.DataObject) -> None:
    if base(option.command, inputs) is None:
        pytest.skip("command too slow for the guard; its options are checked elsewhere")
    pool = PATH_JUNK if option.kind is Path else TEXT_JUNK
    value = data.draw(st.one_of(st.sampled_from(pool), junk_text()))
    assume("\x00" not in value)  # argv cannot carry a NUL byte
    run_with(option, value, inputs, always_invalid=False)


# ------------------------------------------------------------ malformed inputs of every kind

#: Junk spliced into a valid input: NUL, invalid and overlong UTF-8, a BOM, NaN and huge
#: numbers, control characters, deep nesting, duplicate keys (plain and dotted), line breaks.
JUNK_BYTES = [
    b"\x00",
    b"\xff\xfe",
    b"\xc0\x80",
    b"\xef\xbb\xbf",
    b"nan",
    b"inf",
    b"1e400",
    b"9" * 5001,
    b"-1",
    b"1/0",
    b"\x1b[2J",
    "\u202e".encode(),
    b'"',
    b"'",
    b"[" * 2000,
    b"{" * 2000,
    b"\n\n\n",
    b"\r",
    b"\t\v\f",
    b"=",
    b"a = 1\na = 2\n",
    b'"x.y" = 1\n[x]\ny = 2\n',
    b'{"a": 1, "a": 2}',
    b"\xe2\x80\xa8",
    b"[x]\n[x]\n",
    b",,,,",
    b"As-Kh-Td",
    b"1s",
    b"\xa0",
]


@st.composite
def mutated(draw: st.DrawFn, original: bytes) -> bytes:
    """A valid input with junk spliced in, cut short, re-encoded or compressed."""
    how = draw(st.sampled_from(["splice", "splice", "splice", "truncate", "utf16", "gzip"]))
    if how == "truncate":
        return original[: draw(st.integers(0, len(original)))]
    if how == "utf16":
        return original.decode("utf-8").encode("utf-16")
    if how == "gzip":
        return gzip.compress(original, mtime=0) + draw(st.sampled_from([b"", b"\x00" * 8]))
    start = draw(st.integers(0, len(original)))
    end = draw(st.integers(start, min(len(original), start + 40)))
    junk = draw(st.one_of(st.sampled_from(JUNK_BYTES), st.binary(max_size=20)))
    return original[:start] + junk + original[end:]


def _answers_file(folder: Path, requests: Path) -> Path:
    spec = importlib.util.spec_from_file_location("vendor_poker_guard", EVAL / "vendor_poker.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    lines = requests.read_text().splitlines()
    answers = folder / "answers.txt"
    answers.write_text("".join(f"{r}\t{module.q_poker_statute(r)}\n" for r in lines))
    return answers


SMALL = ["--hands", "20", "--suit-pairs", "20", "--other-pairs", "20"]


def input_kinds(given: Inputs) -> dict[str, tuple[Path, list[str]]]:
    """Each input kind: a valid file of it, and the command reading it (``{}`` is the file)."""
    requests = given.folder / "requests.txt"
    if not requests.exists():
        run = tablecert(
            ["crosscheck", "poker", "q-poker", *SMALL, "--write-requests", str(requests)]
        )
        assert run.code == 0, run.stderr
    answers = given.folder / "answers.txt"
    if not answers.exists():
        _answers_file(given.folder, requests)
    base(("mahjong", "settle"), given)  # writes record.json
    pub, env = str(given.signer_pub), str(given.envelope)
    return {
        "log (CSV)": (FIX / "logs" / "shuffler-sample.csv", ["audit", "shuffler", "{}"]),
        "log (JSON Lines)": (FIX / "logs" / "shuffler-sample.jsonl", ["audit", "shuffler", "{}"]),
        "mahjong record": (given.folder / "record.json", ["mahjong", "settle", "{}"]),
        "mahjong game": (given.folder / "game.json", ["mahjong", "replay", "{}"]),
        "round log": (
            given.folder / "rounds.jsonl",
            ["audit", "rounds", "{}", "--game", "q-poker"],
        ),
        "round log (CSV)": (
            FIX / "rounds" / "caribbean-stud-casino-a-planted.csv",
            ["audit", "rounds", "{}", "--game", "caribbean-stud"],
        ),
        "mahjong corpus": (
            FIX / "mahjong" / "corpus-simple.jsonl",
            [
                "crosscheck",
                "mahjong",
                "mahjong-simple",
                "--corpus",
                "{}",
                "--scorer",
                f"{EVAL / 'vendor_mahjong.py'}:statute",
            ],
        ),
        "evaluator answers": (
            answers,
            ["crosscheck", "poker", "q-poker", *SMALL, "--evaluator", "file:{}"],
        ),
        "plan": (given.plan, ["certify", "{}", "-o", "out"]),
        "rule file": (FIX / "rules" / "q-poker.macau.toml", ["hands", "q-poker", "--rules", "{}"]),
        "configuration": (FIX / "configs" / "q-poker.casino-c.toml", ["check", "{}"]),
        "envelope": (given.envelope, ["verify", "{}", "--pubkey", pub]),
        "public key": (given.signer_pub, ["verify", env, "--pubkey", "{}"]),
        "private key": (given.key, ["sign", "envelope.json", "--key", "{}", "--pubkey", pub]),
    }


KINDS = [
    "log (CSV)",
    "log (JSON Lines)",
    "mahjong record",
    "mahjong game",
    "round log",
    "round log (CSV)",
    "mahjong corpus",
    "evaluator answers",
    "plan",
    "rule file",
    "configuration",
    "envelope",
    "public key",
    "private key",
]


def test_every_input_kind_is_listed(inputs: Inputs) -> None:
    assert sorted(input_kinds(inputs)) == sorted(KINDS)


@pytest.mark.parametrize("kind", KINDS)
@given(data=st.data())
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
def test_malformed_inputs(kind: str, inputs: Inputs, data: st.DataObject) -> None:
    original, args = input_kinds(inputs)[kind]
    content = data.draw(mutated(original.read_bytes()))
    with workdir(inputs) as here:
        name = here / f"input{original.suffix}"
        name.write_bytes(content)
        before = contents(here)
        argv = [a.replace("{}", str(name)) for a in args]
        with memory_cap():
            run = tablecert(argv, env=PASSPHRASE)
        judged(run)
        if run.code == 2:
            assert contents(here) == before, f"{kind}: files left behind"
