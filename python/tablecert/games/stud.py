"""The exact par sheet of any stud poker game its rule file describes.

The description (:func:`tablecert.rules.stud.describe`) gives the deal, the ranking, the
qualifier, the decisions and every bet's settlement; the generic engine
(``_core.stud_analyze``) counts every situation's dealer completions by outcome and chooses
each situation's best decision from the exact values. Here the counts become the par sheet:
every outcome's probability and value, the house edge and the element of risk, how often each
decision is taken, the strategy by category, every side bet's return from the category
counts of its hands, and the progressive's sheet (:mod:`tablecert.games.progressive`: its
prizes depend on the player's five cards alone). Nothing here knows a game: a game is its
rule file.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any

from tablecert import _core
from tablecert.distributed import Executor
from tablecert.games import stud_strategy
from tablecert.games.common import AnalysisError, OutcomeRow, Returns, fraction_json
from tablecert.games.progressive import Progressive, progressive_of
from tablecert.games.stud_strategy import ClassCounts, StrategyTable
from tablecert.poker import engine_ranking
from tablecert.rules import RuleFile, load_rules
from tablecert.rules.stud import SideBet, StudDescription, describe

#: Progress: (finished player hands, all player hands).
ProgressCallback = Callable[[int, int], None]

_OUTCOMES = ("dealer does not qualify", "player wins", "tie", "dealer wins")


@dataclass(frozen=True)
class DecisionShare:
    """How often one decision is taken under optimal play."""

    decision: str
    situations: int
    total: int

    @property
    def probability(self) -> Fraction:
        return Fraction(self.situations, self.total)

    def as_json(self) -> dict[str, Any]:
        return {
            "decision": self.decision,
            "situations": self.situations,
            "probability": fraction_json(self.probability),
        }


@dataclass(frozen=True)
class CategoryStrategy:
    """The decisions taken with a hand of one category: situations per decision."""

    category: str
    situations: tuple[int, ...]
    indifferent: int

    def as_json(self, decisions: Sequence[str]) -> dict[str, Any]:
        return {
            "category": self.category,
            "situations": dict(zip(decisions, self.situations, strict=True)),
            "indifferent": self.indifferent,
        }


@dataclass(frozen=True)
class SideBetSheet(Returns):
    """A side bet's return: its paying events and the house edge per unit."""

    id: str
    name: str
    article: str
    hands: int
    rows: tuple[OutcomeRow, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "article": self.article,
            "hands": self.hands,
            "house_edge": fraction_json(self.house_edge),
            "rows": [r.as_json() for r in self.rows],
        }


@dataclass(frozen=True)
class CapPoint:
    """The house edge under one per-round maximum payout (currency units, 0 = none), and how
    it was obtained exactly: "same values" (the engine is given exactly the values of an
    analysis already made, under the file's maximum or another point's: the same figures) or
    "full analysis"."""

    maximum_payout: Fraction
    house_edge: Fraction
    element_of_risk: Fraction
    method: str

    def as_json(self) -> dict[str, Any]:
        return {
            "maximum_payout": str(self.maximum_payout),
            "house_edge": fraction_json(self.house_edge),
            "element_of_risk": fraction_json(self.element_of_risk),
            "method": self.method,
        }


@dataclass(frozen=True)
class CapTerms:
    """The per-round maximum payout the sheet was computed under (one that can bind): the
    maximum in currency units, the ante it is judged against, what it covers, its article."""

    maximum_payout: Fraction
    ante: Fraction
    categories: tuple[str, ...]
    bets: tuple[str, ...]
    article: str

    def as_json(self) -> dict[str, Any]:
        return {
            "maximum_payout": str(self.maximum_payout),
            "ante": str(self.ante),
            "antes": fraction_json(self.maximum_payout / self.ante),
            "categories": list(self.categories),
            "bets": list(self.bets),
            "article": self.article,
        }


