#!/usr/bin/env bash
# What running as a host of `strata bench --hosts` costs (issue 44, goal: at most 2 % of
# a CPU at 10 000 operations per second): the same 4 KiB random reads of an nbdkit export
# whose reads take 1 ms (the delay filter, 12 in flight: about 10 000 a second here), run
# plainly and through one agent (a local launcher, no ssh), RUNS times each, taking turns.
# /usr/bin/time counts the process and the children it waited for (launcher and agent);
# prints the CPU per operation of each and the extra CPU share of the hosted runs.
#
# Usage: tests/perf/bench_agent_overhead.sh [RUNS=5]
# Env:   DURATION (5s), STRATA, STRATA_SKIP_BUILD=1.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-5}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "bench_agent_overhead.sh: RUNS must be a positive number" >&2; exit 1; }
perf_setup
work=$(mktemp -d /tmp/strata-agent-overhead-XXXXXX)
nbdkit_pid=
trap '[ -n "$nbdkit_pid" ] && kill "$nbdkit_pid" 2>/dev/null; rm -rf "$work"' EXIT
export XDG_DATA_HOME=$work/data # keeps these runs out of the user's history
# nbdkit 1.32 dies with its parent: started under a shell that waits.
sh -c "exec nbdkit -f -U '$work/nbd.sock' --filter=delay memory 64M delay-read=1ms" &
nbdkit_pid=$!
for _ in $(seq 50); do [ -S "$work/nbd.sock" ] && break; sleep 0.1; done
printf '#!/bin/sh\nshift\nexec "$@"\n' >"$work/launch"
chmod +x "$work/launch"
uri="nbd+unix:///?socket=$work/nbd.sock"
args=(--ops read --sizes 4KiB --region 16MiB --duration "${DURATION:-5s}" --count 1 --queue-depth 12)
for ((r = 0; r < runs; r++)); do
  for how in plain hosted; do
    extra=()
    [ $how = hosted ] && extra=(--hosts local --ssh "$work/launch" --strata-path "$STRATA")
    /usr/bin/time -o "$work/time" -f "%U %S" "$STRATA" bench "$uri" "${extra[@]}" "${args[@]}" >"$work/out"
    ops=$(awk '/^Benchmark/ { print $2; exit }' "$work/out")
    echo "$how $ops $(cat "$work/time")" | tee -a "$work/all"
  done
done
python3 - "$work/all" "${DURATION:-5s}" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
seconds = float(sys.argv[2].rstrip('s'))
per = {}
for how, ops, user, sys_ in rows:
    per.setdefault(how, []).append(((float(user) + float(sys_)) / int(ops), int(ops) / seconds))
for how, v in per.items():
    print(f"{how:7} {statistics.median(c for c, _ in v) * 1e6:6.2f} us CPU per operation, "
          f"{statistics.median(r for _, r in v):7.0f} ops/s")
plain = statistics.median(c for c, _ in per['plain'])
hosted = statistics.median(c for c, _ in per['hosted'])
rate = statistics.median(r for _, r in per['hosted'])
print(f"agent and coordinator: {(hosted - plain) * rate * 100:+.2f} % of a CPU at {rate:.0f} ops/s (goal <= 2 %)")
PY
