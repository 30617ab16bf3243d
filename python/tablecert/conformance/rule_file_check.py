"""What a rule file lets tablecert compute, and what it refuses and why (``tablecert rules
check FILE``).

The file is read by the strict loader (every value with its article, every constraint field
checked), then each engine of its game prepares what it would compute from it — the
ranking, each bet's settlement, the par sheet's values, the progressive, the mahjong fan
and payment tables — and says whether it can. Nothing is computed beyond that preparation,
so the check takes well under a second; the values' readings, house choices and duties are
listed for the lab to review.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tablecert.errors import TableCertError
from tablecert.games.rules_diff import rule_values
from tablecert.rules import RuleFile, RuleValue

__all__ = ["Capability", "RuleFileCheck", "check_rule_file"]


@dataclass(frozen=True)
class Capability:
    """One thing tablecert computes from the file: ``refused`` says why it cannot ('' when
    it can)."""

    name: str
    needs: str
    refused: str = ""

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "needs": self.needs,
            "computable": not self.refused,
            "refused": self.refused or None,
        }


@dataclass(frozen=True)
class RuleFileCheck:
    """A rule file's values and what each engine of its game can compute from it."""

    file: str
    sha256: str
    game: str
    title: str
    values: dict[str, RuleValue]
    capabilities: tuple[Capability, ...]

    @property
    def computable(self) -> bool:
        return all(not c.refused for c in self.capabilities)

    def keys_with(self, field: str) -> list[str]:
        """The keys whose value carries ``field`` (``reading``, ``house_choice``, ``duty``)."""
        return [k for k, v in self.values.items() if getattr(v, field)]

    def as_json(self) -> dict[str, Any]:
        return {
            "schema": "tablecert.rules-check/1",
            "file": self.file,
            "rules_sha256": self.sha256,
            "game": self.game,
            "title": self.title,
            "values": len(self.values),
            "readings": self.keys_with("reading"),
            "house_choices": self.keys_with("house_choice"),
            "duties": {k: self.values[k].duty for k in self.keys_with("duty")},
            "computable": self.computable,
            "capabilities": [c.as_json() for c in self.capabilities],
        }


def _poker(rules: RuleFile) -> list[tuple[str, str, Callable[[], object]]]:
    from tablecert.games import caribbean_stud, q_poker
    from tablecert.games.progressive import progressive
    from tablecert.games.settle import settlement_table
    from tablecert.poker import ordering
    from tablecert.rules.stud import describe

    def order() -> Any:
        return ordering(rules.game, rules)

    steps: list[tuple[str, str, Callable[[], object]]] = [
        ("hand ranking (hands, compare, crosscheck poker)", "[ranking]", order),
        (
            "round settlement (audit rounds, simulate rounds)",
            "[play], the side bets",
            lambda: settlement_table(order()),
        ),
    ]
    if rules.game == "q-poker":
        steps.append(
            (
                "par sheet and strategy (analyze q-poker)",
                "[play], [pair_plus]",
                lambda: (
                    q_poker.play_values(order()),
                    q_poker.pair_plus_sheet(order()),
                    describe(rules),
                ),
            )
        )
    else:
        steps.append(
            (
                "par sheet and strategy (analyze caribbean-stud)",
                "[play]",
                lambda: (caribbean_stud.payouts(order()), describe(rules)),
            )
        )
        steps.append(
            (
                "progressive and its meter",
                "[progressive]",
                lambda: progressive(rules, order().tie_breaks),
            )
        )
    return steps


def _stud(rules: RuleFile) -> list[tuple[str, str, Callable[[], object]]]:
    from tablecert.games.progressive import progressive_of
    from tablecert.rules.stud import deal_and_ranking, describe, progressive_terms

    def jackpot() -> object:
        ranking, terms = progressive_terms(rules)
        return progressive_of(terms, ranking)

    steps: list[tuple[str, str, Callable[[], object]]] = [
        (
            "deal and hand ranking (the stud engine)",
            "[deal], [ranking]",
            lambda: deal_and_ranking(rules),
        ),
        (
            "par sheet, strategy and side bets (the stud engine)",
            "[qualifier], [decision], [settlement], [side_bets]",
            lambda: describe(rules),
        ),
    ]
    if "progressive" in rules.data:
        steps.append(("progressive and its meter (analyze game)", "[progressive]", jackpot))
    return steps


def _mahjong(rules: RuleFile) -> list[tuple[str, str, Callable[[], object]]]:
    from tablecert.mahjong import fan, payments

    return [
        (
            "fan table (mahjong score, analyze)",
            "[fan]",
            lambda: fan.FanRules.of(fan.rules_for(rules.game, rules)),
        ),
        (
            "payments (mahjong settle, replay)",
            "[payments]",
            lambda: payments.table_limits(fan.rules_for(rules.game, rules)),
        ),
    ]


ENGINES: dict[str, Callable[[RuleFile], list[tuple[str, str, Callable[[], object]]]]] = {
    "q-poker": _poker,
    "caribbean-stud": _poker,
    "mahjong-traditional": _mahjong,
    "mahjong-simple": _mahjong,
    "stud": _stud,
}


def check_rule_file(rules: RuleFile) -> RuleFileCheck:
    """What each engine of the file's game can compute from it."""
    engine = ENGINES.get(rules.game)
    if engine is None:
        raise rules.error(
            "game.id", f"{rules.game!r}: no engine computes this game (games: {', '.join(ENGINES)})"
        )
    capabilities = []
    for name, needs, prepare in engine(rules):
        try:
            prepare()
        except TableCertError as exc:
            capabilities.append(Capability(name, needs, str(exc)))
        else:
            capabilities.append(Capability(name, needs))
    title = rules.get("game.title")
    return RuleFileCheck(
        file=rules.path.name,
        sha256=rules.sha256,
        game=rules.game,
        title=str(title.value) if title is not None else rules.game,
        values=rule_values(rules),
        capabilities=tuple(capabilities),
    )
