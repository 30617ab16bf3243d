"""Who pays whom after a game: Art. 7 (shares), Art. 8 (commission by table limit),
Art. 9 (a winner wins at most their stake) and Art. 10 (liability 包輸, false wins 詐糊).

Amounts are exact (``Fraction``): a capped win is shared out in proportion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from tablecert import _core
from tablecert.errors import MahjongError
from tablecert.mahjong.fan import READING_CHOICES, FanResult, article, rules_for
from tablecert.mahjong.hands import WINDS
from tablecert.rules import RuleFile

LIABILITY_REASONS = (
    "nine_exposed_full_flush",
    "fed_twelfth_full_flush_tile",
    "big_three_dragons",
    "big_four_winds",
    "held_last_honour",
    "broke_pung",
    "missed_win_then_fed",
)


@dataclass(frozen=True)
class TableLimit:
    """One row of Art. 8: the table's lower and upper limit and the commission per game."""

    lower: int
    upper: int
    commission: int
    article: str

    @property
    def text(self) -> str:
        return f"{self.lower}/{self.upper}"


@dataclass(frozen=True)
class Payment:
    payer: str
    payee: str
    amount: Fraction
    article: str
    note: str = ""


@dataclass(frozen=True)
class Settlement:
    """Every payment of one game, the house commission and each seat's net result."""

    payments: tuple[Payment, ...]
    winner: str | None
    commission: Fraction
    commission_article: str
    notes: tuple[str, ...]

    def net(self, seat: str) -> Fraction:
        """What a seat gains (negative: loses) after payments and commission."""
        got = sum((p.amount for p in self.payments if p.payee == seat), Fraction(0))
        paid = sum((p.amount for p in self.payments if p.payer == seat), Fraction(0))
        return got - paid - (self.commission if seat == self.winner else 0)

    def as_json(self) -> dict[str, Any]:
        return {
            "payments": [
                {
                    "payer": p.payer,
                    "payee": p.payee,
                    "amount": str(p.amount),
                    "article": p.article,
                    "note": p.note,
                }
                for p in self.payments
            ],
            "winner": self.winner,
            "commission": str(self.commission),
            "commission_article": self.commission_article,
            "notes": list(self.notes),
        }


def table_limits(rules: RuleFile) -> list[TableLimit]:
    """The Art. 8 rows: [lower, upper, commission], whole positive numbers, lower < upper."""
    entry = rules.require("payment.limits")
    rows = entry.value if isinstance(entry.value, list) else None
    if not rows or not all(
        isinstance(row, list)
        and len(row) == 3
        and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in row)
        and row[0] < row[1]
        for row in rows
    ):
        raise rules.error(
            "payment.limits",
            "expected rows [lower, upper, commission] of whole numbers > 0 with lower < upper",
        )
    return [TableLimit(lo, hi, c, entry.article) for lo, hi, c in rows]


def table_limit(rules: RuleFile, limit: str | int) -> TableLimit:
    """The Art. 8 row for a limit written ``100/200`` (or its lower limit alone)."""
    text = str(limit).replace(",", "").replace("$", "").strip()
    rows = table_limits(rules)
    for row in rows:
        if text in (row.text, str(row.lower)):
            return row
    known = ", ".join(r.text for r in rows)
    raise MahjongError(f"table limit {limit!r} is not in Art. 8 for this game: {known}")


def share(rules: RuleFile, limit: TableLimit, fan: int) -> int:
    """One share for a win of ``fan`` fan, per the rule file's share reading."""
    entry = rules.require("payment.share")
    which = entry.value.get(str(fan))
    if which not in ("lower", "upper"):
        raise rules.error(
            "payment.share",
            f"no share defined for a {fan} fan win, which fan.cap = "
            f"{rules.require('fan.cap').value} allows",
        )
    return limit.lower if which == "lower" else limit.upper


