#!/usr/bin/env bash
# The test suite's time budget (issue #50): `.ci/run` sources this file and, after the
# test command, prints the suite's wall time and, past the budget, a WARNING line.
# A warning, never a failure: a timed assertion would flake on a busy machine; the line
# is there for whoever reads the log (with pytest's --durations table just above it).
#
#   budget_report START_EPOCH END_EPOCH [BUDGET_SECONDS]   # default GATEDRNN_SUITE_BUDGET_S or 1200

budget_report() {
    local start=$1 end=$2 budget=${3:-${GATEDRNN_SUITE_BUDGET_S:-1200}}
    local took=$((end - start))
    printf '== test suite wall time: %d s (%d min %02d s); budget %d s (%d min)\n' \
        "$took" $((took / 60)) $((took % 60)) "$budget" $((budget / 60))
    if [ "$took" -gt "$budget" ]; then
        printf 'WARNING: the test suite took %d s, over its %d s budget by %d s: see the slowest tests above (--durations) and issue #50\n' \
            "$took" "$budget" $((took - budget))
    fi
}
