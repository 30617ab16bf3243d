#!/usr/bin/env bash
# Rewrite the simulated device logs the bundled plans audit (fixtures/logs/*-fair-*.csv.gz):
# fair models from the core's seeded simulator, so the decks (not the gzip header's time) are
# the same on every run. Run after `scripts/bootstrap.sh`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sim() { .venv/bin/tablecert simulate shuffler --model fair --force "$@"; }
sim --deck cards52 --shuffles 20000 --seed 20261129 --device SIM-QP-1 \
  -o fixtures/logs/shuffler-fair-52.csv.gz
sim --deck cards52 --shuffles 2000 --seed 7 --device SIM-QP-2 \
  -o fixtures/logs/shuffler-fair-52-small.csv.gz
sim --deck mahjong136 --shuffles 2000 --seed 20261129 --device SIM-MJ-1 \
  -o fixtures/logs/mahjong-fair-136.csv.gz
