#!/usr/bin/env bash
# Installs what the project needs on a fresh machine: npm packages from the lockfile (native addons
# build against Node's headers in /usr), and Debian's Chromium for the browser tests when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export npm_config_nodedir="${npm_config_nodedir:-/usr}" NEXT_TELEMETRY_DISABLED=1
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" = "0" ]; then
    (apt-get update -qq && apt-get install -y -qq chromium) >/dev/null
  else
    echo "Chromium is missing: run 'sudo apt-get install -y chromium' for the browser tests" >&2
  fi
fi
