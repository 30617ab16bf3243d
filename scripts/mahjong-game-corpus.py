#!/usr/bin/env python3
"""Regenerate the seeded corpus of mahjong game records in fixtures/mahjong/:

- games-{traditional,simple}.jsonl: legal hands of play, one game record per line;
- games-illegal-{traditional,simple}.jsonl: each line {"breaks": article, "mutation": name,
  "record": game record}, a legal record with one event changed or added.

Usage: python scripts/mahjong-game-corpus.py [--legal N] [--seed S]
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from tablecert.mahjong.corpus import SIMPLE, TRAD, corpus

OUT = Path(__file__).resolve().parents[1] / "fixtures" / "mahjong"


def write(path: Path, lines: list[object]) -> None:
    """Write JSON lines atomically."""
    text = "".join(json.dumps(line, ensure_ascii=False, sort_keys=True) + "\n" for line in lines)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--legal", type=int, default=40, help="legal records per game")
    parser.add_argument("--seed", type=int, default=19)
    args = parser.parse_args()
    for game, name in ((TRAD, "traditional"), (SIMPLE, "simple")):
        legal, illegal = corpus(game, args.legal, args.seed)
        write(OUT / f"games-{name}.jsonl", list(legal))
        write(OUT / f"games-illegal-{name}.jsonl", list(illegal))
        print(f"{game}: {len(legal)} legal, {len(illegal)} illegal records")


if __name__ == "__main__":
    main()