def cap_terms(d: StudDescription) -> CapTerms | None:
    """The description's per-round cap, if it sets a maximum (None: no cap, or 0 = none)."""
    cap = d.settlement.cap
    if cap is None or cap.limit is None:
        return None
    return CapTerms(
        cap.maximum_payout.value,
        cap.ante.value,
        cap.categories.value,
        cap.bets.value,
        cap.maximum_payout.article,
    )


@dataclass(frozen=True)
class StudAnalysis(Returns):
    """A stud game's par sheet under optimal play, exact throughout (the expected value and
    house edge per unit ante). ``strategy_table`` (the decisions by hand class) and
    ``cap_curve`` are there when asked for; ``cap`` states the per-round maximum applied;
    ``progressive`` is the progressive's sheet when the file has one."""

    title: str
    rules_path: str
    rules_sha256: str
    situations: int
    completions: int
    rows: tuple[OutcomeRow, ...]
    decisions: tuple[DecisionShare, ...]
    strategy: tuple[CategoryStrategy, ...]
    raise_multiples: tuple[Fraction, ...]
    side_bets: tuple[SideBetSheet, ...]
    showdowns: int
    equal_ranks: int
    won_on_suit: int
    strategy_table: StrategyTable | None = field(default=None, repr=False)
    cap_curve: tuple[CapPoint, ...] = ()
    #: The per-round cap applied (None: no maximum).
    cap: CapTerms | None = None
    progressive: Progressive | None = None

    @property
    def average_wager(self) -> Fraction:
        """The ante plus the expected raise, per unit ante."""
        raised = sum(
            (
                m * d.probability
                for m, d in zip(self.raise_multiples, self.decisions[1:], strict=True)
            ),
            Fraction(0),
        )
        return 1 + raised

    @property
    def element_of_risk(self) -> Fraction:
        """Expected loss per unit actually wagered."""
        return self.house_edge / self.average_wager

    def as_json(self) -> dict[str, Any]:
        names = [d.decision for d in self.decisions]
        return {
            "schema": "tablecert.stud-analysis/1",
            "title": self.title,
            "rules": self.rules_path,
            "rules_sha256": self.rules_sha256,
            "situations": self.situations,
            "completions_per_situation": self.completions,
            "house_edge": fraction_json(self.house_edge),
            "element_of_risk": fraction_json(self.element_of_risk),
            "average_wager": fraction_json(self.average_wager),
            "decisions": [d.as_json() for d in self.decisions],
            "strategy": [s.as_json(names) for s in self.strategy],
            "rows": [r.as_json() for r in self.rows],
            "suit_tie_break": {
                "showdowns": self.showdowns,
                "equal_ranks": self.equal_ranks,
                "decided_by_suit_won_by_player": self.won_on_suit,
            },
            "side_bets": [b.as_json() for b in self.side_bets],
            **({"per_round_cap": self.cap.as_json()} if self.cap is not None else {}),
            **({"progressive": self.progressive.as_json()} if self.progressive else {}),
            **({"cap_curve": [p.as_json() for p in self.cap_curve]} if self.cap_curve else {}),
        }


def engine_game(d: StudDescription) -> _core.StudGame:
    """The engine's game for a description, on the full deck."""
    return _core.StudGame(
        ranking(d),
        list(range(52)),
        d.deal.player_cards.value,
        d.deal.dealer_cards.value,
        d.deal.upcards.value,
        None if d.qualifier is None else d.qualifier.engine,
    )


def ranking(d: StudDescription) -> _core.StudRanking:
    """The engine's ranking of a description's hands."""
    return engine_ranking(d.ranking.uses, d.ranking.names, d.ranking)


def _decision_names(d: StudDescription) -> tuple[str, ...]:
    return ("fold", *(f"raise {_multiple(m.value)}" for m in d.raises))


def _multiple(m: Fraction) -> str:
    return f"{m}x"


