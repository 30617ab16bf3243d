#!/usr/bin/env bash
# Mirror fixtures/ into python/tablecert/data/ as relative symlinks (one copy of each file in
# git; the wheel carries the files themselves). Run it after adding or removing a fixture;
# tests/test_bundled.py fails until the two trees match.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
data=python/tablecert/data
git ls-files fixtures | while read -r file; do
  rel=${file#fixtures/}
  link="$data/$rel"
  [ -L "$link" ] && continue
  mkdir -p "$(dirname "$link")"
  up=$(dirname "$rel" | sed -e 's|[^/][^/]*|..|g')   # one .. per folder below data/
  [ "$(dirname "$rel")" = "." ] && up="" || up="$up/"
  ln -s "${up}../../../fixtures/$rel" "$link"
  echo "linked $link" >&2
done
find "$data" -type l ! -exec test -e {} \; -print | while read -r stale; do
  rm "$stale"; echo "removed $stale (its fixture is gone)" >&2
done