def _seats(rules: RuleFile, players: Sequence[str] | None) -> list[str]:
    seats = list(players) if players is not None else list(WINDS)
    dealer = rules.value_of("payment.dealer_seat", str)
    if any(s not in WINDS for s in seats) or len(set(seats)) != len(seats):
        raise MahjongError(f"players {seats!r}: expected distinct winds E, S, W, N")
    if dealer not in seats:
        raise MahjongError(f"the dealer ({dealer}) must be playing (Art. 3)")
    allowed = rules.value_of("game.players", int)
    least = rules.value_of("game.min_players", int) if rules.get("game.min_players") else allowed
    if not least <= len(seats) <= allowed:
        raise MahjongError(f"{len(seats)} players: this game has {least} to {allowed} (Art. 3)")
    if len(seats) < len(WINDS):
        entry = rules.require("payment.fewer_players")
        if (
            rules.choice("payment.fewer_players", READING_CHOICES["payment.fewer_players"])
            == "refuse"
        ):
            raise MahjongError(
                f"{len(seats)} players: Art. 7 names three payers and the rule file reads it "
                f"as not settling a smaller game ({entry.article}, payment.fewer_players)"
            )
    return seats


def _multiplier(rules: RuleFile, winner: str, payer: str) -> tuple[int, str]:
    dealer = rules.value_of("payment.dealer_seat", str)
    key = (
        "dealer_wins" if winner == dealer else ("dealer_pays" if payer == dealer else "others_pay")
    )
    entry = rules.require(f"payment.{key}")
    return int(entry.value), entry.article


def settle_win(
    result: FanResult,
    winner: str,
    limit: str | int,
    *,
    rules: str | RuleFile | None = None,
    players: Sequence[str] | None = None,
    discarder: str | None = None,
    liability: str | Sequence[str] | None = None,
    first_discard_honour: bool = False,
    stake: Fraction | int | None = None,
) -> Settlement:
    """Settle a valid win: Art. 7 shares, Art. 10 liability, Art. 9 cap, Art. 8 commission.

    ``liability`` names one Art. 10 case (``LIABILITY_REASONS``), or several that hold
    together, that make ``discarder`` pay for everyone; each case is checked against the hand
    and how it was won, and the exemptions of Art. 10 (the rule file's ``exempt_hands``, a
    first-discard honour) are applied from the hand and ``first_discard_honour``.
    """
    rule_file = rules_for(result.game, rules)
    seats = _seats(rule_file, players)
    if winner not in seats:
        raise MahjongError(f"winner {winner!r} is not playing: {', '.join(seats)}")
    cases = _cases(liability)
    _check_discarder(rule_file, result, winner, discarder, seats, cases, first_discard_honour)
    row = table_limit(rule_file, limit)
    unit = share(rule_file, row, result.fan)
    notes: list[str] = []
    owed: list[Payment] = []
    for payer in seats:
        if payer == winner:
            continue
        times, article = _multiplier(rule_file, winner, payer)
        owed.append(Payment(payer, winner, Fraction(unit * times), article, f"{times} share(s)"))

    if cases:
        named = " + ".join(cases)
        liable = _liable(rule_file, result, discarder, cases, first_discard_honour)
        if liable is None:
            notes.append(f"{named}: exempt, everyone pays their own share")
        else:
            total = sum((p.amount for p in owed), Fraction(0))
            cited = (rule_file.require(f"liability.{c}").article for c in cases)
            articles = ", ".join(dict.fromkeys(cited))
            owed = [Payment(liable, winner, total, articles, f"包輸: {named}")]
            notes.append(f"{liable} pays for everyone ({articles})")

    if stake is not None:
        owed = _cap(rule_file, owed, Fraction(stake), notes)

    gross = sum((p.amount for p in owed), Fraction(0))
    # Commission comes out of what the winner actually receives (after the Art. 9 cap).
    rule_file.choice("payment.commission_order", ("after-cap",))
    commission = min(Fraction(row.commission), gross)
    return Settlement(tuple(owed), winner, commission, row.article, tuple(notes))


def _cases(liability: str | Sequence[str] | None) -> tuple[str, ...]:
    if liability is None:
        return ()
    cases = (liability,) if isinstance(liability, str) else tuple(liability)
    if not cases or len(set(cases)) != len(cases):
        raise MahjongError(f"liability {list(cases)!r}: name each Art. 10 case once")
    return cases


