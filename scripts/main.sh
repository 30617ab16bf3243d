#!/usr/bin/env bash
# The main job on bundled data: set-up, then the most complete run tablecert can do today.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/bootstrap.sh
export PATH="$root/.venv/bin:$PATH"
tablecert hands q-poker
tablecert hands caribbean-stud