@dataclass(frozen=True)
class RowCounts:
    """One (category place, decision) of a run: the engine's ``StudRow`` as plain integers,
    so shards from other processes add up (:func:`merge_shards`)."""

    category: int
    decision: int
    situations: int
    indifferent: int
    not_qualifying: int
    won: int
    tied: int
    lost: int
    equal_ranks: int
    won_on_suit: int


_ROW_FIELDS = tuple(RowCounts.__dataclass_fields__)


@dataclass(frozen=True)
class Counted:
    """A run's totals: completions per situation, situations, rows by category and decision,
    and (when asked for) the situations by decision of every hand class."""

    completions: int
    situations: int
    rows: tuple[RowCounts, ...]
    classes: ClassCounts | None = None


def _counted(d: StudDescription, run: _core.StudRun) -> Counted:
    rows = tuple(RowCounts(*(getattr(r, f) for f in _ROW_FIELDS)) for r in run.rows)
    classes = None
    if run.decisions is not None:
        classes = stud_strategy.count_classes(
            ranking(d),
            list(range(52)),
            d.deal.player_cards.value,
            d.deal.upcards.value,
            run.decisions,
            1 + len(d.raises),
        )
    return Counted(run.completions, run.situations, rows, classes)


@dataclass(frozen=True)
class StudShard:
    """One shard of a stud analysis: the game's description (picklable: a worker rebuilds the
    engine's game from it as this process does), its part ``(k, n)`` of the engine's cut, and
    whether it counts its decisions by hand class."""

    description: StudDescription
    part: tuple[int, int]
    strategy: bool = False


def shards(d: StudDescription, count: int, *, strategy: bool = False) -> list[StudShard]:
    """The analysis of ``d`` cut into ``count`` shards."""
    return [StudShard(d, (k, count), strategy) for k in range(count)]


def run_shard(shard: StudShard) -> Counted:
    """Run one shard on this machine (one thread: a worker is one of many)."""
    d = shard.description
    _, values = d.values()
    run = _core.stud_analyze(
        engine_game(d), values, decisions=shard.strategy, threads=1, shard=shard.part
    )
    return _counted(d, run)


def merge_shards(parts: Sequence[Counted]) -> Counted:
    """The shards' rows added up: the whole run's rows, exactly."""
    rows: dict[tuple[int, int], list[int]] = {}
    for part in parts:
        for r in part.rows:
            fields = [getattr(r, f) for f in _ROW_FIELDS]
            total = rows.setdefault((r.category, r.decision), [*fields[:2]] + [0] * 8)
            for i in range(2, len(fields)):
                total[i] += fields[i]
    merged = tuple(RowCounts(*rows[k]) for k in sorted(rows))
    situations = sum(r.situations for r in merged)
    classes = [p.classes for p in parts if p.classes is not None]
    together = stud_strategy.merge(classes) if len(classes) == len(parts) else None
    return Counted(parts[0].completions, situations, merged, together)


def _run(
    d: StudDescription,
    values: list[list[list[int]]],
    progress: ProgressCallback | None,
    strategy: bool,
) -> Counted:
    """The engine's run in this process; with ``progress``, reported from this thread while
    the core works (counting the player hands); with ``strategy``, the decisions counted by
    hand class."""
    game = engine_game(d)
    hands = math.comb(52, d.deal.player_cards.value)
    if progress is None:
        return _counted(d, _core.stud_analyze(game, values, decisions=strategy))
    counter = _core.Progress()
    result: list[_core.StudRun] = []
    failure: list[BaseException] = []

    def work() -> None:
        try:
            result.append(_core.stud_analyze(game, values, decisions=strategy, progress=counter))
        except BaseException as exc:  # re-raised in the caller's thread
            failure.append(exc)

    worker = threading.Thread(target=work)
    worker.start()
    while worker.is_alive():
        progress(min(counter.done, hands), hands)
        worker.join(0.1)
    if failure:
        raise failure[0]
    progress(hands, hands)
    return _counted(d, result[0])


