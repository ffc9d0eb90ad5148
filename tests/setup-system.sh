#!/usr/bin/env bash
# The system programs the suite runs for real, installed when missing (`make test` calls this
# before the suite): Debian's chromium (Playwright drives /usr/bin/chromium; never
# `playwright install`), a Java runtime for the W3C HTML checker (vnu.jar), and npm for
# vnu-jar and axe-core. apt-get runs as root, or through sudo when sudo needs no password;
# otherwise this stops before the suite with the one command to run.
set -euo pipefail

need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
command -v npm >/dev/null 2>&1 || need+=(npm)
[ ${#need[@]} -eq 0 ] && exit 0

install="apt-get install -y --no-install-recommends ${need[*]}"
if ! command -v apt-get >/dev/null 2>&1; then
  echo "make test needs ${need[*]} (Debian's package names), and this machine has no apt-get:" >&2
  echo "install them with your system's package manager (chromium at /usr/bin/chromium), then run make test again." >&2
  exit 1
fi
if [ "$(id -u)" = 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo)
else
  echo "make test needs ${need[*]}, which are not installed, and cannot install them without a password." >&2
  echo "Run this, then make test again:" >&2
  echo "  sudo apt-get update && sudo $install" >&2
  exit 1
fi
echo "make test: installing ${need[*]} with apt-get (once)" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
