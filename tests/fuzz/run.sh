#!/usr/bin/env bash
# Fuzzes each target for SECONDS (default 600) from a scratch copy of its seed corpus,
# printing one line per target; exits non-zero when any target crashed, keeping the input
# under build/fuzz/crashes/<target>/.
# Usage: tests/fuzz/run.sh [--prebuilt] [SECONDS] [TARGET...]   (targets: uri s3_xml webdav ftp_listing go_bench extent zstd)
# --prebuilt: skip building the fuzz tree (CTest runs the targets it has just built).
source "$(dirname "$0")/../../scripts/common.sh"
build=1
[ "${1:-}" = --prebuilt ] && { build=0; shift; }
seconds=${1:-600}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(uri s3_xml webdav go_bench extent zstd)
tree=${STRATA_FUZZ_BUILD:-$STRATA_ROOT/build/fuzz}
[ "$build" = 1 ] && strata_build fuzz

failed=0
for t in "${targets[@]}"; do
  seeds=$STRATA_ROOT/tests/fuzz/corpus/$t
  work=$tree/corpus/$t
  crashes=$tree/crashes/$t
  log=$tree/logs/$t.log
  # The seeds are copied: libFuzzer adds what it finds to its first corpus directory.
  rm -rf "$work"
  mkdir -p "$work" "$crashes" "$(dirname "$log")"
  cp -r "$seeds/." "$work/"
  dict=()
  [ -f "$STRATA_ROOT/tests/fuzz/$t.dict" ] && dict=(-dict="$STRATA_ROOT/tests/fuzz/$t.dict")
  rc=0
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$tree/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=512 \
    -print_final_stats=1 -artifact_prefix="$crashes/" "${dict[@]}" "$work" >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  units=$(find "$work" -type f | wc -l)
  if [ "$rc" = 0 ]; then
    result=ok
  else
    failed=1
    result="FAILED (exit $rc): $(ls -t "$crashes" | head -1 | sed "s|^|$crashes/|"); log $log"
  fi
  printf 'fuzz %-9s %6ss  runs %10s  corpus %5s  %s\n' "$t" "$seconds" "${runs:-?}" "$units" "$result"
  [ "$rc" = 0 ] || grep -m5 -E 'ERROR: |runtime error|fuzz check failed' "$log" >&2 || true
done
exit "$failed"
