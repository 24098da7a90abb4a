#!/usr/bin/env bash
# Runs CI's own script (.ci/run) on fresh clones of HEAD, several times in a row, while stress-ng
# keeps CPU-bound processes busy for each whole run: a suite that only passes on a quiet machine
# fails here. Each clone sits beside this checkout, so ../shared is the same corpus CI sees.
# Usage: scripts/ci-under-load.sh [runs=5] [busy processes=2]
set -euo pipefail
runs="${1:-5}"
busy="${2:-2}"
here="$(cd "$(dirname "$0")/.." && pwd)"
parent="$(dirname "$here")"
if ! command -v stress-ng >/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then apt_get=(apt-get); else apt_get=(sudo apt-get); fi
  DEBIAN_FRONTEND=noninteractive "${apt_get[@]}" install -y -qq --no-install-recommends stress-ng
fi
commit="$(git -C "$here" rev-parse --short HEAD)"
for run in $(seq "$runs"); do
  clone="$(mktemp -d "$parent/ci-load-XXXXXX")"
  log="$clone.log"
  git clone -q "$here" "$clone"
  stress-ng --cpu "$busy" --timeout 0 --quiet &
  stress=$!
  started=$(date +%s)
  code=0
  (cd "$clone" && CI=true bash .ci/run </dev/null >"$log" 2>&1) || code=$?
  seconds=$(($(date +%s) - started))
  kill "$stress" && wait "$stress" 2>/dev/null || true
  closing="$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1 || true)"
  echo "run $run of $runs at $commit: exit $code in $seconds s under $busy busy processes: ${closing:-no closing line} (log: $log)"
  rm -rf "$clone"
done