# Art. 10 cases that do not need the winning tile to come from the liable player: 包摸一輪,
# the feeder of the twelfth full-flush tile also pays for a self-drawn win within one round.
_SELF_DRAWN_CASES = ("fed_twelfth_full_flush_tile",)


def _check_discarder(
    rules: RuleFile,
    result: FanResult,
    winner: str,
    discarder: str | None,
    seats: Sequence[str],
    cases: tuple[str, ...],
    first_discard_honour: bool,
) -> None:
    """The discarder (出冲者) and what depends on it, against how the hand was won."""
    context = result.context
    win_by = context.win_by if context is not None else None
    if discarder is not None:
        if discarder not in seats:
            raise MahjongError(f"discarder {discarder!r} is not playing: {', '.join(seats)}")
        if discarder == winner:
            raise MahjongError(
                f"discarder {discarder!r} is the winner: a discarder is another player"
            )
        if win_by == "self-drawn" and not (cases and set(cases) <= set(_SELF_DRAWN_CASES)):
            raise MahjongError(
                f"discarder {discarder!r} on a self-drawn win: a self-drawn win has no discarder "
                "(出冲者, 第十条)"
            )
    if context is not None and context.earthly and discarder not in (None, _dealer(rules)):
        raise MahjongError(
            f"an earthly hand is won on the dealer's first discard, not {discarder}'s "
            f"({article(result.game, '五', 2, 2)})"
        )
    if first_discard_honour:
        exempt = rules.require("liability.exempt_first_discard_honour").article
        if win_by is not None and win_by != "discard":
            raise MahjongError(
                f"first_discard_honour: the exemption is for a discarded honour, the win is "
                f"{win_by} ({exempt})"
            )
        hand = result.hand
        if hand is not None and hand.winning_tile < 27:
            raise MahjongError(
                f"first_discard_honour: the winning tile {_core.tile_code(hand.winning_tile)} is "
                f"not a dragon or wind, the only tiles 生张 exempts ({exempt})"
            )


def _dealer(rules: RuleFile) -> str:
    return str(rules.value_of("payment.dealer_seat", str))


def _liable(
    rules: RuleFile,
    result: FanResult,
    discarder: str | None,
    cases: tuple[str, ...],
    first_discard_honour: bool,
) -> str | None:
    """The liable seat, or None when an Art. 10 exemption applies."""
    known = [k for k in rules.table("liability") if k in LIABILITY_REASONS]
    for reason in cases:
        if reason not in known:
            raise MahjongError(f"liability {reason!r} is not a case of Art. 10: {', '.join(known)}")
        rules.choice(f"liability.{reason}", ("discarder-pays-all",))
    if discarder is None:
        raise MahjongError(f"liability {' + '.join(cases)} needs the discarder, another player")
    _check_joint_cases(rules, cases)
    names = {i.name for i in result.items}
    exposed = [m for m in result.reading.sets if m.exposed]
    win_by = result.context.win_by if result.context is not None else None
    for reason in cases:
        where = rules.require(f"liability.{reason}").article
        if win_by == "self-drawn" and reason not in _SELF_DRAWN_CASES:
            raise MahjongError(
                f"liability {reason}: the discarder (出冲者) pays only for a win on their "
                f"discard, this win is self-drawn ({where})"
            )
        if reason == "nine_exposed_full_flush" and ("full_flush" not in names or len(exposed) < 3):
            raise MahjongError(
                f"Art. 10(1) needs a full flush with nine tiles (three melds) exposed ({where})"
            )
        if reason == "fed_twelfth_full_flush_tile" and (
            "full_flush" not in names or len(exposed) < 4
        ):
            raise MahjongError(
                "供清一色十二章 needs a full flush with twelve tiles (four melds) exposed "
                f"({where})"
            )
        if reason == "big_three_dragons":
            dragons = [m for m in exposed if m.kind != "chow" and m.tile >= 31]
            if "big_three_dragons" not in names or len(dragons) < 2:
                raise MahjongError(
                    f"Art. 10(3) needs big three dragons with two dragon pungs exposed ({where})"
                )
        if reason == "big_four_winds":
            winds = [m for m in exposed if m.kind != "chow" and 27 <= m.tile <= 30]
            if "big_four_winds" not in names or len(winds) < 3:
                raise MahjongError(
                    f"Art. 10(3) needs big four winds with three wind pungs exposed ({where})"
                )
    if rules.get("liability.exempt_hands") is not None:
        exempt = rules.value_of("liability.exempt_hands", list)  # checked by rules_for
        if names & set(exempt):
            return None
    if first_discard_honour and rules.value_of("liability.exempt_first_discard_honour", bool):
        return None
    return discarder


