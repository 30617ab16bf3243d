"""Check a vendor's evaluator against the statutes, exhaustively.

``tablecert crosscheck poker`` and ``tablecert crosscheck mahjong``: a vendor's evaluator against
the statutes, exhaustively.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from tablecert.cli import conventions, values
from tablecert.cli.common import (
    OUTCOME_STYLE,
    JsonOption,
    dialect_header,
    emit_json,
    exit_for,
    plain,
    stderr,
    stdout,
)
from tablecert.cli.poker import game_name
from tablecert.cli.progress import progress
from tablecert.cli.tables import Column, print_table
from tablecert.conformance import (
    mahjong_crosscheck,
    native_bench,
    native_crosscheck,
    native_evaluator,
    poker_crosscheck,
    stud_crosscheck,
    yardstick,
)
from tablecert.conformance.evaluator_protocol import Answerer, open_evaluator, write_requests
from tablecert.io.outputs import write_text
from tablecert.mahjong.hands import GAMES as MAHJONG_GAMES
from tablecert.poker import DEDICATED_ENGINES, game_ordering

crosscheck_app = typer.Typer(no_args_is_help=True, help=conventions.summary(__doc__))


def _count_or_all(value: str, option: str) -> int | None:
    if value == "all":
        return None
    if value.isascii() and value.isdigit() and 0 < int(value) <= poker_crosscheck.MAX_SAMPLE:
        return int(value)
    raise typer.BadParameter(
        f"{value!r}: expected a whole number from 1 to {poker_crosscheck.MAX_SAMPLE:,} or 'all'",
        param_hint=option,
    )


def _answerer(
    spec: str | None, spec_option: str, write: Path | None, write_option: str, timeout: float
) -> Answerer | None:
    """The vendor's program named by ``spec``, started, or None for a run that only writes its
    questions to ``write`` (which must be a new file); one of the two is required. Started
    before anything is planned or asked, so one that cannot start is an input error."""
    if write is not None:
        values.new_file(write, write_option)
        return None
    if not spec:
        raise typer.BadParameter(
            f"give {spec_option} SPEC (or {write_option} FILE)", param_hint=spec_option
        )
    return open_evaluator(spec, timeout)


@crosscheck_app.command("poker")
def poker(
    game: Annotated[
        str | None,
        typer.Argument(
            metavar="GAME",
            help="q-poker or caribbean-stud, or any poker game described by its rule file: "
            "a bundled file's name or a path (or the id 'stud', its file given apart).",
        ),
    ] = None,
    evaluator: Annotated[
        str | None,
        typer.Option(
            "--evaluator",
            metavar="SPEC",
            help="module:function, file.py:function, cmd:COMMAND, file:ANSWERS or "
            "so:LIBRARY[:SYMBOL] (a native C ABI library, checked exhaustively; see the "
            "documentation: Formats, Evaluators and the C ABI).",
        ),
    ] = None,
    rules: Annotated[
        str | None, typer.Option("--rules", help="Rule file (default statute).")
    ] = None,
    hands: Annotated[
        str,
        typer.Option(
            "--hands", help="'all' or a sample size (of each hand size, for a described game)."
        ),
    ] = "all",
    suit_pairs: Annotated[
        str,
        typer.Option(
            "--suit-pairs",
            help="'default' (all for Q Poker; 100000 distinct ones for Caribbean Stud or a "
            "described game whose suits decide, spread over the categories, small ones whole), "
            "'all' (not for a described game: its showdowns are sampled), or a number of "
            "distinct pairs.",
        ),
    ] = "default",
    other_pairs: Annotated[
        int | None,
        typer.Option(
            "--other-pairs",
            min=0,
            help="Random disjoint pairs besides the suit-decided ones "
            "(default 50,000; 10,000,000 with a native so: evaluator).",
        ),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of every sample.")] = 0,
    show: Annotated[int, typer.Option("--show", help="Mismatches shown per check.")] = 10,
    timeout: Annotated[
        float, typer.Option("--timeout", help="Seconds to wait for an answer.")
    ] = 20.0,
    write: Annotated[
        Path | None,
        typer.Option(
            "--write-requests",
            help="Write the requests to FILE for a vendor to "
            "answer offline (then use --evaluator file:ANSWERS).",
        ),
    ] = None,
    benchmark: Annotated[
        bool,
        typer.Option(
            "--benchmark",
            help="With a native so: evaluator: time it against the core on the same hands, "
            "and check the answers timed (exit 1 if any disagree with the statute).",
        ),
    ] = False,
    repeat: Annotated[
        int, typer.Option("--repeat", min=1, help="Timed repetitions per benchmark workload.")
    ] = 5,
    json_out: JsonOption = False,
    old_game: conventions.DeprecatedGameOption = None,
) -> None:
    """Check every hand's category and the statute's head-to-head decisions.

    A game described by its rule file is checked against the ranking the file describes:
    the categories of hands of every size the game deals, a showdown across every boundary
    between rank classes that a player's and a dealer's hands can meet, suit-decided
    showdowns where the ranking's suits decide, and seeded deals.

    A native evaluator (so:LIBRARY[:SYMBOL], the C ABI of docs/formats/evaluators.md) is checked
    exhaustively: every hand, every rank-class boundary and every suit-decided pair.

    Every evaluator but file: runs isolated: its own processes, resource limits, killed with
    everything it started (docs/formats/evaluators.md: Isolation).

    Exit status: 0 conforms, 1 deviates (a wrong answer, or the evaluator failed: raised,
    exited, crashed, hung or answered out of protocol), 2 usage or input error (an evaluator
    that cannot be started, imported or loaded included), 3 inconclusive (nothing was
    asked), 4 internal error."""
    order = None
    if game is not None and old_game is None and game.casefold() not in DEDICATED_ENGINES:
        game = game_name(game, rules)
        order = game_ordering(game, rules)
        if order.stud is None:  # a dedicated engine's rule file named as the game
            game, rules, order = order.game, str(order.rules.path), None
    else:
        game = conventions.game_argument(game, old_game, tuple(DEDICATED_ENGINES))
    if order is not None and evaluator is not None and native_evaluator.is_native(evaluator):
        raise typer.BadParameter(
            f"a native evaluator is checked for {' or '.join(DEDICATED_ENGINES)} only; give "
            "a line-protocol evaluator for a game described by its rule file",
            param_hint="--evaluator",
        )
    if evaluator is not None and native_evaluator.is_native(evaluator):
        _native(
            game, evaluator, rules, other_pairs, seed, show, timeout, benchmark, repeat, json_out
        )
        return
    if benchmark:
        raise typer.BadParameter(
            "benchmark mode needs a native evaluator (so:LIBRARY[:SYMBOL])",
            param_hint="--benchmark",
        )
    if other_pairs is None:
        other_pairs = 50_000
    hand_count = _count_or_all(hands, "--hands")
    pairs = 0 if suit_pairs == "default" else _count_or_all(suit_pairs, "--suit-pairs")
    values.whole(other_pairs, "--other-pairs", 0, poker_crosscheck.MAX_SAMPLE)
    values.whole(show, "--show", 0)
    values.seed(seed)
    values.seconds(timeout, "--timeout")
    if order is None and game not in DEDICATED_ENGINES:
        raise typer.BadParameter(
            f"{game!r}: expected {' or '.join(DEDICATED_ENGINES)}", param_hint="GAME"
        )
    if order is not None and suit_pairs == "all":
        raise typer.BadParameter(
            "'all': a described game's suit-decided showdowns are sampled; give a number",
            param_hint="--suit-pairs",
        )
    answerer = _answerer(evaluator, "--evaluator", write, "--write-requests", timeout)
    stderr.print(f"planning the {plain(game)} crosscheck ...")
    plan: poker_crosscheck.Asking
    if order is not None:
        plan = stud_crosscheck.plan(
            order,
            hands=hand_count,
            suit_pairs=None if suit_pairs == "default" else pairs,
            other_pairs=other_pairs,
            seed=seed,
        )
    else:
        plan = poker_crosscheck.plan(
            game, rules, hands=hand_count, suit_pairs=pairs, other_pairs=other_pairs, seed=seed
        )
    if write is not None:
        count = write_requests(write, plan.requests())
        stderr.print(f"wrote {count:,} requests to {write}")
        return
    assert answerer is not None
    assert evaluator is not None
    with progress("crosscheck", unit="answers") as reporter:
        reporter.update(0, plan.total)
        report = poker_crosscheck.crosscheck(
            plan, answerer, evaluator, keep=show, progress=reporter.advance
        )
    if json_out:
        emit_json(report.as_json())
    else:
        _print(report)
    raise exit_for(report.verdict)


def _native(
    game: str,
    evaluator: str,
    rules: str | None,
    other_pairs: int | None,
    seed: int,
    show: int,
    timeout: float,
    benchmark: bool,
    repeat: int,
    json_out: bool,
) -> None:
    if benchmark:
        stderr.print(f"benchmarking {plain(evaluator)} against the core ({repeat} runs each) ...")
        bench = native_bench.benchmark(game, evaluator, rules, repeat=repeat, seed=seed, keep=show)
        if json_out:
            emit_json({**dialect_header("crosscheck poker benchmark"), **bench.as_json()})
        else:
            _print_bench(bench)
        raise exit_for(bench.verdict)
    report = native_crosscheck.crosscheck_native(
        game,
        evaluator,
        rules,
        random_pairs=native_crosscheck.DEFAULT_RANDOM_PAIRS if other_pairs is None else other_pairs,
        seed=seed,
        keep=show,
        timeout_s=timeout,
        status=lambda message: stderr.print(plain(message)),
    )
    if json_out:
        emit_json(report.as_json())
    else:
        _print(report)
    raise exit_for(report.verdict)


def _print_bench(bench: native_bench.BenchReport) -> None:
    """The benchmark for people: per workload ns per hand (best / median / worst) and M hands
    per second (median); the method and machine; the ratios in words; the timed answers."""
    load = ", ".join(f"{x:.2f}" for x in bench.load_average)
    stdout.print(f"{bench.game}: {plain(bench.evaluator)} beside the yardstick and the core")
    stdout.print(
        f"machine: {plain(bench.cpu)}, {bench.threads} hardware threads ('all threads' uses "
        f"{bench.threads}); load average {load}"
    )
    stdout.print(
        f"method: {bench.repeat} timed runs per evaluator and workload after one warm-up, each "
        "run one call over all the workload's hands; the vendor and the yardstick are timed "
        "inside their worker processes (the pipe is not timed); M hands/s is of the median run"
    )
    stdout.print(f"yardstick: {yardstick.NAME}, {plain(bench.yardstick)}")
    if bench.overloaded:
        stdout.print(
            Text(
                f"warning: the load average ({bench.load_average[0]:.2f}) exceeds the "
                f"{bench.threads} hardware threads: other work shared the CPU, so these times "
                "are upper bounds",
                style="yellow",
            )
        )
    for w in bench.workloads:
        print_table(
            [
                "evaluator",
                Column("ns/hand min / median / max", "right"),
                Column("M hands/s", "right"),
            ],
            ([who, _spread(t), f"{t.million_hands_per_s:.1f}"] for who, t in _contenders(w)),
            title=f"{w.name}: {w.hands:,} hands per call",
        )
        if w.yardstick is not None:
            words = native_bench.time_ratio(
                "the vendor's evaluator", w.vendor, "the yardstick", w.yardstick
            )
            stdout.print(f"  {words}")
        words = native_bench.time_ratio(
            "the vendor's evaluator", w.vendor, "the core (1 thread)", w.core_one_thread
        )
        stdout.print(f"  {words}")
        if w.all_threads_slower:
            stdout.print(
                f"  the core on all {bench.threads} threads was slower than on one: splitting "
                "the hands among threads costs more than it saves when they must share the "
                "CPU with other work or when each thread's share is small"
            )
    for c in bench.agreement.checks:
        stdout.print(f"{c.name}: {c.mismatches:,} of {c.checked:,} disagree with the statute")
        for g in c.groups:
            stdout.print(Text.assemble(("defect", "red"), f" {c.name}: {plain(g.description)}"))
    stdout.print(
        f"timed answers: {bench.verdict.upper()} (judged against the statute ordering, "
        f"{plain(bench.agreement.rules_file)})"
    )


def _contenders(w: native_bench.Workload) -> list[tuple[str, native_bench.Timing]]:
    """The evaluators timed on a workload, in table order (the yardstick when it ran)."""
    return [
        ("vendor", w.vendor),
        *([("yardstick", w.yardstick)] if w.yardstick is not None else []),
        ("core, 1 thread", w.core_one_thread),
        ("core, all threads", w.core_all_threads),
    ]


def _spread(t: native_bench.Timing) -> str:
    return f"{t.min_ns:.2f} / {t.median_ns:.2f} / {t.max_ns:.2f}"


def _print(report: poker_crosscheck.CrosscheckReport) -> None:
    print_table(
        [
            Column("check", wrap=True),
            Column("checked", "right"),
            Column("mismatches", "right", short="wrong"),
            "verdict",
            Column("answers/s", "right"),
        ],
        (
            (
                c.name,
                f"{c.checked:,}",
                f"{c.mismatches:,}",
                Text(c.verdict, style=OUTCOME_STYLE[c.outcome]),
                f"{c.rate:,.0f}",
            )
            for c in report.checks
        ),
        title=f"{report.game} evaluator crosscheck ({plain(report.rules_file)}): "
        f"{plain(report.evaluator)}",
    )
    if report.complete_suit_pairs is not None:
        stdout.print(f"suit-decided pairs: the complete set ({report.complete_suit_pairs:,}).")
    for c in report.checks:
        if c.error:
            stdout.print(Text.assemble(("failed", "red"), f" {c.name}: {plain(c.error)}"))
        if not c.checked and not c.error:
            stdout.print(f"{c.name}: nothing was asked (inconclusive)")
        for note in c.notes:
            stdout.print(f"{c.name}: {plain(note)}")
        for g in c.groups:
            stdout.print(Text.assemble(("defect", "red"), f" {c.name}: {plain(g.description)}"))
        for m in c.first:
            stdout.print(
                f"  {m.request!r}: expected {m.expected!r}, got {m.got!r} ({m.article}, {m.step})"
            )
    against = (
        "the statute ordering"
        if report.game in DEDICATED_ENGINES
        else "the ranking its rule file describes"
    )
    stdout.print(f"verdict: {report.verdict.upper()} to {against} ({report.rules_file})")


@crosscheck_app.command("mahjong")
def mahjong(
    game: Annotated[
        str | None,
        typer.Argument(metavar="GAME", help="mahjong-traditional or mahjong-simple."),
    ] = None,
    scorer: Annotated[
        str | None,
        typer.Option(
            "--scorer",
            help="module:function, file.py:function, cmd:COMMAND or "
            "file:ANSWERS answering one JSON line per game record.",
        ),
    ] = None,
    corpus: Annotated[
        Path | None, typer.Option("--corpus", help="JSON Lines game records (default: generate).")
    ] = None,
    generate: Annotated[int, typer.Option("--generate", help="Records to generate.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the generated corpus.")] = 0,
    write: Annotated[
        Path | None, typer.Option("--write-corpus", help="Write the corpus to FILE and stop.")
    ] = None,
    show: Annotated[int, typer.Option("--show", help="Mismatches shown.")] = 10,
    timeout: Annotated[float, typer.Option("--timeout")] = 20.0,
    json_out: JsonOption = False,
    old_game: conventions.DeprecatedGameOption = None,
) -> None:
    """Check a vendor's mahjong scorer: fan and every seat's net result on a corpus.

    Exit status: 0 conforms, 1 deviates (a wrong answer, or the scorer failed: raised,
    exited, hung or answered out of protocol), 2 usage or input error (a scorer that cannot
    be started or imported included), 3 inconclusive (nothing was scored), 4 internal error."""
    game = conventions.game_argument(game, old_game, MAHJONG_GAMES)
    if game not in ("mahjong-traditional", "mahjong-simple"):
        raise typer.BadParameter(
            f"{game!r}: expected mahjong-traditional or mahjong-simple", param_hint="GAME"
        )
    values.seed(seed)
    values.seconds(timeout, "--timeout")
    values.whole(generate, "--generate", 1, mahjong_crosscheck.MAX_RECORDS)
    values.whole(show, "--show", 0)
    answerer = _answerer(scorer, "--scorer", write, "--write-corpus", timeout)
    records = (
        mahjong_crosscheck.load_corpus(corpus, game)
        if corpus is not None
        else mahjong_crosscheck.generate_corpus(game, generate, seed)
    )
    if write is not None:
        write_text(
            write,
            "".join(
                json.dumps(record, ensure_ascii=False, sort_keys=True) + "\n" for record in records
            ),
            what="--write-corpus",
        )
        stderr.print(f"wrote {len(records):,} game records to {write}")
        return
    assert answerer is not None
    assert scorer is not None
    with progress(f"settling {len(records):,} records and asking the scorer"):
        report = mahjong_crosscheck.crosscheck(game, records, answerer, scorer, keep=show)
    if json_out:
        emit_json(report.as_json())
    else:
        stdout.print(
            f"{game} scorer crosscheck: {scorer}: {report.records:,} records, "
            f"{report.mismatched_records:,} mismatched"
        )
        for d in report.defects:
            stdout.print(Text.assemble(("defect", "red"), f" {plain(d.description)}"))
        for m in report.first:
            stdout.print(f"  {m.field}: expected {m.expected!r}, got {m.got!r} in {m.record}")
        if report.error:
            stdout.print(Text.assemble(("failed", "red"), f" the scorer: {plain(report.error)}"))
        stdout.print(f"verdict: {report.verdict.upper()}")
    raise exit_for(report.verdict)


def register(app: typer.Typer) -> None:
    app.add_typer(crosscheck_app, name="crosscheck")
