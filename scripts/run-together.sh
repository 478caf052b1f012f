#!/bin/sh
# Runs each argument as a shell command, all at once, each to its end; fails if any failed.
# `npm test` runs the checks (ESLint, Prettier, tsc: one core each, one after another) beside the
# unit tests (one test worker): two busy processes on a machine of two cores, where one after the
# other left a core idle for the length of the shorter.
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
