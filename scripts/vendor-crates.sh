#!/usr/bin/env bash
# Make the Rust dependencies available to cargo when crates.io cannot be reached.
#
# Debian 13 ("trixie") packages crate sources as librust-<name>-dev. This script downloads
# those .deb files with a private apt configuration (the system's apt sources are not touched),
# unpacks them into vendor/ (git-ignored) and writes .cargo/config.toml (git-ignored) that
# replaces crates.io with that directory source. Idempotent: a second run does nothing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
vendor="$root/vendor"
registry="$vendor/root/usr/share/cargo/registry"
config="$root/.cargo/config.toml"

# The crates tablecert needs (pyo3 0.22 + rayon 1.10 and their dependencies), as Debian names them.
crates=(
  pyo3 pyo3-ffi pyo3-macros pyo3-macros-backend pyo3-build-config
  rayon rayon-core crossbeam-deque crossbeam-epoch crossbeam-utils either
  libc once-cell memoffset cfg-if portable-atomic indoc unindent heck
  proc-macro2 quote syn unicode-ident target-lexicon autocfg
  flate2 miniz-oxide adler crc32fast simd-adler32
  rustfft realfft num-complex num-traits num-integer primal-check strength-reduce transpose
  version-check libm
  serde-json serde serde-derive itoa ryu memchr
)
stamp_text="${crates[*]} $registry"

if [ "${TABLECERT_FORCE_VENDOR:-0}" != 1 ] && \
   curl -s -o /dev/null --max-time 5 https://index.crates.io/config.json; then
  echo "vendor-crates: crates.io is reachable; nothing to do" >&2
  exit 0
fi

if [ -f "$vendor/.stamp" ] && [ "$(cat "$vendor/.stamp")" = "$stamp_text" ] && [ -f "$config" ]; then
  exit 0
fi

echo "vendor-crates: crates.io unreachable; fetching crate sources from Debian trixie" >&2
apt_dir="$vendor/apt"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$apt_dir/etc" "$vendor/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" \
  > "$apt_dir/etc/sources.list"
: > "$apt_dir/status"
apt_opts=(
  -o "Dir::Etc::sourcelist=$apt_dir/etc/sources.list"
  -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$apt_dir/lists"
  -o "Dir::State::status=$apt_dir/status"
  -o "Dir::Cache=$apt_dir/cache"
  -o "APT::Get::List-Cleanup=0"
  -o "Debug::NoLocking=1"
  -o "APT::Sandbox::User=root"
)
apt-get "${apt_opts[@]}" -qq update
packages=()
for c in "${crates[@]}"; do packages+=("librust-$c-dev"); done
(cd "$vendor/debs" && apt-get "${apt_opts[@]}" -qq download "${packages[@]}")

rm -rf "$vendor/root"
mkdir -p "$vendor/root"
for deb in "$vendor"/debs/*.deb; do dpkg-deb -x "$deb" "$vendor/root"; done
# Debian ships .cargo-checksum.json without file hashes; cargo's directory source accepts that.
for dir in "$registry"/*/; do
  [ -f "$dir/.cargo-checksum.json" ] || echo '{"files":{}}' > "$dir/.cargo-checksum.json"
done

mkdir -p "$(dirname "$config")"
cat > "$config" <<CFG
# Written by scripts/vendor-crates.sh: crates.io is unreachable, use Debian's crate sources.
[source.crates-io]
replace-with = "debian-trixie"

[source.debian-trixie]
directory = "$registry"

[net]
offline = true
CFG
echo "$stamp_text" > "$vendor/.stamp"
echo "vendor-crates: $(ls "$registry" | wc -l) crates in $registry" >&2
