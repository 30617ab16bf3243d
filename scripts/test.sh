#!/usr/bin/env bash
# The whole test suite: set-up, formatting and lint (Rust and Python), type checks (mypy and
# the stub check against the compiled core), the import layers, Rust tests, Python tests.
# Extra arguments go to pytest (e.g. scripts/test.sh -k ordering).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/bootstrap.sh
bash scripts/system-deps.sh   # chromium and poppler-utils, for the HTML and PDF report tests
export PATH="$root/.venv/bin:$PATH"

step() { printf '\n== %s\n' "$*" >&2; }
step "rustfmt";  cargo fmt --check
step "clippy";   cargo clippy --release --quiet --all-targets --features python -- -D warnings
step "cargo test"; cargo test --release --quiet
step "ruff";     ruff check python tests benches && ruff format --check python tests benches
step "mypy";     mypy
step "imports";  lint-imports --no-cache   # the layers contract in pyproject.toml: data flows one way
step "stubtest"; python -m mypy.stubtest tablecert._core tablecert._core._testing --concise --allowlist scripts/stubtest-allowlist.txt
step "docs";     NO_MKDOCS_2_WARNING=1 mkdocs build --strict   # not --quiet: it hides the warnings strict counts; the site, into site/ (git-ignored)
step "pytest";   python -m pytest "$@"
step "wheel";    bash scripts/wheel-smoke.sh   # a user's install: the wheel alone, outside the tree
