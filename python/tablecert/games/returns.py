"""Every bet's exact house edge under a submitted configuration and under the statute.

The par-sheet engines (:mod:`tablecert.games.q_poker`, :mod:`tablecert.games.caribbean_stud`,
the progressive, and for a game described by its rule file alone the generic stud engine,
:mod:`tablecert.games.stud`, with each side bet's sheet) run once on the statute's rule file
and once on the statute with the submitted values in force; a configuration they cannot
analyse gives the reason in place of an edge, never a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tablecert.errors import RulesError, TableCertError
from tablecert.rules.numbers import normalise, number
from tablecert.rules.stud import describe, is_stud
from tablecert.rules.submission import EffectiveRules


@dataclass(frozen=True)
class BetReturn:
    """One bet's exact house edge under optimal play: submitted configuration and statute."""

    bet: str
    article: str
    submitted: Fraction | None  # None: cannot be computed under the submitted values
    statute: Fraction
    why_not: str = ""

    @property
    def difference(self) -> Fraction | None:
        return None if self.submitted is None else self.submitted - self.statute

    def as_json(self) -> dict[str, Any]:
        difference = self.difference
        return {
            "bet": self.bet,
            "article": self.article,
            "house_edge_submitted": None if self.submitted is None else str(self.submitted),
            "house_edge_statute": str(self.statute),
            "difference": None if difference is None else str(difference),
            "not_computed": self.why_not or None,
        }


# What an exact engine raises when the submitted values cannot be analysed.
NOT_COMPUTABLE = (
    RulesError,
    TableCertError,
    ValueError,
    TypeError,
    ZeroDivisionError,
    OverflowError,
)


def bet_returns(rules: EffectiveRules, progress: Any = None) -> tuple[BetReturn, ...]:
    """The exact house edge of every bet under the submitted configuration and under the
    statute default (the game-math engine's optimal strategy for each)."""
    game = rules.submission.game
    if game == "q-poker":
        return _q_poker_returns(rules) + _side_bet_returns(rules, skip=("pair_plus",))
    if game == "caribbean-stud":
        return _caribbean_returns(rules, progress) + _side_bet_returns(rules)
    if is_stud(rules.statute):
        return _described_returns(rules, progress) + _side_bet_returns(rules)
    return ()


def _described_returns(rules: EffectiveRules, progress: Any) -> tuple[BetReturn, ...]:
    """A described game's bet against the dealer, per ante under optimal play: the engine
    runs again only if the submitted values change that game (a side bet's pay table does
    not)."""
    from tablecert.games import stud

    law_d = describe(rules.statute)
    law = stud.analyze(rules.statute, progress=progress)
    bet = "the bet against the dealer (ante and raises, per ante)"
    article = law_d.settlement.stake.article
    try:
        mine_d = describe(rules)
        game = (mine_d.deal, mine_d.ranking, mine_d.qualifier, mine_d.settlement)
        if game == (law_d.deal, law_d.ranking, law_d.qualifier, law_d.settlement):
            edge = law.house_edge
        else:
            edge = stud.analyze(rules, progress=progress).house_edge
    except NOT_COMPUTABLE as exc:
        return (BetReturn(bet, article, None, law.house_edge, _why_not(exc)),)
    return (BetReturn(bet, article, edge, law.house_edge),)


def _side_bet_returns(rules: EffectiveRules, skip: tuple[str, ...] = ()) -> tuple[BetReturn, ...]:
    """Every side bet the rule file describes (but those in ``skip``, which an engine of the
    game returns itself), per unit, from the category counts of its hands: under the rule
    file and under the submitted values."""
    from tablecert.games import stud

    statute = rules.statute
    tables = [k for k in ("side_bets", "pair_plus") if k in statute.data and k not in skip]
    if not is_stud(statute) or not tables:
        return ()
    law_d = describe(statute)
    bets = [b for b in law_d.side_bets if b.id not in skip]
    law_edges = [stud.side_bet_sheet(law_d, b).house_edge for b in bets]
    labels = [(f"{b.name.value} (side bet, per unit)", b.name.article) for b in bets]
    try:
        mine_d = describe(rules)
    except NOT_COMPUTABLE as exc:
        return tuple(
            BetReturn(bet, article, None, edge, _why_not(exc))
            for (bet, article), edge in zip(labels, law_edges, strict=True)
        )
    mine = {b.id: b for b in mine_d.side_bets}
    return tuple(
        BetReturn(bet, article, stud.side_bet_sheet(mine_d, mine[b.id]).house_edge, edge)
        for (bet, article), b, edge in zip(labels, bets, law_edges, strict=True)
    )


