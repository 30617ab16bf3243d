"""Exact tables of complete dealt hands for both games (Art. 4, 5, 6).

The core enumerates every distinct complete concealed hand and groups them by the signatures
of their readings; this module prices each group with the fan rules (best reading, dealer's
context) and reports counts out of all C(136, 14) (resp. C(112, 5)) dealt hands.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

from tablecert import _core
from tablecert.exact import exact_json
from tablecert.mahjong.fan import Context, FanRules, rules_for, score_signature
from tablecert.mahjong.hands import TILE_SET, check_game
from tablecert.rules import RuleFile


@dataclass(frozen=True)
class PatternRow:
    """One fan item (or fan total): distinct hands and dealt combinations carrying it."""

    name: str
    article: str
    distinct: int
    combinations: int


@dataclass(frozen=True)
class MahjongAnalysis:
    """Counts of complete dealt hands of one game and their fan patterns."""

    game: str
    rules_sha256: str
    hand_size: int
    tiles: int
    dealt_hands: int
    distinct_standard: int
    combinations_standard: int
    distinct_orphans: int
    combinations_orphans: int
    items: tuple[PatternRow, ...]
    fan_totals: tuple[PatternRow, ...]
    context: Context

    @property
    def heavenly_standard(self) -> Fraction:
        """P(the dealer's dealt hand is four sets and a pair), resp. one set and a pair."""
        return Fraction(self.combinations_standard, self.dealt_hands)

    @property
    def heavenly_any(self) -> Fraction:
        """P(the dealer's dealt hand is any complete hand, Thirteen Orphans included)."""
        return Fraction(self.combinations_standard + self.combinations_orphans, self.dealt_hands)

    def as_json(self) -> dict[str, Any]:
        def rows(rs: tuple[PatternRow, ...]) -> list[dict[str, Any]]:
            return [
                {
                    "name": r.name,
                    "article": r.article,
                    "distinct_hands": r.distinct,
                    "combinations": r.combinations,
                    "probability": exact_json(Fraction(r.combinations, self.dealt_hands)),
                }
                for r in rs
            ]

        return {
            "game": self.game,
            "rules_sha256": self.rules_sha256,
            "hand_size": self.hand_size,
            "tiles": self.tiles,
            "dealt_hands": self.dealt_hands,
            "distinct_complete_standard": self.distinct_standard,
            "combinations_standard": self.combinations_standard,
            "distinct_thirteen_orphans": self.distinct_orphans,
            "combinations_thirteen_orphans": self.combinations_orphans,
            "heavenly_hand_standard": exact_json(self.heavenly_standard),
            "heavenly_hand_any": exact_json(self.heavenly_any),
            "context": {
                "seat": self.context.seat,
                "round_wind": self.context.round_wind,
                "win_by": self.context.win_by,
                "note": "fan of the dealt hand before the heavenly-hand item itself",
            },
            "fan_items": rows(self.items),
            "fan_totals": rows(self.fan_totals),
        }


def analyze(
    game: str, rules: str | RuleFile | None = None, round_wind: str = "E"
) -> MahjongAnalysis:
    """Enumerate a game's complete dealt hands and classify them by fan.

    Dealt hands are the dealer's: seat East, self-drawn, concealed. The heavenly-hand item is
    left out of the item table (every such hand carries it) so the table shows the patterns.
    """
    rule_file = rules_for(check_game(game), rules)
    context = Context(seat="E", round_wind=round_wind, win_by="self-drawn").check()
    tile_set = TILE_SET[game]
    d_std, c_std, d_orph, c_orph, classes = _core.enumerate_complete_hands(tile_set)
    hand_size = 3 * rule_file.value_of("game.sets_in_win", int) + 2
    tiles = 4 * len(_core.tile_types(tile_set))
    items_distinct: Counter[str] = Counter()
    items_combos: Counter[str] = Counter()
    totals_distinct: Counter[int] = Counter()
    totals_combos: Counter[int] = Counter()
    articles: dict[str, str] = {}
    fan_rules = FanRules.of(rule_file)
    scored: dict[int, tuple[int, int, list[str]]] = {}
    for signatures, distinct, combinations in classes:
        best: tuple[int, int, list[str]] | None = None
        for signature in signatures:
            if signature not in scored:
                # The winning tile only matters for the simple game's 發 item; none is dealt.
                items, raw, fan = score_signature(fan_rules, game, signature, context, -1)
                scored[signature] = (fan, raw, [i.name for i in items])
                articles.update({i.name: i.article for i in items})
            if best is None or scored[signature][:2] > best[:2]:
                best = scored[signature]
        assert best is not None
        for name in set(best[2]):
            items_distinct[name] += distinct
            items_combos[name] += combinations
        totals_distinct[best[0]] += distinct
        totals_combos[best[0]] += combinations
    item_rows = tuple(
        PatternRow(name, articles[name], items_distinct[name], items_combos[name])
        for name in sorted(items_combos, key=lambda n: (-items_combos[n], n))
    )
    total_rows = tuple(
        PatternRow(f"{fan} fan", fan_rules.cap_article, totals_distinct[fan], totals_combos[fan])
        for fan in sorted(totals_combos)
    )
    return MahjongAnalysis(
        game=game,
        rules_sha256=rule_file.sha256,
        hand_size=hand_size,
        tiles=tiles,
        dealt_hands=comb(tiles, hand_size),
        distinct_standard=d_std,
        combinations_standard=c_std,
        distinct_orphans=d_orph,
        combinations_orphans=c_orph,
        items=item_rows,
        fan_totals=total_rows,
        context=context,
    )
