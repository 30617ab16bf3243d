"""Every value of every rule file drives what it names, or a change to it is refused.

For each bundled rule file, every value is changed in a copy (the changes are generated from
the parsed file, not listed by hand) and the copy is run through what reads that game's rules:
orderings and their explanations, category tables, par sheets, the inputs the core receives,
mahjong scoring, settlement and dealing, and the configuration check. Each change must either
change that result or be refused with an error naming the changed key.

The constraints written beside a value (``house_choice``, ``range``, ``duty``, ``kind``,
``at_least``, ``one_of``, ``submittable``) are changed the same way, and judged by what reads
them: the configuration check's line for that value, under submissions of probe values.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import re
import tomllib
from collections.abc import Callable, Iterator, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablecert import _core
from tablecert.errors import TableCertError
from tablecert.rules import RULES_DIR, load_rules
from tablecert.rules.constraints import FIELDS, KINDS
from tests.support import caribbean_oracle
from tests.support.stud_figures import (
    DECKS,
    FULL_DECKS,
    FULL_SIDE_BET_DECKS,
    SIDE_BET_DECKS,
    game_figures,
    side_bet_figures,
)

RULE_FILES = sorted(RULES_DIR.glob("*.toml"))
# Values only the configuration check reads (`tablecert check`): what a casino's table must
# offer. Their probe is the check's verdict on a submission of the bundled values.
CHECKED_ONLY = ("table.seats", "table.dealing")
# Lists read as sets: their order is no value (reversing them changes nothing, rightly).
UNORDERED = (
    "table.dealing",
    "play.cap.categories",
    "payment.limits",
    "fan.supersedes.",
    "liability.exempt_hands",
    "progressive.meter_pays",
)


def rule_values(data: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """Every rule value of a parsed file: (dotted key, value)."""
    for key, node in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(node, Mapping) and "value" in node:
            yield dotted, node["value"]
        elif isinstance(node, Mapping):
            yield from rule_values(node, f"{dotted}.")


def changes(value: Any) -> list[tuple[str, Any]]:
    """Values that differ from ``value`` and keep its type: (how, new value)."""
    if isinstance(value, bool):
        return [("negated", not value)]
    if isinstance(value, int):
        return [("plus one", value + 1)]
    if isinstance(value, str):
        try:
            return [("plus one", str(Fraction(value) + 1))]
        except (ValueError, ZeroDivisionError):
            return [("renamed", f"{value}-changed")]
    if isinstance(value, list):
        out: list[tuple[str, Any]] = []
        if len(value) > 1 and value[::-1] != value:
            out.append(("reversed", value[::-1]))
        if len(value) > 1:
            out.append(("without its last item", value[:-1]))
        if value:
            how, first = changes(value[0])[0]
            out.append((f"first item {how}", [first, *value[1:]]))
        return out
    if isinstance(value, dict):
        key = sorted(value)[0]
        how, changed = changes(value[key])[0]
        return [(f"{key} {how}", {**value, key: changed})]
    raise AssertionError(f"no change for {value!r}")


def with_value(data: Mapping[str, Any], dotted: str, value: Any) -> dict[str, Any]:
    return with_field(data, dotted, "value", value)


def toml_text(data: Mapping[str, Any]) -> str:
    """A rule file's TOML: every value inline under its table's header."""
    lines: list[str] = []

    def table(node: Mapping[str, Any], path: list[str]) -> None:
        values = {k: v for k, v in node.items() if isinstance(v, Mapping) and "value" in v}
        tables = {k: v for k, v in node.items() if k not in values}
        if path:
            lines.append(f"[{'.'.join(_key(p) for p in path)}]")
        lines.extend(f"{_key(k)} = {_inline(v)}" for k, v in values.items())
        for k, v in tables.items():
            table(v, [*path, k])

    table(data, [])
    return "\n".join(lines) + "\n"


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def _inline(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_inline(v) for v in value) + "]"
    return "{ " + ", ".join(f"{_key(k)} = {_inline(v)}" for k, v in value.items()) + " }"


# --- what reads each game's rules -----------------------------------------------------------


def _poker_pairs(game: str) -> list[tuple[list[int], list[int]]]:
    """Hand pairs for the ordering: hands of every category (and every ace-low straight kind)
    against their suit-relabelled copies (equal ranks: suits decide), and random pairs."""
    from tablecert.poker import GAMES, ordering

    size = GAMES[game]
    keys = np.frombuffer(_core.all_strength_keys(size, ordering(game).tie_breaks), dtype="<u4")
    category = keys >> 22
    lowest_top = keys >> 18 & 0xF
    picked: list[int] = []
    for c in range(len(_core.category_names(size))):
        of_category = np.flatnonzero(category == c)
        picked += of_category[:: max(1, len(of_category) // 4)][:4].tolist()
        low = of_category[lowest_top[of_category] == lowest_top[of_category].min()]
        picked += low[:2].tolist()
    pairs = []
    perms = [[1, 0, 2, 3], [3, 2, 1, 0], [2, 3, 0, 1], [0, 1, 3, 2], [1, 2, 3, 0], [3, 0, 1, 2]]
    for index in picked:
        hand = _core.hand_at(index, size)
        for perm in perms:
            other = [c - c % 4 + perm[c % 4] for c in hand]
            if not set(other) & set(hand):
                pairs.append((hand, other))
    rng = random.Random(size)
    for _ in range(300):
        cards = rng.sample(range(52), 2 * size)
        pairs.append((cards[:size], cards[size:]))
    return pairs


def poker_outcome(game: str, path: Path, full: bool) -> Any:
    from tablecert.games import caribbean_stud, q_poker
    from tablecert.games.progressive import progressive
    from tablecert.hand_tables import category_table
    from tablecert.poker import decide, ordering
    from tablecert.rules.stud import describe

    order = ordering(game, path)
    description = describe(order.rules)
    table = category_table(game, path).as_json()
    out: dict[str, Any] = {
        "decisions": [
            (d.outcome, d.step, d.article)
            for d in (decide(game, a, b, path) for a, b in _POKER_PAIRS[game])
        ],
        "categories": {k: v for k, v in table.items() if k != "rules_sha256"},
        "variant": order.rules.variant,
        # The side bets by the returns the engine counts, the rest of the description as read.
        "description": dataclasses.replace(description, side_bets=()),
        "side bets": side_bet_figures(description, FULL_SIDE_BET_DECKS if full else SIDE_BET_DECKS),
    }
    if game == "q-poker":
        sheet = q_poker.analyze(path).as_json()
        out["par sheet"] = {k: v for k, v in sheet.items() if not k.startswith("rules")}
        return out
    pay = caribbean_stud.payouts(order)
    shard = caribbean_oracle.upcard_shards(order, pay, 52)[17 if full else 0]
    out["core"] = (
        caribbean_oracle.run_upcard_shard(shard) if full else (shard.tie_breaks, shard.qualifier)
    )
    out["payouts"] = pay
    out["values"] = shard.payouts
    out |= progressive_figures(progressive(order.rules, order.tie_breaks))
    return out


def progressive_figures(prog: Any) -> dict[str, Any]:
    """A progressive's sheet, and rounds with several meter winners paid by Art. 10's order
    under the file's readings."""
    return {
        "progressive": prog.as_json(),
        "meter rounds": [
            repr(prog.pay_round(Fraction("123456.7"), seats, Fraction(len(seats))))
            for seats in (
                [(1, "straight flush"), (2, "royal flush"), (4, "straight flush"), (6, "flush")],
                [(3, "royal flush"), (5, "royal flush")],
                [(2, "straight flush"), (3, "four of a kind")],
            )
        ],
    }


