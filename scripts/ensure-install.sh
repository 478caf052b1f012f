#!/bin/sh
# Installs the locked dependencies (Node 24 among them) when node_modules is missing or older
# than package-lock.json, so `npm start` and `npm test` work on a fresh clone; then builds the web
# console (console/, served at /console) when its build is missing or older than any of its sources.
# `npm install` rather than `npm ci`: the registry this project installs from lacks some optional
# per-platform packages that the lock file names, and `npm ci` refuses a lock with such gaps.
set -eu
cd "$(dirname "$0")/.."
marker=node_modules/.package-lock.json
if [ ! -f "$marker" ] || [ package-lock.json -nt "$marker" ]; then
  echo "neoflow: installing dependencies..."
  npm install --no-audit --no-fund
fi
built=console/dist/index.html
if [ ! -f "$built" ] || [ -n "$(find console package-lock.json -path console/dist -prune -o -type f -newer "$built" -print | head -n 1)" ]; then
  echo "neoflow: building the console..."
  npm run --silent console:build
fi
