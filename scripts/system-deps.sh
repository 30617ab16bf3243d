#!/usr/bin/env bash
# System packages the test suite needs beyond Python and Rust: Debian's chromium, to open the
# HTML certification report in a real headless browser (and print report.pdf), poppler-utils
# (pdftoppm, pdftotext, pdfinfo) to look at the PDF page by page, and a small CJK font so the
# statute articles it cites (第八條) render as text, not boxes, and libdeflate0, which the core
# loads to inflate gzip logs 2.5x faster (rust/logs/libdeflate.rs; its tests expect it). Installs
# only what is missing.
set -euo pipefail
want=()
[ -x /usr/bin/chromium ] || want+=(chromium)
/sbin/ldconfig -p 2> /dev/null | grep -q 'libdeflate\.so\.0 ' || want+=(libdeflate0)
command -v pdftoppm > /dev/null || want+=(poppler-utils)
if ! command -v fc-list > /dev/null || [ -z "$(fc-list :lang=zh 2> /dev/null)" ]; then
  want+=(fonts-wqy-microhei)
fi
[ ${#want[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "system-deps: missing ${want[*]}; as root run: apt-get install -y ${want[*]}" >&2
  exit 0
fi
echo "system-deps: installing ${want[*]} (for the report tests and the gzip reader)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q "${want[@]}" > /dev/null \
  || { apt-get update -q > /dev/null && apt-get install -y -q "${want[@]}" > /dev/null; }