_POKER_PAIRS = {game: _poker_pairs(game) for game in ("q-poker", "caribbean-stud")}


def stud_outcome(game: str, path: Path, full: bool) -> Any:
    """A game described by its file: what the generic engine computes from the description
    (its rows, the expected value, the side bets' returns) on a reduced deck where every
    category occurs, its progressive's figures, and the file's labels."""
    from tablecert.games.progressive import progressive_of
    from tablecert.rules.stud import describe

    rules = load_rules(path)
    description = describe(rules)
    labels = [rules.require(f"game.{k}").value for k in ("variant", "title", "source")]
    decks = FULL_DECKS if full else DECKS
    jackpot = description.progressive
    out = {
        "labels": labels,
        "game": game_figures(description, decks[description.ranking.uses]),
        "side bets": side_bet_figures(description, FULL_SIDE_BET_DECKS if full else SIDE_BET_DECKS),
    }
    if jackpot is not None:
        out |= progressive_figures(progressive_of(jackpot, description.ranking))
    return out


def mahjong_outcome(game: str, path: Path, full: bool) -> Any:
    from tablecert.conformance.mahjong_crosscheck import expected_answer, load_corpus
    from tablecert.mahjong.analysis import analyze
    from tablecert.mahjong.fan import FanRules
    from tablecert.mahjong.record import settle_record
    from tablecert.mahjong.wall import deal

    rules = load_rules(path)
    corpus = load_corpus(
        Path(__file__).resolve().parents[2] / "fixtures" / "mahjong" / f"corpus-{game[8:]}.jsonl"
    )
    records = [*(corpus if full else corpus[:100]), *_extra_records(game, corpus)]
    tiles = _core.tile_types("simple" if game == "mahjong-simple" else "traditional")
    wall = [t for t in tiles for _ in range(4)]
    random.Random(7).shuffle(wall)
    dice = load_rules(f"{game}.macau").value_of("game.dice", int)
    throws = ([1, 2, 3, 4][:dice], [6, 5, 6, 5][:dice], [3, 4, 2, 1][:dice], [6] * dice)
    fan = FanRules.of(rules)
    names = sorted(fan.items)
    out: dict[str, Any] = {
        "labels": (rules.variant, rules.require("game.title").value),
        "settled": [
            _or_refusal(path, lambda r: expected_answer(settle_record(r, rules)), r)
            for r in records
        ],
        "deals": [
            _or_refusal(path, lambda t: repr(deal(game, wall, t, rules=rules)), t) for t in throws
        ],
        # Every item alone and every two together, self-drawn and on a discard.
        "pricing": [
            _or_refusal(path, lambda p: repr(fan.price(list(p[0]), p[1])), (pair, win_by))
            for pair in [(n,) for n in names] + [(a, b) for a in names for b in names if a < b]
            for win_by in ("self-drawn", "discard")
        ],
    }
    if full or game == "mahjong-simple":
        out["analysis"] = analyze(game, rules).as_json()
    return out


