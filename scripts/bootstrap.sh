#!/usr/bin/env bash
# Create or reuse .venv, install tablecert's Python dependencies, make the Rust crates available
# (Debian's crate sources when crates.io is unreachable) and build the extension in place.
# Safe to run again: each step does nothing when it is already done.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
venv="$root/.venv"
python=${PYTHON:-python3}

if [ ! -x "$venv/bin/python" ]; then
  echo "bootstrap: creating $venv" >&2
  "$python" -m venv "$venv"
fi
# Install the dependencies pyproject.toml names, once per version of pyproject.toml.
stamp="$venv/.tablecert-deps"
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "bootstrap: installing Python dependencies" >&2
  pip_log="$venv/.pip.log"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip > "$pip_log" 2>&1 \
    || { cat "$pip_log" >&2; exit 1; }
  deps=$("$venv/bin/python" - <<'PY'
import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
print("\n".join(project["dependencies"] + project["optional-dependencies"]["dev"]
                + project["optional-dependencies"]["distributed"]))
PY
)
  mapfile -t dep_list <<< "$deps"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "${dep_list[@]}" >> "$pip_log" 2>&1 \
    || { cat "$pip_log" >&2; exit 1; }
  echo "$want" > "$stamp"
fi

bash "$root/scripts/vendor-crates.sh"
# The package data mirrors fixtures/ (a new fixture gets its link; commit it with the fixture).
bash "$root/scripts/link-package-data.sh"

# Build the Rust core into python/tablecert/ (incremental; a no-op build takes a second). The
# first build also installs tablecert into .venv in editable mode; later ones only rebuild,
# unless the installed script is not today's entry point (tablecert.entry, since 2026-12-03).
echo "bootstrap: building the Rust core (release)" >&2
install=()
if compgen -G "$venv/lib/python*/site-packages/tablecert*.pth" > /dev/null \
  && grep -qs "from tablecert.entry import main" "$venv/bin/tablecert"; then
  install=(--skip-install)
fi
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" "$venv/bin/maturin" develop --release --quiet "${install[@]}" \
  > "$venv/.maturin.log" 2>&1 || { cat "$venv/.maturin.log" >&2; exit 1; }