#: Shards per worker thread of a cluster: small enough to balance, few enough to merge fast.
SHARDS_PER_THREAD = 2


def analyze(
    rules: RuleFile | str,
    *,
    progress: ProgressCallback | None = None,
    executor: Executor | None = None,
    shards_count: int | None = None,
    cap: Fraction | int | None = None,
    strategy: bool = False,
    cap_curve: Iterable[Fraction | int] = (),
) -> StudAnalysis:
    """The exact par sheet of the stud game ``rules`` (a rule file, its path or bundled name)
    describes; with an ``executor``, computed there as ``shards_count`` shards (the same
    figures, bit for bit). ``cap`` replaces the file's per-round maximum payout (currency
    units, 0 = none); ``strategy`` adds the decisions by hand class; ``cap_curve`` the house
    edge at each of these maxima."""
    rf = rules if isinstance(rules, RuleFile) else load_rules(rules)
    d = describe(rf)
    if cap is not None:
        d = _capped(d, Fraction(cap))
    maxima = [Fraction(m) for m in cap_curve]
    if maxima:
        _capped(d, maxima[0])  # a file without a cap is refused before anything runs
    sheet = _analysis(rf, d, progress, executor, shards_count, strategy)
    if not maxima:
        return sheet
    done = {_values_key(d): (sheet.house_edge, sheet.element_of_risk)}
    points = []
    for maximum in maxima:
        values = _values_key(_capped(d, maximum))
        if values in done:
            points.append(CapPoint(maximum, *done[values], "same values"))
            continue
        moved = _analysis(rf, _capped(d, maximum), None, executor, shards_count, False)
        done[values] = (moved.house_edge, moved.element_of_risk)
        points.append(CapPoint(maximum, *done[values], "full analysis"))
    return replace(sheet, cap_curve=tuple(points))


def _values_key(d: StudDescription) -> tuple[tuple[tuple[Fraction, ...], ...], ...]:
    """What the engine is given for ``d``, exactly (two descriptions with the same key have
    the same analysis)."""
    return tuple(tuple(tuple(o) for o in dv) for dv in d.settlement.fractions())


def _capped(d: StudDescription, maximum: Fraction) -> StudDescription:
    """``d`` under another per-round maximum payout; a game without a cap is refused."""
    cap = d.settlement.cap
    if cap is None:
        raise AnalysisError(
            "the rule file sets no per-round cap (settlement.cap, or play.cap): there is no "
            "maximum payout to change"
        )
    if maximum < 0:
        raise AnalysisError(f"maximum payout {maximum} is negative (0 = no maximum)")
    return d.with_maximum_payout(maximum)


def _analysis(
    rf: RuleFile,
    d: StudDescription,
    progress: ProgressCallback | None,
    executor: Executor | None,
    shards_count: int | None,
    strategy: bool,
) -> StudAnalysis:
    den, values = d.values()
    if executor is not None:
        count = shards_count or SHARDS_PER_THREAD * executor.parallelism
        plan = shards(d, count, strategy=strategy)
        run = merge_shards(executor.map(run_shard, plan, progress))
    else:
        run = _run(d, values, progress, strategy)
    return _sheet(rf, d, run, den)


