#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Headless Chromium + chromedriver + fonts (Debian packages) and Selenium (PyPI, in a venv), each only
# when missing. Idempotent: a second run does nothing. Needs root (or sudo) for apt-get; Debian bookworm.
#   BROWSER_VENV    the venv                 (default: .build/browser-venv in the repository)
#   BROWSER_FONTS   font packages            (default: fonts-liberation; fonts-dejavu-core comes with chromium)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${BROWSER_VENV:-$here/../../.build/browser-venv}"
requirements="$here/requirements.txt"
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }

need=()
for p in chromium chromium-driver ${BROWSER_FONTS-fonts-liberation}; do
  installed "$p" || need+=("$p")
done
# Debian's own python3 has no ensurepip without python3-venv.
if ! [ -x "$venv/bin/python" ] && ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
  need+=(python3-venv)
fi
if [ "${#need[@]}" -gt 0 ]; then
  t0=$SECONDS
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${need[@]}" >/dev/null
  echo "install-browser: apt-get installed ${need[*]} in $((SECONDS - t0)) s"
fi

# The venv is (re)made when requirements.txt differs from what it was made from.
if ! cmp -s "$requirements" "$venv/requirements.txt" || ! "$venv/bin/python" -c 'import selenium' 2>/dev/null; then
  t0=$SECONDS
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-cache-dir -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
  echo "install-browser: venv $venv made in $((SECONDS - t0)) s"
fi

echo "install-browser: $(/usr/bin/chromium --version 2>/dev/null | grep -m1 Chromium);" \
  "$(/usr/bin/chromedriver --version | cut -d' ' -f1-2); selenium $("$venv/bin/python" -c 'import selenium; print(selenium.__version__)')"
