#!/usr/bin/env bash
# What per-request latency costs strata bench: the memory backend (no I/O, so the timing
# is the largest share it can be) benchmarked with latencies (the default) and with
# --no-latency, RUNS times each, taking turns, then compared by strata benchstat (medians,
# confidence intervals, the geomean). Goal (issue 25): <= 2 % of ns/op.
#
# Usage: tests/perf/bench_overhead.sh [RUNS=10]
# Env:   SIZES (the bench's default sizes), OPS (write,read), STRATA, STRATA_SKIP_BUILD=1.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-10}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench_overhead.sh: RUNS must be a positive number" >&2; exit 1; }
perf_setup
work=$(mktemp -d /tmp/strata-bench-overhead-XXXXXX)
trap 'rm -rf "$work"' EXIT
export XDG_DATA_HOME=$work/data # keeps these runs out of the user's history
args=(--count 1 --ops "${OPS:-write,read}")
[ -n "${SIZES:-}" ] && args+=(--sizes "$SIZES")
for ((r = 0; r < runs; r++)); do
  "$STRATA" bench memory://overhead "${args[@]}" --no-latency 2>/dev/null | grep -E '^(Benchmark|goos|goarch|pkg|cpu)' >>"$work/no-latency.txt"
  "$STRATA" bench memory://overhead "${args[@]}" 2>/dev/null | grep -E '^(Benchmark|goos|goarch|pkg|cpu)' >>"$work/latency.txt"
done
echo "strata bench on memory://, $runs runs each, taking turns: --no-latency (base) against latencies on"
(cd "$work" && "$STRATA" benchstat no-latency.txt latency.txt) | awk '/no-latency.txt/ { on = 1 } on && /^$/ { exit } on'
