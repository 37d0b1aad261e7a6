#!/usr/bin/env bash
# scripts/ctest_skip_reasons.sh — print why each skipped test was skipped, from CTest's log.
#
#   scripts/ctest_skip_reasons.sh BUILD_DIR [PREFIX]
#
# ctest marks a test whose SKIP_REGULAR_EXPRESSION matched as "***Skipped" and prints none of its
# output, not even with --output-on-failure (a skip is not a failure). The output is in
# BUILD_DIR/Testing/Temporary/LastTest.log; this prints, per distinct reason, one line
#   PREFIX skipped N test(s) (name, name, ...): reason
# The reason is the text after "SKIPPED: " on a line of the test's output (porter's device programs:
# "-- SKIPPED: no usable GPU: <why>"), or the line after GoogleTest's "<file>:<line>: Skipped" (the
# GTEST_SKIP message). Prints nothing when nothing was skipped; exit status 0 unless the log is absent.
set -euo pipefail
log=$1/Testing/Temporary/LastTest.log
prefix=${2:-ctest:}
[[ -f $log ]] || { echo "$prefix no CTest log at $log" >&2; exit 1; }
awk -v prefix="$prefix" '
  /^[0-9]+\/[0-9]+ Testing: / { name = $0; sub(/^[0-9]+\/[0-9]+ Testing: /, "", name); n = 0; out = 0; next }
  /^Output:$/ && !out { out = 1; getline; next }          # the dashes under "Output:"
  /^<end of output>$/ { out = 0; next }
  out { line[++n] = $0; next }
  /^Skip regular expression found in output/ {
    reason = ""
    for (i = 1; i <= n && reason == ""; i++) {
      if (line[i] ~ /: Skipped$/ && i < n) reason = line[i + 1]
      else if (line[i] ~ /SKIPPED: /) { reason = line[i]; sub(/.*SKIPPED: /, "", reason) }
    }
    if (reason == "") reason = "(the test printed no reason)"
    if (!(reason in count)) order[++reasons] = reason
    count[reason]++
    names[reason] = names[reason] (count[reason] > 1 ? ", " : "") name
  }
  END {
    for (r = 1; r <= reasons; r++) {
      k = order[r]
      printf "%s skipped %d test%s (%s): %s\n", prefix, count[k], (count[k] > 1 ? "s" : ""), names[k], k
    }
  }' "$log"
