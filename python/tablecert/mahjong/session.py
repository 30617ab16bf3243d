"""A session of hands (Art. 3): who deals each hand and in which round, checked hand by hand.

A session record lists the players by name in the seats of the first hand and then every hand
(a game record of ``replay``) with its dealer's name::

    {"format": "tablecert-mahjong-session/1", "game": "mahjong-traditional",
     "players": ["Ann", "Bo", "Cy", "Di"],           # E, S, W, N of the first hand
     "hands": [{"dealer": "Ann", "record": {...game record, round_wind "E"...}}, ...]}

Art. 3: rounds are named by wind, E, S, W, N in turn; a round has four hands in principle;
the dealer keeps the deal after winning, and otherwise it passes to the player on the dealer's
right (South), the round moving on when the deal has gone round the table. What a drawn hand
does is a reading (``game.dealer_after_drawn_hand``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablecert.judgement import Outcome
from tablecert.mahjong.fan import READING_CHOICES, rules_for
from tablecert.mahjong.hands import WINDS
from tablecert.mahjong.record import Fields, Locate
from tablecert.mahjong.replay import Replay, Violation, replay
from tablecert.rules import RuleFile

SESSION_FORMAT = "tablecert-mahjong-session/1"


@dataclass(frozen=True)
class SessionReplay:
    """Every hand replayed, and where the deal or the round does not follow Art. 3."""

    game: str
    hands: tuple[Replay, ...]
    dealers: tuple[str, ...]
    violations: tuple[tuple[int, Violation], ...]  # (hand number, violation); 0: the session

    @property
    def valid(self) -> bool:
        return not self.violations

    def as_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "verdict": Outcome.of(not self.valid).word("validity"),
            "hands": [
                {"hand": k, "dealer": d, **h.as_json()}
                for k, (d, h) in enumerate(zip(self.dealers, self.hands, strict=True), start=1)
            ],
            "violations": [
                {"hand": k, "event": v.event, "article": v.article, "message": v.message}
                for k, v in self.violations
            ],
        }


def is_session(data: Any) -> bool:
    return isinstance(data, dict) and "hands" in data


def replay_session(
    record: Any, rules: str | RuleFile | None = None, *, locate: Locate | None = None
) -> SessionReplay:
    """Replay every hand of a session and check the deal and the rounds (Art. 3)."""
    fields = Fields(record, locate or (lambda key: "session record"))
    fields.only({"format", "game", "players", "hands"})
    if fields.has("format") and fields.text("format") != SESSION_FORMAT:
        raise fields.error("format", f"expected {SESSION_FORMAT!r}")
    game = fields.text("game", ("mahjong-traditional", "mahjong-simple"))
    rule_file = rules_for(game, rules)
    names = fields.need("players")
    if (
        not isinstance(names, list)
        or not 2 <= len(names) <= 4
        or not all(isinstance(n, str) and n for n in names)
        or len(set(names)) != len(names)
    ):
        raise fields.error("players", "expected 2 to 4 distinct player names (E, S, W, N first)")
    hands = fields.need("hands")
    if not isinstance(hands, list) or not hands:
        raise fields.error("hands", "expected a non-empty list of hands")
    art = "第三条(乙)" if game == "mahjong-simple" else "第三条(甲)"
    on_draw = rule_file.choice(
        "game.dealer_after_drawn_hand", READING_CHOICES["game.dealer_after_drawn_hand"]
    )
    played: list[Replay] = []
    dealers: list[str] = []
    violations: list[tuple[int, Violation]] = []
    dealer, round_wind, passes = names[0], "E", 0
    for number, item in enumerate(hands, start=1):
        entry = Fields(item, fields.locate, f"hands[{number - 1}].")
        entry.only({"dealer", "record"})
        stated = entry.text("dealer", tuple(names))
        game_record = entry.need("record")
        result = replay(game_record, rule_file, locate=fields.locate)
        if result.game != game:
            raise entry.error("record", f"a {result.game} hand in a {game} session")
        played.append(result)
        dealers.append(stated)
        wind = game_record.get("round_wind", "E") if isinstance(game_record, dict) else "E"
        if stated != dealer or wind != round_wind:
            violations.append(
                (
                    number,
                    Violation(
                        0,
                        art,
                        f"hand {number} is dealt by {stated} in the {wind} round; the deal "
                        f"gives {dealer} in the {round_wind} round",
                    ),
                )
            )
            break
        violations += [(number, v) for v in result.violations]
        if result.violations:
            break
        keeps = result.winner == "E" and result.outcome == "win"
        if result.outcome == "drawn" and on_draw == "stays":
            keeps = True
        if not keeps:
            dealer = names[(names.index(dealer) + 1) % len(names)]
            passes += 1
            if passes % len(names) == 0:
                round_wind = WINDS[(WINDS.index(round_wind) + 1) % 4]
    return SessionReplay(game, tuple(played), tuple(dealers), tuple(violations))
