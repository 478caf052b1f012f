#!/bin/sh
# Runs each argument as a shell command, all at once, each to its end; fails if any failed.
# `npm run check` runs ESLint (the longest check, one core) beside Prettier, the import checks
# and tsc (one core, one after another): on two cores, one after the other left a core idle.
# Static checks only: tests, whose timeouts a busier machine can break, keep the cores to themselves.
set -u
pids=''
for command in "$@"; do
  sh -c "$command" &
  pids="$pids $!"
done
failed=0
for pid in $pids; do
  wait "$pid" || failed=1
done
exit "$failed"