def _check_joint_cases(rules: RuleFile, cases: tuple[str, ...]) -> None:
    """第十条(乙)(2), 有糊不叫，并拆打一碰牌: one case needing both facts, or two (a reading)."""
    entry = rules.get("liability.missed_win_broke_pung")
    if entry is None:
        return
    how = rules.choice(
        "liability.missed_win_broke_pung", READING_CHOICES["liability.missed_win_broke_pung"]
    )
    pair = {"missed_win_then_fed", "broke_pung"}
    if how == "both" and pair & set(cases) and not pair <= set(cases):
        raise MahjongError(
            "有糊不叫，并拆打一碰牌: the discarder is liable only for both, a missed win and a "
            f"broken pung (liability [missed_win_then_fed, broke_pung]) ({entry.article})"
        )


def _cap(rules: RuleFile, owed: list[Payment], stake: Fraction, notes: list[str]) -> list[Payment]:
    """Art. 9: the winner receives at most ``stake``; payments shrink in proportion."""
    if stake < 0:
        raise MahjongError("a stake cannot be negative")
    gross = sum((p.amount for p in owed), Fraction(0))
    if gross <= stake:
        return owed
    rules.choice("payment.cap_allocation", ("proportional",))
    rules.choice("payment.win_cap", ("stake",))
    entry = rules.require("payment.win_cap")
    notes.append(f"win capped at the winner's stake {stake} ({entry.article})")
    return [
        Payment(p.payer, p.payee, p.amount * stake / gross, entry.article, p.note + ", capped")
        for p in owed
    ]


def settle_false_win(
    game: str,
    false_winner: str,
    limit: str | int,
    *,
    rules: str | RuleFile | None = None,
    players: Sequence[str] | None = None,
) -> Settlement:
    """Art. 10 詐糊: the false winner pays every other player as the rule file says."""
    rule_file = rules_for(game, rules)
    seats = _seats(rule_file, players)
    if false_winner not in seats:
        raise MahjongError(f"false winner {false_winner!r} is not playing")
    rule_file.choice("liability.false_win_shares", ("as-if-receiver-won",))
    dealer = rule_file.value_of("payment.dealer_seat", str)
    row = table_limit(rule_file, limit)
    key = "false_win_dealer" if false_winner == dealer else "false_win_non_dealer"
    entry = rule_file.require(f"liability.{key}")
    payments = []
    for receiver in seats:
        if receiver == false_winner:
            continue
        role = "to_dealer" if receiver == dealer else "to_others"
        fan = int(entry.value[role])
        if str(fan) not in rule_file.require("payment.share").value:
            raise rule_file.error(
                f"liability.{key}", f"{role} = {fan}: payment.share has no {fan} fan share"
            )
        times, _ = _multiplier(rule_file, receiver, false_winner)
        amount = Fraction(share(rule_file, row, fan) * times)
        payments.append(
            Payment(false_winner, receiver, amount, entry.article, f"詐糊: as {fan} fan")
        )
    none = rule_file.require("payment.false_win_commission")
    if none.value != "none":
        raise rule_file.error("payment.false_win_commission", "only 'none' is implemented")
    note = f"no commission on a false win ({none.article}, reading)"
    return Settlement(tuple(payments), None, Fraction(0), none.article, (note,))