HONOURS = ("E", "S", "W", "N", "Rd", "Gd", "Wd")


def _or_refusal(path: Path, compute: Callable[[Any], Any], argument: Any) -> Any:
    """A result, or the refusal of an input as the result (a refusal of the rule file, which
    names it, is raised)."""
    try:
        return compute(argument)
    except TableCertError as exc:
        if str(path) in str(exc):
            raise
        return {"refused": str(exc)}


def _extra_records(game: str, corpus: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records that read what the corpus may not: one win at every table limit, wins with a
    small stake (the cap), the corpus's discard wins with each liability of the bundled rule
    file (and with a first-discard honour), and false wins by every seat."""
    from tablecert.mahjong.payments import table_limits

    rules = load_rules(f"{game}.macau")
    reasons = [k for k, _ in rule_values(rules.table("liability")) if "false_win" not in k]
    wins = [r for r in corpus if r.get("discarder")][:3]
    out = [{**wins[0], "limit": limit.text} for limit in table_limits(rules)]
    out += [{**r, "stake": 1} for r in wins]
    honour_wins = [
        {**r, "winning_tile": tile}
        for r in corpus
        if r.get("discarder")
        for tile in r["hand"].split()[:1]
        if tile in HONOURS
    ][:3]
    for reason in reasons:
        for record in honour_wins:
            out.append({**record, "liability": reason, "first_discard_honour": True})
    if game == "mahjong-traditional":
        # 全字 and 全么 won on a discard, a case of liability: exempt (第十条(甲)(9)).
        for hand in ("E E E S S S W W W N N N Rd Rd", "1m 1m 1m 9m 9m 9m 1p 1p 1p 9p 9p 9p 1s 1s"):
            record = {**wins[0], "hand": hand, "liability": "held_last_honour"}
            out.append(record)
    for reason in reasons:
        for record in wins:
            out.append({**record, "liability": reason})
            out.append({**record, "liability": reason, "first_discard_honour": True})
    out += [{"game": game, "limit": wins[0]["limit"], "false_win": seat} for seat in "ESWN"]
    return out


OUTCOMES: dict[str, Callable[[str, Path, bool], Any]] = {
    "q-poker": poker_outcome,
    "caribbean-stud": poker_outcome,
    "mahjong-simple": mahjong_outcome,
    "mahjong-traditional": mahjong_outcome,
    "stud": stud_outcome,
}


def check_outcome(game: str, path: Path, data: Mapping[str, Any], tmp: Path) -> Any:
    """The configuration check's verdicts on submissions of the bundled values (one per
    allowed choice of a list)."""
    from tablecert.conformance.configuration import check_configuration

    body = {k: v for k, v in rule_values(data) if k.startswith("table.")}
    choices = max(len(v) if isinstance(v, list) else 1 for v in body.values())
    verdicts = []
    for i in range(choices):
        submission = tmp / f"submission-{i}.toml"
        submission.write_text(
            "".join(
                f"{k} = {_inline(v[min(i, len(v) - 1)] if isinstance(v, list) else v)}\n"
                for k, v in body.items()
            )
            + f'[submission]\ngame = "{game}"\n',
            encoding="utf-8",
        )
        report = check_configuration(submission, path)
        verdicts += [(line.key, line.verdict) for line in report.lines if line.key in body]
    return verdicts


def _mutations(every: bool) -> Iterator[Any]:
    """Each value's changes: all of them, or (the normal run) the first change of each."""
    for path in RULE_FILES:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for dotted, value in rule_values(data):
            kept = [
                (how, new)
                for how, new in changes(value)
                if every or not (how == "reversed" and dotted.startswith(UNORDERED))
            ]
            for how, new in kept[: None if every else 1]:
                yield pytest.param(path, dotted, how, new, id=f"{path.stem}:{dotted}:{how}")


