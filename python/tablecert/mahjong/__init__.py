"""Mahjong under the Macau statute (order 135/91/M): both games, traditional (甲) and simple (乙).

Hands and their readings (``hands``), fan per Art. 6 (``fan``), payments per Art. 7-10
(``payments``; ``record`` settles a whole game record), the wall and deal of Art. 3
(``wall``) and exact tables of complete dealt hands (``analysis``).
"""

from tablecert.mahjong.analysis import MahjongAnalysis, analyze
from tablecert.mahjong.fan import Context, FanItem, FanResult, score
from tablecert.mahjong.hands import GAMES, Meld, Reading, WinningHand, parse_hand
from tablecert.mahjong.payments import Payment, Settlement, settle_false_win, settle_win
from tablecert.mahjong.record import SettledGame, settle_record
from tablecert.mahjong.wall import Deal, deal

__all__ = [
    "GAMES",
    "Context",
    "Deal",
    "FanItem",
    "FanResult",
    "MahjongAnalysis",
    "Meld",
    "Payment",
    "Reading",
    "SettledGame",
    "Settlement",
    "WinningHand",
    "analyze",
    "deal",
    "parse_hand",
    "score",
    "settle_false_win",
    "settle_record",
    "settle_win",
]
