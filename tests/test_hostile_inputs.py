"""Hostile input, one test per defect found (logs, evaluators, simulate, the environment):
each is refused with one line naming the file, line and key or the option and value, exit
status 2, no traceback and nothing left behind; or, where the input is data, counted and
reported instead of silently dropped."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablecert import _core
from tablecert.audit import audit_shuffler
from tablecert.audit.simulate import write_log
from tablecert.conformance.evaluator_protocol import MAX_ANSWER, EvaluatorError, open_evaluator
from tablecert.errors import AuditError, OutputError
from tablecert.io.outputs import atomic_file
from tests.support.cli_support import Run, certify_small_plan, tablecert

ROOT = Path(__file__).resolve().parent.parent
LOGS = ROOT / "fixtures" / "logs"
EVALUATORS = ROOT / "fixtures" / "evaluators"
DECK = " ".join(_core.card_code(c) for c in range(52))
HEADER = "device_id,timestamp,shuffle_id,output\n"


def one_error(run: Run, *needles: str, code: int = 2) -> str:
    """The run failed with ``code`` and exactly one line on stderr that names every needle."""
    assert run.code == code, (run.code, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr + run.stdout
    lines = run.error_lines
    errors = [line for line in lines if line.startswith(("error:", "internal error:"))]
    assert len(errors) == 1, run.stderr
    assert lines[-1] == errors[0], run.stderr  # status lines may come before, nothing after
    for needle in needles:
        assert needle in errors[0], (needle, errors[0])
    return errors[0]


def failed_check(run: Run, *needles: str) -> None:
    """An evaluator that broke the protocol: its check fails with the reason, the verdict is
    DEVIATES (exit 1), and no traceback."""
    assert run.code == 1, (run.code, run.stdout[-500:], run.stderr[-500:])
    assert "Traceback" not in run.stderr + run.stdout
    report = " ".join(run.stdout.split())
    assert "failed" in report, report[-500:]
    for needle in needles:
        assert needle in report, (needle, report[-800:])


def usage_error(run: Run, option: str, value: str = "") -> None:
    """A usage error (exit 2) in one line naming the option and the value."""
    one_error(run, option, value)


# ---------------------------------------------------------------------------------- logs


def test_whitespace_only_lines_are_counted_as_blank_lines(tmp_path: Path) -> None:
    blanks = ["", "\t", " \t ", "\v", "\f", "\u00a0", "\u3000 \u2003"]
    lines = [HEADER.strip()]
    for n, blank in enumerate(blanks, start=1):
        lines += [f"A,{n},{n},{DECK}", blank]
    log = tmp_path / "blank.csv"
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = audit_shuffler([log], input_order="none")
    i = result.integrity
    assert (i.records, i.bad_count, i.blank_lines, i.header_lines) == (7, 0, 7, 1)
    assert i.lines == len(lines) == i.header_lines + i.records + i.bad_count + i.blank_lines
    data = result.as_json()["integrity"]
    assert (data["lines"], data["blank_lines"]) == (15, 7)
    run = tablecert(["audit", "shuffler", str(log), "--input-order", "none"])
    assert "lines read: 15 = 1 header + 7 complete + 0 bad + 7 blank" in run.stdout


@given(
    garbage=st.lists(
        st.sampled_from(["", " ", "\t", "\v", "\f", "\u00a0", "x", "A,1,1,As", "{", "\u2028"]),
        max_size=30,
    ),
    positions=st.lists(st.integers(0, 10), max_size=30),
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_line_is_accounted_for(garbage: list[str], positions: list[int]) -> None:
    """Whatever lines are inserted among 10 good records, header + complete + bad + blank is
    the number of lines in the file."""
    lines = [f"A,{i},{i},{DECK}" for i in range(10)]
    for text, at in zip(garbage, positions, strict=False):
        lines.insert(at, text)
    body = HEADER + "\n".join(lines) + "\n"
    core = _core.ShuffleAudit("cards52", "none")
    core.begin_file("g.csv")
    core.feed(body.encode("utf-8"))
    core.end_file()
    total = body.count("\n")
    assert core.lines == total
    assert core.lines == core.header_lines + core.records + core.bad_count + core.blank_lines
    assert core.records == 10


def test_json_lines_conflicting_aliases_and_unknown_keys_are_bad_records(tmp_path: Path) -> None:
    good = {"device_id": "A", "timestamp": 1, "output": DECK}
    records = [
        {**good, "shuffle_id": 1},
        {**good, "shuffle_id": 2, "cards": DECK},
        {**good, "shuffle_id": 3, "device": "B"},
        {**good, "shuffle_id": 4, "colour": "red"},
    ]
    log = tmp_path / "aliases.jsonl"
    log.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    i = audit_shuffler([log], input_order="none").integrity
    assert (i.records, i.bad_count) == (1, 3)
    assert [(line, reason) for _, line, reason in i.bad_records] == [
        (2, 'fields "cards" and "output" both give the output'),
        (3, 'fields "device" and "device_id" both give the device_id'),
        (
            4,
            'unknown field "colour" (expected device_id, timestamp, shuffle_id, output, and '
            "optionally input, events)",
        ),
    ]


def test_an_overlong_line_is_one_bad_record_not_an_abort(tmp_path: Path) -> None:
    log = tmp_path / "long.csv"
    with log.open("w", encoding="utf-8") as f:
        f.write(HEADER + f"A,1,1,{DECK}\n" + "A,2,2," + "As " * 400_000 + "\n" + f"A,3,3,{DECK}\n")
    i = audit_shuffler([log], input_order="none").integrity
    assert (i.records, i.bad_count, i.lines) == (2, 1, 4)
    assert i.bad_records[0][1:] == (3, "line longer than 1048576 bytes")


@pytest.mark.parametrize(
    ("token", "why"),
    [("1s", '"1s"'), ("As-Kh-Td", '"-Kh"'), ("A♤", '"A♤"')],
)
def test_card_codes_are_exactly_the_documented_set(tmp_path: Path, token: str, why: str) -> None:
    codes = DECK.split()
    log = tmp_path / "codes.csv"
    log.write_text(HEADER + f"A,1,1,{' '.join([token, *codes[1:]])}\n", encoding="utf-8")
    i = audit_shuffler([log], input_order="none").integrity
    assert (i.records, i.bad_count) == (0, 1)
    assert why in i.bad_records[0][2]
    # The card core everywhere: compare and evaluate refuse it too.
    with pytest.raises(_core.CardError):
        _core.parse_hand(f"{token} 2d 3c")


def test_gzip_members_are_read_and_trailing_bytes_refused(tmp_path: Path) -> None:
    plain = (LOGS / "shuffler-sample.csv").read_bytes()
    head, _, rest = plain.partition(b"\n")
    records = rest.splitlines(keepends=True)
    two = tmp_path / "two-members.csv.gz"
    two.write_bytes(
        gzip.compress(head + b"\n" + b"".join(records[:3]), mtime=0)
        + gzip.compress(b"".join(records[3:]), mtime=0)
    )
    assert (
        audit_shuffler([two]).integrity.records
        == audit_shuffler([LOGS / "shuffler-sample.csv"]).integrity.records
    )
    data = gzip.compress(plain, mtime=0)
    for tail in (b"\0" * 512, b"garbage"):
        padded = tmp_path / "padded.csv.gz"
        padded.write_bytes(data + tail)
        with pytest.raises(AuditError) as caught:
            audit_shuffler([padded])
        assert str(caught.value) == (
            f"{padded}: the bytes after the gzip data (from compressed byte {len(data)}) are not "
            "a gzip member: trailing garbage or padding"
        )


def test_a_fifo_never_hangs(tmp_path: Path) -> None:
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    # No writer: read as an empty stream, at once (the old reader blocked in open forever).
    proc = subprocess.run(
        [sys.executable, "-m", "tablecert", "audit", "shuffler", str(fifo)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 2, proc.stderr
    assert "empty file" in proc.stderr
    assert "Traceback" not in proc.stderr
    # With a writer: read as a stream.
    text = (LOGS / "shuffler-sample.csv").read_bytes()

    def feed() -> None:
        with fifo.open("wb") as w:
            w.write(text)

    writer = threading.Thread(target=feed)
    reader = subprocess.Popen(
        [sys.executable, "-m", "tablecert", "audit", "shuffler", str(fifo), "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    writer.start()
    out, _ = reader.communicate(timeout=120)
    writer.join(timeout=10)
    expected = audit_shuffler([LOGS / "shuffler-sample.csv"]).integrity.records
    assert json.loads(out)["integrity"]["records"] == expected


@pytest.mark.parametrize(
    ("path", "why"),
    [(".", "is a directory, not a log file"), ("/dev/zero", "is a device, not a log file")],
)
def test_non_regular_files_are_refused(path: str, why: str) -> None:
    one_error(tablecert(["audit", "shuffler", path]), path, why)


def test_a_read_error_is_one_line() -> None:
    # Reading /proc/self/mem at offset 0 fails with EIO: a read error, as a failing disk gives.
    one_error(tablecert(["audit", "shuffler", "/proc/self/mem"]), "read error at byte 0")


@pytest.mark.parametrize(
    ("option", "value"),
    [
        ("--deck", "cards53"),
        ("--input-order", "sideways"),
        ("--game", "poker"),
        ("--dealing", "shuffled"),
        ("--wall-statistic", "colours"),
        ("--batch-size", "-1"),
        ("--alpha", "nan"),
        ("--confidence", "1.5"),
        ("--seats", "0"),
    ],
)
def test_bad_audit_options_are_usage_errors(option: str, value: str) -> None:
    run = tablecert(["audit", "shuffler", str(LOGS / "shuffler-sample.csv"), option, value])
    usage_error(run, option, value)


def test_svg_dir_is_checked_before_the_audit(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    log = str(LOGS / "shuffler-sample.csv")
    usage_error(tablecert(["audit", "shuffler", log, "--svg-dir", str(afile)]), "--svg-dir")
    missing = tmp_path / "no" / "such"
    usage_error(tablecert(["audit", "shuffler", log, "--svg-dir", str(missing)]), "--svg-dir")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_more_bad_records_than_shown_says_what_json_holds(tmp_path: Path) -> None:
    log = tmp_path / "bad.csv"
    log.write_text(HEADER + "".join(f"A,{i},{i},As\n" for i in range(1, 1201)), encoding="utf-8")
    run = tablecert(["audit", "shuffler", str(log)])
    assert "... and 1,180 more: --json lists the first 1,000 of the 1,200 with their reasons" in (
        run.stdout
    )
    assert "all in --json" not in run.stdout


# ---------------------------------------------------------------------------- evaluators


def crosscheck(*args: str) -> Run:
    small = ["--hands", "20", "--suit-pairs", "20", "--other-pairs", "20"]
    return tablecert(["crosscheck", "poker", "q-poker", *small, *args])


def python_evaluator(tmp_path: Path, body: str) -> str:
    path = tmp_path / "vendor_eval.py"
    path.write_text(
        "import sys, time\n"
        f"sys.path.insert(0, {str(EVALUATORS)!r})\n"
        "from vendor_poker import q_poker_statute as statute\n" + body
    )
    return str(path)


def test_an_evaluator_that_answers_but_never_exits(tmp_path: Path) -> None:
    script = python_evaluator(
        tmp_path,
        "for line in sys.stdin:\n"
        "    print(statute(line.rstrip('\\n')), flush=True)\n"
        "time.sleep(600)\n",
    )
    run = crosscheck("--evaluator", f"cmd:{sys.executable} {script}", "--timeout", "1")
    failed_check(run, "answered every request but did not end its output within 1 s")


@pytest.mark.parametrize("value", ["-1", "0", "nan", "inf", "-inf"])
def test_bad_timeouts_are_usage_errors(value: str) -> None:
    usage_error(crosscheck("--evaluator", "file:x", "--timeout", value), "--timeout", value)
    with pytest.raises(EvaluatorError, match="timeout"):
        open_evaluator("cmd:true", float(value))


def test_an_unbalanced_command_is_one_line() -> None:
    one_error(crosscheck("--evaluator", "cmd:'unbalanced"), 'cmd:"\'unbalanced"', "quotation")


def test_seed_and_sample_sizes_are_bounded(tmp_path: Path) -> None:
    usage_error(crosscheck("--seed", "-1"), "--seed", "-1")
    usage_error(crosscheck("--other-pairs", "999999999999"), "--other-pairs", "999999999999")
    usage_error(crosscheck("--hands", "99999999999999"), "--hands", "99999999999999")


def test_write_requests_into_a_missing_folder_or_onto_a_folder(tmp_path: Path) -> None:
    usage_error(crosscheck("--write-requests", str(tmp_path / "no" / "r.txt")), "--write-requests")
    usage_error(crosscheck("--write-requests", str(tmp_path)), "--write-requests", "folder")
    assert list(tmp_path.iterdir()) == []
    written = tmp_path / "requests.txt"
    assert crosscheck("--write-requests", str(written)).code == 0
    assert written.read_text().startswith("category ")
    assert [p.name for p in tmp_path.iterdir()] == ["requests.txt"]  # no temporary left


def test_invalid_utf8_from_an_evaluator_is_a_protocol_error(tmp_path: Path) -> None:
    script = python_evaluator(
        tmp_path,
        "for line in sys.stdin:\n"
        "    sys.stdout.buffer.write(b'\\xff\\xfe\\n')\n"
        "    sys.stdout.flush()\n",
    )
    run = crosscheck("--evaluator", f"cmd:{sys.executable} {script}", "--timeout", "30")
    failed_check(run, "broke the protocol", "not UTF-8")
    assert "Exception in thread" not in run.stderr


def test_a_50_megabyte_answer_is_a_protocol_error(tmp_path: Path) -> None:
    script = python_evaluator(
        tmp_path,
        "sys.stdin.readline()\nsys.stdout.write('x' * 50_000_000 + '\\n'); sys.stdout.flush()\n",
    )
    run = crosscheck("--evaluator", f"cmd:{sys.executable} {script}", "--timeout", "30")
    failed_check(run, f"an answer line longer than {MAX_ANSWER:,} bytes")


def test_long_answers_from_python_and_files_are_protocol_errors(tmp_path: Path) -> None:
    module = python_evaluator(tmp_path, "def long(request):\n    return 'x' * 5000\n")
    answer = open_evaluator(f"{module}:long")
    with pytest.raises(EvaluatorError, match=r"answered 5,000 bytes .* at most 4,096"):
        list(answer(["category As Kh Td"]))
    results = tmp_path / "answers.txt"
    results.write_text("category As Kh Td\t" + "y" * 5000 + "\n")
    with pytest.raises(EvaluatorError, match="answered 5,000 bytes"):
        list(open_evaluator(f"file:{results}")(["category As Kh Td"]))


def test_timeout_applies_to_python_evaluators(tmp_path: Path) -> None:
    module = python_evaluator(
        tmp_path,
        "calls = []\n"
        "def slow_once(request):\n"
        "    calls.append(request)\n"
        "    if len(calls) == 1:\n"
        "        time.sleep(8)\n"
        "    return statute(request)\n",
    )
    start = time.monotonic()
    run = crosscheck("--evaluator", f"{module}:slow_once", "--timeout", "0.5")
    failed_check(run, "hung", "within 0.5 s")
    assert time.monotonic() - start < 8


def test_a_folder_as_results_file_is_named_as_a_folder() -> None:
    one_error(crosscheck("--evaluator", "file:."), "is a folder")


def test_mahjong_game_is_honoured(tmp_path: Path) -> None:
    corpus = ROOT / "fixtures" / "mahjong" / "corpus-traditional.jsonl"
    run = tablecert(
        [
            "crosscheck", "mahjong", "mahjong-simple", "--corpus", str(corpus),
            "--scorer", f"{EVALUATORS / 'vendor_mahjong.py'}:statute",
        ]
    )  # fmt: skip
    one_error(run, f"{corpus}:1: game", "mahjong-traditional", "mahjong-simple")


def test_a_scorer_answering_booleans_for_fan_is_a_protocol_error(tmp_path: Path) -> None:
    scorer = tmp_path / "bool_scorer.py"
    scorer.write_text(
        "import json, sys\n"
        f"sys.path.insert(0, {str(EVALUATORS)!r})\n"
        "from vendor_mahjong import statute\n"
        "def booleans(request):\n"
        "    answer = json.loads(statute(request))\n"
        "    if answer['fan'] in (0, 1):\n"
        "        answer['fan'] = bool(answer['fan'])\n"
        "    return json.dumps(answer)\n"
    )
    run = tablecert(
        ["crosscheck", "mahjong", "mahjong-simple", "--generate", "200", "--scorer",
         f"{scorer}:booleans"]
    )  # fmt: skip
    failed_check(run, "expected a whole number (or null for a false win)", "fan ")


# ------------------------------------------------------------------------------ simulate


def simulate(*args: str) -> Run:
    return tablecert(["simulate", "shuffler", "--model", "fair", "--shuffles", "3", *args])


def test_device_ids_the_auditor_would_reject_are_refused(tmp_path: Path) -> None:
    out = tmp_path / "log.csv"
    for device in ["x\ny", "a,b", '"q', " ", "tab\there", "\x1b[31m"]:
        usage_error(simulate("-o", str(out), "--device", device), "--device")
    assert list(tmp_path.iterdir()) == []


@given(st.text(min_size=1, max_size=12))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_what_simulate_writes_its_auditor_reads(tmp_path: Path, device: str) -> None:
    out = tmp_path / "sim.csv"
    try:
        write_log(out, "fair", 3, device=device, replace=True)
    except AuditError:
        return
    i = audit_shuffler([out], input_order="logged").integrity
    assert (i.records, i.bad_count) == (3, 0), (device, i.bad_records)


def test_output_that_cannot_be_written_is_refused_first(tmp_path: Path) -> None:
    usage_error(simulate("-o", str(tmp_path)), "--output", "folder")
    usage_error(simulate("-o", str(tmp_path / "no" / "log.csv")), "--output", "does not exist")
    usage_error(simulate("-o", "/dev/full"), "--output", "not a regular file")
    assert list(tmp_path.iterdir()) == []


def test_an_existing_output_is_kept_without_force(tmp_path: Path) -> None:
    out = tmp_path / "log.csv"
    out.write_text("precious\n")
    out.chmod(0o444)
    usage_error(simulate("-o", str(out)), "--output", "--force")
    assert out.read_text() == "precious\n"
    assert simulate("-o", str(out), "--force").code == 0
    assert out.read_text().startswith("device_id,")
    assert [p.name for p in tmp_path.iterdir()] == ["log.csv"]


@pytest.mark.parametrize("seed", ["-1", str(2**64), "9" * 40])
def test_seeds_out_of_range_are_usage_errors(tmp_path: Path, seed: str) -> None:
    usage_error(simulate("-o", str(tmp_path / "x.csv"), "--seed", seed), "--seed")


@pytest.mark.parametrize(
    ("model", "why"),
    [
        ("riffle:99999999999", "parameter must be in 1..=64"),
        ("riffle:ten", '"ten" is not a whole number'),
        ("fair:3", "fair takes no parameter"),
        ("off-by-one:1", "off-by-one takes no parameter"),
    ],
)
def test_model_parameters_are_checked(tmp_path: Path, model: str, why: str) -> None:
    run = tablecert(
        ["simulate", "shuffler", "--model", model, "--shuffles", "3", "-o", str(tmp_path / "x")]
    )
    usage_error(run, "--model", why)


def test_a_failed_write_leaves_nothing_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(_: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    out = tmp_path / "log.csv.gz"
    with pytest.raises(OutputError, match="No space left on device"):
        write_log(out, "fair", 10)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(KeyboardInterrupt), atomic_file(tmp_path / "y"):
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


# --------------------------------------------------------------------------- environment


@pytest.mark.parametrize("value", ["abc", "-1", "1e9", "99999999999999999999"])
def test_a_bad_source_date_epoch_is_one_usage_error(value: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "tablecert", "hands", "q-poker"],
        capture_output=True,
        text=True,
        env={**os.environ, "SOURCE_DATE_EPOCH": value},
        check=False,
    )
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"error: SOURCE_DATE_EPOCH={value!r}: expected whole seconds since 1970-01-01 UTC "
        "(0 to 253402300799)"
    ]


@pytest.mark.parametrize("out", ["", "afile/sub/key", "."])
def test_keys_generate_refuses_unusable_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, out: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("x")
    run = tablecert(["keys", "generate", "-o", out], env={"TABLECERT_KEY_PASSPHRASE": "pw"})
    usage_error(run, "--output")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


# ------------------------------------------------------------- plans, rules, verified files

HUGE = "9" * 5001  # more digits than Python's int() converts by default


@pytest.mark.parametrize(
    ("name", "text", "line", "command"),
    [
        (
            "plan.toml",
            f'[certification]\ntitle = "t"\nlab = {HUGE}\n',
            3,
            ["certify", "{}", "-o", "out"],
        ),
        (
            "rules.toml",
            f"[play]\nfold = {{ value = {HUGE} }}\n",
            2,
            ["hands", "q-poker", "--rules", "{}"],
        ),
        ("config.toml", f"[play]\nfold = {HUGE}\n", 2, ["check", "{}"]),
    ],
)
def test_an_integer_too_long_to_convert_is_an_input_error_naming_its_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    name: str,
    text: str,
    line: int,
    command: list[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(text)
    run = tablecert([a.replace("{}", name) for a in command])
    one_error(run, f"{name}:{line}", "5001 digits")
    assert not (tmp_path / "out").exists()


@pytest.fixture(scope="module")
def certified(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("certified")
    certify_small_plan(folder)
    return folder / "report"


def test_verify_refuses_a_device_or_fifo_instead_of_hashing_it_forever(
    certified: Path, tmp_path: Path
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    envelope = certified / "report.intoto.dsse.json"
    for path in ("/dev/zero", str(fifo)):
        run = tablecert(["verify", str(envelope), "--pubkey", str(certified / "signer.pub"), path])
        one_error(run, path, "not a regular file")
