#!/usr/bin/env bash
# Install the Debian packages a purpose (run, test, bench) needs, if any are missing.
# Usage: scripts/install-system-deps.sh <purpose>
set -euo pipefail
purpose="${1:?usage: install-system-deps.sh run|test|bench}"
here="$(cd "$(dirname "$0")" && pwd)"
mapfile -t wanted < <(awk -v p="$purpose" '$1 == p { print $2 }' "$here/debian-packages.txt")
missing=()
for pkg in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing Debian packages for $purpose: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then apt_get=(apt-get); else apt_get=(sudo apt-get); fi
  export DEBIAN_FRONTEND=noninteractive
  "${apt_get[@]}" update -qq
  "${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}"
fi
# Files out of a package that must not be installed (see the script).
bash "$here/fetch-filter-lists.sh"
