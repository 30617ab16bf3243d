#!/usr/bin/env bash
# A user's install: build the wheel, install it (with the [distributed] extra) into a fresh
# virtual environment outside the source tree, and run a smoke job there from an empty folder:
# hands, compare, analyze, check, audit, certify of the bundled smoke plan, verify.
# Dependencies come from PyPI, through a wheelhouse in .venv (offline after the first run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/tablecert-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT

say() { printf 'wheel-smoke: %s\n' "$*" >&2; }
say "building the wheel"
(cd "$root" && PATH="$root/.venv/bin:$PATH" maturin build --release --quiet -o "$work/dist" \
  > "$work/maturin.log" 2>&1) || { cat "$work/maturin.log" >&2; exit 1; }
wheel=$(ls "$work"/dist/tablecert-*.whl)
say "installing $(basename "$wheel")[distributed] into a fresh venv"
started=$SECONDS
"$python" -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip -q --disable-pip-version-check)
# The PyPI dependencies, downloaded once per version of pyproject.toml into a wheelhouse kept
# in .venv (git-ignored); every later run installs offline from it.
wheelhouse="$root/.venv/wheelhouse"
want=$(sha256sum "$root/pyproject.toml" | cut -d' ' -f1)
if [ "$(cat "$wheelhouse/.stamp" 2>/dev/null)" != "$want" ]; then
  say "downloading the dependencies into $wheelhouse (once per pyproject.toml)"
  rm -rf "$wheelhouse"
  "${pip[@]}" download --prefer-binary -d "$wheelhouse" "${wheel}[distributed]" \
    > "$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; exit 1; }
  rm -f "$wheelhouse"/tablecert-*.whl
  echo "$want" > "$wheelhouse/.stamp"
fi
"${pip[@]}" install --no-compile --no-index --find-links "$wheelhouse" "${wheel}[distributed]" \
  > "$work/pip.log" 2>&1 || { cat "$work/pip.log" >&2; exit 1; }
say "installed in $((SECONDS - started)) s"

mkdir "$work/elsewhere"
cd "$work/elsewhere"
export PATH="$work/venv/bin:$PATH"
unset PYTHONPATH VIRTUAL_ENV
run() { say "\$ $*"; "$@" > "$work/out.txt" 2> "$work/err.txt" || {
  status=$?; cat "$work/out.txt" "$work/err.txt" >&2; say "failed (exit $status): $*"; exit 1; }; }

# The installed package, not the source tree, answers.
run python -c "import sys, tablecert; assert '$root' not in tablecert.__file__, tablecert.__file__"
run python -c "import dask.distributed, tablecert.distributed"
run tablecert --version
data=$(tablecert --version | sed -n 's/^bundled data: //p')
case "$data" in "$root"*) say "bundled data found in the source tree: $data"; exit 1;; esac
run tablecert hands q-poker --json
run tablecert compare q-poker "9s 9h 5d" "9c 9d 5s"
grep -q "B wins" "$work/out.txt"
run tablecert analyze q-poker --rules q-poker.standard
run tablecert analyze mahjong-simple --json
run tablecert check "$data/configs/q-poker.casino-c.toml" --no-returns
run tablecert audit shuffler "$data/logs/shuffler-fair-52-small.csv.gz" --input-order logged
run tablecert crosscheck poker q-poker --evaluator "$data/evaluators/vendor_poker.py:q_poker_statute" \
  --hands 200 --suit-pairs 200 --other-pairs 100
run tablecert certify smoke -o report
run tablecert verify report/report.intoto.dsse.json --pubkey report/signer.pub \
  --report report/report.json --inputs "$data/plans/smoke.toml" "$data/rules/q-poker.macau.toml"
grep -q "^VALID" "$work/out.txt"
say "ok: the wheel works from $(pwd)"
