#!/usr/bin/env bash
# System packages the test suite needs beyond Python and Rust: Debian's chromium, to open the
# HTML certification report in a real headless browser. Installs only what is missing.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "system-deps: /usr/bin/chromium is missing; as root run: apt-get install -y chromium" >&2
  exit 0
fi
echo "system-deps: installing chromium (for the HTML report test)" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q chromium > /dev/null || { apt-get update -q > /dev/null && apt-get install -y -q chromium > /dev/null; }
