#!/bin/sh
# Installs the locked dependencies (Node 24 among them) when node_modules is missing or older
# than package-lock.json, so `npm start` and `npm test` work on a fresh clone.
set -eu
cd "$(dirname "$0")/.."
marker=node_modules/.package-lock.json
if [ ! -f "$marker" ] || [ package-lock.json -nt "$marker" ]; then
  echo "neoflow: installing dependencies (npm ci)..."
  npm ci --no-audit --no-fund
fi
