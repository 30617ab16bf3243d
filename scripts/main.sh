#!/usr/bin/env bash
# The main job on bundled data: set-up, then a signed certification of the bundled plan
# (fixtures/plans/main.toml) into out/certification/ (report.json, report.html, report.pdf and
# the signed envelope), printing where the report is and the verdict. Without TABLECERT_KEY (a private key file) an ephemeral key signs the run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/bootstrap.sh
bash scripts/system-deps.sh   # chromium prints report.pdf
export PATH="$root/.venv/bin:$PATH"
key=()
if [ -n "${TABLECERT_KEY:-}" ]; then
  key=(--key "$TABLECERT_KEY")
fi
tablecert certify fixtures/plans/main.toml -o out/certification --pdf "${key[@]}"