def _sheet(rf: RuleFile, d: StudDescription, run: Counted, den: int) -> StudAnalysis:
    names = d.ranking.names[::-1]  # by position, lowest first
    decisions = _decision_names(d)
    fractions = d.settlement.fractions()
    binds = d.settlement.binds()
    total = run.situations * run.completions
    counted: dict[tuple[str, Fraction], int] = {}
    articles: dict[str, str] = {}
    per_decision = [0] * len(decisions)
    per_category: dict[int, list[int]] = {}
    indifferent: dict[int, int] = {}
    showdowns = equal = suit = 0
    s = d.settlement
    for row in run.rows:
        per_decision[row.decision] += row.situations
        per_category.setdefault(row.category, [0] * len(decisions))[row.decision] += row.situations
        indifferent[row.category] = indifferent.get(row.category, 0) + row.indifferent
        if row.decision == 0:
            key = ("fold", fractions[0][0][row.category])
            counted[key] = counted.get(key, 0) + row.situations * run.completions
            articles["fold"] = s.fold.article
            continue
        showdowns += row.won + row.tied + row.lost
        equal += row.equal_ranks
        suit += row.won_on_suit
        counts = (row.not_qualifying, row.won, row.tied, row.lost)
        label_of = (
            "dealer does not qualify",
            f"player wins with {names[row.category]}",
            "tie",
            "dealer wins",
        )
        article_of = (
            s.not_qualifying.ante.article,
            s.win[row.category].per_raise.article,
            s.loss.ante.article if s.tie is None else s.tie.ante.article,
            s.loss.ante.article,
        )
        for o, n in enumerate(counts):
            if n == 0:
                continue
            value = fractions[row.decision][o][row.category]
            event = f"{decisions[row.decision]}: {label_of[o]}"
            if o != 1 and _varies(fractions[row.decision][o]):
                event += f" ({names[row.category]})"
            if binds[row.decision][o][row.category]:
                event += " (capped)"
            key = (event, value)
            counted[key] = counted.get(key, 0) + n
            articles[event] = article_of[o]
    rows = tuple(
        OutcomeRow(event, articles[event], value, count, total)
        for (event, value), count in counted.items()
    )
    strategy = tuple(
        CategoryStrategy(names[c], tuple(per_category[c]), indifferent.get(c, 0))
        for c in sorted(per_category, reverse=True)
    )
    shares = tuple(
        DecisionShare(n, k, run.situations) for n, k in zip(decisions, per_decision, strict=True)
    )
    table = None
    if run.classes is not None:
        upcard = bool(d.deal.upcards.value)
        table = stud_strategy.strategy_table(names, decisions, upcard, run.classes)
    return StudAnalysis(
        title=str(rf.require("game.title").value),
        rules_path=rf.path.name,
        rules_sha256=rf.sha256,
        situations=run.situations,
        completions=run.completions,
        rows=rows,
        decisions=shares,
        strategy=strategy,
        raise_multiples=tuple(m.value for m in d.raises),
        side_bets=tuple(side_bet_sheet(d, b) for b in d.side_bets),
        showdowns=showdowns,
        equal_ranks=equal,
        won_on_suit=suit,
        strategy_table=table,
        cap=cap_terms(d),
        progressive=None if d.progressive is None else progressive_of(d.progressive, d.ranking),
    )


def _varies(by_category: Sequence[Fraction]) -> bool:
    return len(set(by_category)) > 1


def side_bet_sheet(d: StudDescription, bet: SideBet) -> SideBetSheet:
    """A side bet's paying events from the category counts of its hands on the full deck."""
    order = engine_ranking(bet.uses.value, bet.categories, d.ranking)
    counts = _core.stud_category_counts(order, list(range(52)), bet.card_count(d.deal))
    hands = sum(sum(row) for row in counts)
    names = bet.categories[::-1]
    by_event: dict[tuple[str, Fraction], int] = {}
    for position, row in enumerate(counts):
        for rank, n in enumerate(row):
            if n == 0:
                continue
            pay = bet.pay(position, rank)
            event = "loses" if pay < 0 else names[position]
            key = (event, pay)
            by_event[key] = by_event.get(key, 0) + n
    rows = tuple(
        OutcomeRow(event, _bet_article(bet, event, names), value, n, hands)
        for (event, value), n in sorted(by_event.items(), key=lambda kv: -kv[0][1])
    )
    return SideBetSheet(bet.id, bet.name.value, bet.name.article, hands, rows)


def _bet_article(bet: SideBet, event: str, names: Sequence[str]) -> str:
    if event in names:
        return bet.pays[list(names).index(event)].article
    return bet.name.article