_BASELINES: dict[tuple[Path, bool], Any] = {}


def baseline(path: Path, full: bool, folder: Path) -> Any:
    """The result of the unchanged copy of a rule file (computed once per file)."""
    if (path, full) not in _BASELINES:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        same = folder / f"{path.stem}.same.toml"
        same.write_text(toml_text(data), encoding="utf-8")
        _BASELINES[path, full] = OUTCOMES[data["game"]["id"]["value"]](
            data["game"]["id"]["value"], same, full
        )
    return _BASELINES[path, full]


def assert_change_drives_or_is_refused(
    path: Path, dotted: str, how: str, new: Any, tmp_path: Path, full: bool
) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    game = data["game"]["id"]["value"]
    changed = tmp_path / "changed.toml"
    changed.write_text(toml_text(with_value(data, dotted, new)), encoding="utf-8")
    if how == "reversed" and dotted.startswith(UNORDERED):
        load_rules(changed)  # accepted: the order of a set is no value
        return
    if dotted in CHECKED_ONLY:
        same = tmp_path / "same.toml"
        same.write_text(toml_text(data), encoding="utf-8")
        before = check_outcome(game, same, data, tmp_path)
        after, refusal = _attempt(lambda: check_outcome(game, changed, data, tmp_path))
        if refusal is not None:
            assert f"{changed}:" in refusal, refusal
            assert f": {dotted}: " in refusal, refusal
            return
        assert after != before, f"{path.name}: {dotted} {how} ({new!r}) changes no verdict"
        return
    before = baseline(path, full, tmp_path)
    after, refusal = _attempt(lambda: OUTCOMES[game](game, load_rules(changed).path, full))
    if refusal is not None:
        assert f"{changed}:" in refusal, refusal
        assert f": {dotted}: " in refusal or f" {dotted} " in refusal, refusal
        return
    assert after != before, f"{path.name}: {dotted} {how} ({new!r}) changes nothing"


