"""A vendor's mahjong scorer against the statute: fan and payments on a corpus of game records.

The corpus is a JSON Lines file of game records (the format ``tablecert mahjong settle``
reads: hand, winner, context, table limit, discarder, liability, or a false win), bundled in
``fixtures/mahjong/`` or generated with a seed. Each record is one request line (the record as
compact JSON); the scorer answers one JSON line::

    {"fan": 2, "net": {"E": -400, "S": 760, "W": -200, "N": -200}, "commission": 40}

(``fan`` is null for a false win; ``net`` is each seat's result after payments and
commission). The scorer is reached by the same SPECs as the poker evaluators (Python callable,
``cmd:``, ``file:``; see ``evaluator_protocol``). Mismatches are grouped by what differs (fan,
a seat's net, the commission) and by the scoring items and rules every mismatching record
shares, with their articles, so the report names the defect.
"""

from __future__ import annotations

import json
import random
import stat
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

from tablecert import _core
from tablecert.conformance.evaluator_protocol import Answerer, EvaluatorError
from tablecert.errors import CrosscheckError, MahjongError
from tablecert.io import strict_json
from tablecert.judgement import Domain, Judged, Outcome
from tablecert.mahjong.record import SettledGame, settle_record
from tablecert.mahjong.replay import settle_game

SEATS = ("E", "S", "W", "N")
MAX_RECORDS = 1_000_000
"""The most records generated for one run (each is settled and kept in memory)."""
MAX_LINE = 1 << 16
"""The longest corpus line (a game record is a few hundred characters)."""
ANSWER_KEYS = frozenset({"fan", "net", "commission"})


@dataclass(frozen=True)
class ScorerMismatch:
    record: str
    field: str
    expected: Any
    got: Any
    features: tuple[str, ...]


@dataclass(frozen=True)
class ScorerDefect:
    field: str
    kind: str  # the kind of record: a dealer's win, a non-dealer's win, a false win
    count: int
    of: int
    common_features: tuple[str, ...]

    @property
    def description(self) -> str:
        shared = (
            f"; every such record has {', '.join(self.common_features)}"
            if (self.common_features)
            else ""
        )
        return f"{self.field} differs in {self.count:,} of {self.of:,} {self.kind}{shared}"


@dataclass(frozen=True)
class ScorerReport(Judged):
    domain: ClassVar[Domain] = "conformance"
    game: str
    scorer: str
    records: int
    mismatched_records: int
    defects: tuple[ScorerDefect, ...]
    first: tuple[ScorerMismatch, ...]
    seconds: float
    #: Why the scorer did not answer every record (raised, exited, hung, answered out of
    #: protocol): a failed check, never a pass.
    error: str = ""

    @property
    def outcome(self) -> Outcome:
        """Fail (deviates) on any wrong answer or scorer failure; inconclusive if no record
        was scored."""
        failed = bool(self.mismatched_records or self.error)
        return Outcome.of(failed, judged=self.records > 0)

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "scorer": self.scorer,
            "records": self.records,
            "mismatched_records": self.mismatched_records,
            "verdict": self.verdict,
            "error": self.error or None,
            "records_per_second": round(self.records / self.seconds) if self.seconds else None,
            "defects": [
                {
                    "field": d.field,
                    "kind": d.kind,
                    "count": d.count,
                    "of": d.of,
                    "common_features": list(d.common_features),
                    "description": d.description,
                }
                for d in self.defects
            ],
            "first_mismatches": [
                {"record": m.record, "field": m.field, "expected": m.expected, "got": m.got}
                for m in self.first
            ],
        }


def expected_answer(settled: SettledGame) -> dict[str, Any]:
    """What a conforming scorer answers for a settled record."""
    s = settled.settlement
    return {
        "fan": settled.fan.fan if settled.fan is not None else None,
        "net": {seat: _number(s.net(seat)) for seat in _seats(s)},
        "commission": _number(s.commission),
    }


def _seats(settlement: Any) -> list[str]:
    seats = {p.payer for p in settlement.payments} | {p.payee for p in settlement.payments}
    return [seat for seat in SEATS if seat in seats]


def _number(value: Fraction) -> int | str:
    return int(value) if value.denominator == 1 else str(value)


def _features(settled: SettledGame, record: dict[str, Any]) -> set[str]:
    found: set[str] = set()
    if settled.fan is not None:
        found |= {f"{i.name} ({i.article})" for i in settled.fan.items}
        if settled.fan.raw > settled.fan.cap:
            found.add(f"raw fan above the cap of {settled.fan.cap} ({settled.fan.cap_article})")
    else:
        found.add("a false win (第十条)")
    if record.get("liability"):
        found.add(f"liability {record['liability']} (第十条)")
    return found


