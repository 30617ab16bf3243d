"""The decks an audit knows: name -> (items per shuffle, distinct symbols, copies of each).

Its own module, free of imports, so that commands that only check a --deck name (simulate)
do not import the battery."""

DECK_SIZES = {"cards52": (52, 52, 1), "mahjong136": (136, 34, 4), "mahjong112": (112, 28, 4)}