def _attempt(compute: Callable[[], Any]) -> tuple[Any, str | None]:
    """A result, or the message of a handled refusal."""
    try:
        return compute(), None
    except TableCertError as exc:
        return None, str(exc)


@pytest.mark.parametrize(("path", "dotted", "how", "new"), list(_mutations(every=False)))
def test_every_value_drives_the_result_or_is_refused(
    path: Path, dotted: str, how: str, new: Any, tmp_path: Path
) -> None:
    assert_change_drives_or_is_refused(path, dotted, how, new, tmp_path, full=False)


@pytest.mark.slow
@pytest.mark.skipif(
    not os.environ.get("TABLECERT_SLOW"), reason="long run: set TABLECERT_SLOW=1 (and -m slow)"
)
@pytest.mark.parametrize(("path", "dotted", "how", "new"), list(_mutations(every=True)))
def test_every_change_drives_the_full_result_or_is_refused(
    path: Path, dotted: str, how: str, new: Any, tmp_path: Path
) -> None:
    """Every change of every value, judged on the full results: a shard of the Caribbean Stud
    analysis run by the core, and the traditional mahjong hand tables."""
    assert_change_drives_or_is_refused(path, dotted, how, new, tmp_path, full=True)


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.stem)
def test_the_copies_are_faithful_and_the_results_name_no_path(path: Path, tmp_path: Path) -> None:
    """The unchanged copy loads to the same data as the file, and two copies at different
    paths give equal results: only a changed value can make results differ."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    game = data["game"]["id"]["value"]
    copies = [tmp_path / "one.toml", tmp_path / "two.toml"]
    for copy in copies:
        copy.write_text(toml_text(data), encoding="utf-8")
        assert load_rules(copy).data == load_rules(path).data
    assert OUTCOMES[game](game, copies[0], False) == OUTCOMES[game](game, copies[1], False)
    assert len(list(rule_values(data))) > 20


def test_the_changes_are_changes() -> None:
    for path in RULE_FILES:
        for dotted, value in rule_values(tomllib.loads(path.read_text(encoding="utf-8"))):
            assert changes(value), dotted
            assert all(new != value for _, new in changes(value)), dotted


# --- the constraints beside the values ------------------------------------------------------

#: The fields of a rule value that constrain a submission (``reading`` and ``note`` are the
#: value's own, probed above through what reads the value).
CONSTRAINTS = tuple(name for name in FIELDS if name not in ("reading", "note"))


def constraint_fields(data: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, str, Any]]:
    """Every constraint of a parsed file: (dotted key of the value, field, its setting)."""
    for key, node in data.items():
        dotted = f"{prefix}{key}"
        if isinstance(node, Mapping) and "value" in node:
            yield from ((dotted, f, node[f]) for f in CONSTRAINTS if f in node)
        elif isinstance(node, Mapping):
            yield from constraint_fields(node, f"{dotted}.")


def constraint_changes(name: str, setting: Any) -> list[tuple[str, Any]]:
    """Settings of a constraint that differ from ``setting``: every other kind, else the
    value changes of any setting."""
    if name == "kind":
        kinds = list(KINDS)
        after = kinds[kinds.index(setting) + 1 :] + kinds[: kinds.index(setting)]
        return [(f"made {kind}", kind) for kind in after]
    return changes(setting)


def with_field(data: Mapping[str, Any], dotted: str, name: str, setting: Any) -> dict[str, Any]:
    """A copy of a parsed rule file with one field of one value (``value`` itself, or a
    constraint beside it) set to ``setting``."""
    copy: dict[str, Any] = json.loads(json.dumps(data))
    node = copy
    for part in dotted.split("."):
        node = node[part]
    node[name] = setting
    return copy


def probes(value: Any) -> list[Any]:
    """Submitted values that tell the constraints apart: the statute's value and one more, a
    negative, zero, a half, one, one and a half; for a list of names each name and another."""
    out: list[Any] = [value]
    if isinstance(value, int) and not isinstance(value, bool):
        out.append(value + 1)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        out += [*value, "none-of-these"]
    return [*out, -1, 0, "1/2", 1, "3/2"]


def constraint_outcome(path: Path, keys: list[str]) -> Any:
    """What the configuration check makes of each constrained value: the keys a submission
    may set, and the line of each value under every probe (and when not submitted)."""
    from tablecert.conformance.configuration import judge
    from tablecert.rules.submission import submittable_keys

    rules = load_rules(path)
    lines = {
        key: [judge(key, rules).as_json()]
        + [judge(key, rules, p).as_json() for p in probes(rules.require(key).value)]
        for key in keys
    }
    return {"submittable": submittable_keys(rules), "lines": lines}


def _constraint_mutations(every: bool) -> Iterator[Any]:
    for path in RULE_FILES:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for dotted, name, setting in constraint_fields(data):
            for how, new in constraint_changes(name, setting)[: None if every else 1]:
                yield pytest.param(path, dotted, name, new, id=f"{path.stem}:{dotted}:{name} {how}")


def assert_constraint_drives_or_is_refused(
    path: Path, dotted: str, name: str, new: Any, tmp_path: Path
) -> None:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    keys = sorted({k for k, _, _ in constraint_fields(data)})
    same, changed = tmp_path / "same.toml", tmp_path / "changed.toml"
    same.write_text(toml_text(data), encoding="utf-8")
    changed.write_text(toml_text(with_field(data, dotted, name, new)), encoding="utf-8")
    before = constraint_outcome(same, keys)
    after, refusal = _attempt(lambda: constraint_outcome(changed, keys))
    if refusal is not None:
        assert f"{changed}:" in refusal, refusal
        assert f": {dotted}: {name}: " in refusal, refusal
        return
    assert after != before, f"{path.name}: {dotted} {name} = {new!r} changes nothing"


@pytest.mark.parametrize(
    ("path", "dotted", "name", "new"), list(_constraint_mutations(every=False))
)
def test_every_constraint_drives_the_check_or_is_refused(
    path: Path, dotted: str, name: str, new: Any, tmp_path: Path
) -> None:
    assert_constraint_drives_or_is_refused(path, dotted, name, new, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize(("path", "dotted", "name", "new"), list(_constraint_mutations(every=True)))
def test_every_change_of_a_constraint_drives_the_check_or_is_refused(
    path: Path, dotted: str, name: str, new: Any, tmp_path: Path
) -> None:
    """Every other kind of every kind, every change of a range's keys."""
    assert_constraint_drives_or_is_refused(path, dotted, name, new, tmp_path)


def test_every_bundled_constraint_is_probed() -> None:
    """The files carry every constraint of the vocabulary, so each is mutated above."""
    found = {
        name
        for path in RULE_FILES
        for _, name, _ in constraint_fields(tomllib.loads(path.read_text(encoding="utf-8")))
    }
    assert found == set(CONSTRAINTS)
    kinds = {
        setting
        for path in RULE_FILES
        for _, name, setting in constraint_fields(tomllib.loads(path.read_text(encoding="utf-8")))
        if name == "kind"
    }
    assert kinds == set(KINDS)