def _q_poker_returns(rules: EffectiveRules) -> tuple[BetReturn, ...]:
    from tablecert.games import q_poker

    law = q_poker.analyze(rules.statute)
    bets = (
        ("多寶 (pair plus)", "第十條", law.pair_plus.house_edge),
        ("與莊荷博彩 (against the dealer, per initial bet)", "第九條", law.play.house_edge),
    )
    try:
        mine = q_poker.analyze(rules)
    except NOT_COMPUTABLE as exc:
        return tuple(
            BetReturn(bet, article, None, edge, _why_not(exc)) for bet, article, edge in bets
        )
    return (
        BetReturn(*bets[0][:2], mine.pair_plus.house_edge, bets[0][2]),
        BetReturn(*bets[1][:2], mine.play.house_edge, bets[1][2]),
    )


def _why_not(exc: BaseException) -> str:
    return f"cannot be computed under the submitted values: {exc}"


def _caribbean_returns(rules: EffectiveRules, progress: Any) -> tuple[BetReturn, ...]:
    from tablecert.games import caribbean_stud
    from tablecert.games.progressive import grouped, progressive
    from tablecert.poker import ordering

    statute, values = rules.statute, rules.submission.values
    law = caribbean_stud.analyze(statute, progress=progress)
    ante_bet = ("原注/加注 (ante and raise, per ante)", "第九条", law.house_edge)
    changed = {k for k, v in values.items() if normalise(v) != normalise(statute.require(k).value)}
    # The royal payout and the cap have a fast path in the engine; anything else in the
    # ante/raise paytable needs the full analysis of the configuration in force. A royal
    # payout outside the statute's range is computed too: the check judges the range.
    royal_key, cap_key = "play.raise_pays.royal-flush", "play.cap.maximum_payout"
    royal = number(values.get(royal_key, statute.require(royal_key).value))
    cap = number(values.get(cap_key, statute.require(cap_key).value))
    fast = {royal_key, cap_key}
    try:
        if (
            royal is not None
            and cap is not None
            and all(k in fast or k.startswith(("progressive.", "table.")) for k in changed)
        ):
            mine = caribbean_stud.analyze(
                statute, royal=royal, cap=cap, progress=progress, royal_in_range=False
            )
        else:
            mine = caribbean_stud.analyze(rules, progress=progress, royal_in_range=False)
        ante = BetReturn(ante_bet[0], ante_bet[1], mine.house_edge, ante_bet[2])
    except NOT_COMPUTABLE as exc:
        ante = BetReturn(ante_bet[0], ante_bet[1], None, ante_bet[2], _why_not(exc))
    # The meter is the house's, not the statute's: both edges are taken at the submitted
    # meter, so the difference is that of the prizes and shares alone.
    jackpot_bet = "累进大奖 (progressive, statute and submission at the submitted meter)"
    try:
        tie_breaks = ordering("caribbean-stud", statute).tie_breaks
        jackpot = progressive(rules, tie_breaks)
    except NOT_COMPUTABLE as exc:
        at_statute = -law.progressive.return_at(law.progressive.meter)
        return ante, BetReturn(jackpot_bet, "第十条", None, at_statute, _why_not(exc))
    meter = jackpot.meter
    return ante, BetReturn(
        f"累进大奖 (progressive, statute and submission at the submitted meter {grouped(meter)})",
        "第十条",
        -jackpot.return_at(meter),
        -law.progressive.return_at(meter),
    )
