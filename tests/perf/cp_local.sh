#!/usr/bin/env bash
# `strata cp` of a large local file against coreutils `cp`, same data, same disk.
# Prints each run, the medians and the ratio strata/cp (goal: <= 1.1).
# Usage: tests/perf/cp_local.sh [SIZE_MIB=1024] [RUNS=5]   (STRATA=path/to/strata to pick a binary)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
size_mib=${1:-1024}
runs=${2:-5}
strata=${STRATA:-$root/build/release/app/strata}
if [ ! -x "$strata" ]; then
  cmake --preset release -S "$root" >/dev/null && cmake --build --preset release >/dev/null
fi
work=$(mktemp -d "${PERF_DIR:-/var/tmp}/strata-perf-XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "source: ${size_mib} MiB of random data in $work ($(df -T "$work" | awk 'NR==2 {print $2}'))"
head -c "$((size_mib * 1024 * 1024))" /dev/urandom >"$work/src.bin"
sync

drop_caches() { sync; echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true; }
if echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then cache="cold (caches dropped before each run)"; else cache="warm (cannot drop caches here)"; fi
echo "page cache: $cache"

time_run() { # prints seconds
  local start end
  start=$(date +%s.%N)
  "$@"
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }

cp_times=(); strata_times=()
for i in $(seq "$runs"); do
  # Alternate the order so neither tool always runs on a warmer machine.
  for tool in cp strata; do
    rm -f "$work/dst.bin"; drop_caches
    if [ "$tool" = cp ]; then
      t=$(time_run cp "$work/src.bin" "$work/dst.bin"); cp_times+=("$t")
    else
      t=$(time_run "$strata" cp "$work/src.bin" "$work/dst.bin"); strata_times+=("$t")
    fi
    cmp -s "$work/src.bin" "$work/dst.bin" || { echo "copy by $tool differs from the source" >&2; exit 1; }
    printf 'run %d %-6s %.3f s\n' "$i" "$tool" "$t"
  done
done
cp_med=$(printf '%s\n' "${cp_times[@]}" | median)
st_med=$(printf '%s\n' "${strata_times[@]}" | median)
printf 'median cp     %.3f s (%.0f MiB/s)\n' "$cp_med" "$(echo "$size_mib / $cp_med" | bc -l)"
printf 'median strata %.3f s (%.0f MiB/s)\n' "$st_med" "$(echo "$size_mib / $st_med" | bc -l)"
printf 'ratio strata/cp %.2f (goal <= 1.10)\n' "$(echo "$st_med / $cp_med" | bc -l)"