def _kind(settled: SettledGame) -> str:
    winner = settled.settlement.winner
    if winner is None:
        return "false wins (第十条)" if settled.settlement.payments else "drawn hands (第四条)"
    return "dealer's wins (第七条)" if winner == "E" else "non-dealer wins (第七条)"


def load_corpus(path: Path, game: str | None = None) -> list[dict[str, Any]]:
    """Read a JSON Lines corpus; every bad line is an error naming the file and line. With
    ``game``, every record must be a record of that game (a record naming no game is one)."""
    records = []
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise MahjongError(f"{path}: not a regular file, not a corpus")
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(iter(lambda: handle.readline(MAX_LINE + 1), ""), 1):
                if len(line) > MAX_LINE:
                    raise MahjongError(f"{path}:{number}: line longer than {MAX_LINE:,} characters")
                if not line.strip():
                    continue
                try:
                    record = strict_json.loads(line, str(path), number)
                except strict_json.StrictJsonError as exc:
                    raise MahjongError(str(exc)) from exc
                if not isinstance(record, dict):
                    raise MahjongError(f"{path}:{number}: expected a JSON object per line")
                if game is not None:
                    record.setdefault("game", game)
                    if record["game"] != game:
                        raise MahjongError(
                            f"{path}:{number}: game: a {str(record['game'])[:40]!r} record, but "
                            f"the crosscheck is of {game}"
                        )
                records.append(record)
    except OSError as exc:
        raise MahjongError(f"{path}: cannot read: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise MahjongError(f"{path}: not UTF-8 ({exc.reason})") from exc
    if not records:
        raise MahjongError(f"{path}: the corpus is empty")
    return records


def generate_corpus(game: str, count: int, seed: int = 0) -> list[dict[str, Any]]:
    """A seeded corpus of valid win records over random complete hands and contexts, plus
    false wins; every record settles under the statute rules."""
    rng = random.Random(seed)
    types = _core.tile_types("traditional" if game == "mahjong-traditional" else "simple")
    limits = (
        ["25/50", "100/200", "1000/2000"]
        if game == "mahjong-traditional"
        else ["100/200", "1000/2000"]
    )
    sets = 4 if game == "mahjong-traditional" else 1
    records: list[dict[str, Any]] = []
    while len(records) < count:
        if rng.random() < 0.05:
            records.append(
                {"game": game, "limit": rng.choice(limits), "false_win": rng.choice(SEATS)}
            )
            continue
        hand = _random_complete(rng, types, sets)
        if hand is None:
            continue
        winner = rng.choice(SEATS)
        win_by = rng.choice(["self-drawn", "discard"])
        record: dict[str, Any] = {
            "game": game,
            "limit": rng.choice(limits),
            "winner": winner,
            "hand": " ".join(_core.tile_code(t) for t in hand),
            "context": {"round_wind": rng.choice(SEATS), "win_by": win_by},
        }
        if win_by == "discard":
            record["discarder"] = rng.choice([s for s in SEATS if s != winner])
        elif rng.random() < 0.1:
            record["context"]["last_tile"] = True
        try:
            settle_record(record)
        except MahjongError:
            continue
        records.append(record)
    return records


def _random_complete(rng: random.Random, types: list[int], sets: int) -> list[int] | None:
    counts: Counter[int] = Counter()
    tiles: list[int] = []
    for _ in range(sets):
        if rng.random() < 0.5:
            t = rng.choice(types)
            meld = [t, t, t]
        else:
            suited = [t for t in types if t < 27 and t % 9 <= 6]
            t = rng.choice(suited)
            meld = [t, t + 1, t + 2]
        tiles += meld
        counts.update(meld)
    pair = rng.choice(types)
    tiles += [pair, pair]
    counts.update([pair, pair])
    if max(counts.values()) > 4:
        return None
    rng.shuffle(tiles)
    return tiles


def crosscheck(
    game: str, records: list[dict[str, Any]], answerer: Answerer, scorer: str, keep: int = 10
) -> ScorerReport:
    """Settle every record ourselves, ask the scorer, and group the mismatches by defect."""
    for number, record in enumerate(records, start=1):
        if record.get("game", game) != game:
            raise CrosscheckError(
                f"record {number}: game: a {str(record['game'])[:40]!r} record, but the "
                f"crosscheck is of {game}"
            )
    requests = [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in records]
    settled = [settle_game(r) for r in records]
    start = time.perf_counter()
    answers: list[dict[str, Any]] = []
    error = ""
    try:
        answers.extend(_answers(answerer, requests))
    except EvaluatorError as exc:
        error = str(exc)
    seconds = time.perf_counter() - start
    per_field: Counter[tuple[str, str]] = Counter()
    shared: dict[tuple[str, str], set[str]] = {}
    kinds = Counter(_kind(s) for s in settled)
    first: list[ScorerMismatch] = []
    mismatched = 0
    # A scorer that failed part way: the records it answered are still compared.
    for request, record, game_result, answer in zip(
        requests, records, settled, answers, strict=False
    ):
        expected = expected_answer(game_result)
        fields = _differences(expected, answer)
        if not fields:
            continue
        mismatched += 1
        features = _features(game_result, record)
        for name, want, got in fields:
            group = (name, _kind(game_result))
            per_field[group] += 1
            shared[group] = shared.get(group, features) & features
            if len(first) < keep:
                first.append(ScorerMismatch(request, name, want, got, tuple(sorted(features))))
    defects = tuple(
        ScorerDefect(name, kind, count, kinds[kind], tuple(sorted(shared[(name, kind)])))
        for (name, kind), count in per_field.most_common()
    )
    return ScorerReport(
        game, scorer, len(records), mismatched, defects, tuple(first), seconds, error
    )


def _answers(answerer: Answerer, requests: list[str]) -> Iterator[dict[str, Any]]:
    lines = answerer(iter(requests))
    for request in requests:
        line = next(lines, None)
        if line is None:
            raise EvaluatorError(f"scorer stopped answering at record {request[:80]!r}")
        try:
            answer = strict_json.loads(line, "scorer answer")
        except strict_json.StrictJsonError as exc:
            raise EvaluatorError(
                f"scorer answered {line[:200]!r} (not JSON: {exc}) to {request[:80]!r}"
            ) from None
        problem = _answer_problem(answer)
        if problem is not None:
            raise EvaluatorError(f"scorer answered {line[:200]!r} to {request[:80]!r}: {problem}")
        yield answer
    if next(lines, None) is not None:
        raise EvaluatorError("scorer gave more answers than there were records")


def _is_amount(value: Any) -> bool:
    """An amount as the protocol writes it: a whole number or a fraction string "n/d"."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    if isinstance(value, str):
        try:
            Fraction(value)
        except (ValueError, ZeroDivisionError):
            return False
        return True
    return False


def _answer_problem(answer: Any) -> str | None:
    """What makes an answer break the protocol (wrong keys or types), or ``None``. JSON's
    true and false are not the numbers 1 and 0."""
    if not isinstance(answer, dict) or set(answer) != ANSWER_KEYS:
        return "expected an object with fan, net, commission (exactly these keys)"
    fan = answer["fan"]
    if fan is not None and (isinstance(fan, bool) or not isinstance(fan, int)):
        return f"fan {fan!r}: expected a whole number (or null for a false win)"
    net = answer["net"]
    if not isinstance(net, dict) or not set(net) <= set(SEATS):
        return "net: expected an object of seats (E, S, W, N) to amounts"
    for seat, amount in net.items():
        if not _is_amount(amount):
            return f'net {seat} {amount!r}: expected a whole number or a fraction "n/d"'
    if not _is_amount(answer["commission"]):
        return f'commission {answer["commission"]!r}: expected a whole number or "n/d"'
    return None


def _differences(expected: dict[str, Any], got: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    out = []
    if expected["fan"] != got.get("fan"):
        out.append(("fan", expected["fan"], got.get("fan")))
    net = got.get("net")
    got_net: dict[str, Any] = net if isinstance(net, dict) else {}
    for seat, amount in expected["net"].items():
        if _same_amount(amount, got_net.get(seat)):
            continue
        role = "the dealer's (E)" if seat == "E" else f"{seat}'s"
        out.append((f"net result, {role}", amount, got_net.get(seat)))
    if not _same_amount(expected["commission"], got.get("commission")):
        out.append(("commission (第八条)", expected["commission"], got.get("commission")))
    return out


def _same_amount(want: int | str, got: Any) -> bool:
    if got is None or isinstance(got, bool):
        return False
    try:
        return Fraction(str(want)) == Fraction(str(got))
    except (ValueError, ZeroDivisionError):
        return False
