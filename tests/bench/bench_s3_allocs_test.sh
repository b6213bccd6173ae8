#!/usr/bin/env bash
# The allocation goals of issue 7 on S3, against the shared s3rver: `strata bench` counts
# every heap allocation of the process (libcurl's too), and a PUT or GET must stay within a
# tenth of aws-sdk-go's (384 allocs per 4 KiB PUT, 434 per GET). Fails when per-request
# allocations come back: a header list, a URL, a signature built with temporaries, or
# libcurl's 16 KiB/64 KiB transfer buffers no longer recycled (curl_buffers.cpp).
# Usage: bench_s3_allocs_test.sh /path/to/strata   (through CTest: fixture s3rver)
set -u
STRATA=$(readlink -f "$1")
export QT_QPA_PLATFORM=offscreen
work=$(mktemp -d /tmp/strata-bench-s3-XXXXXX)
export XDG_DATA_HOME=$work/data # the history of this run only
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
[ -f "${STRATA_S3_ENVFILE:-}" ] || { echo "FAIL: no s3rver env file (run through CTest, fixture s3rver)"; exit 1; }
set -a; source "$STRATA_S3_ENVFILE"; set +a
case "$STRATA_S3_ENDPOINT" in http://127.0.0.1:[0-9]*) ;; *) echo "FAIL: $STRATA_S3_ENDPOINT is not on 127.0.0.1"; exit 1 ;; esac

# no_proxy set as in most setups (curl must not copy it out of the environment per request)
export no_proxy=127.0.0.1
uri="s3://$STRATA_S3_BUCKET/bench-allocs-$$/?endpoint=$STRATA_S3_ENDPOINT"
expect 0 "bench s3" -- "$STRATA" bench "$uri" --ops write,read --sizes 4KiB,256KiB --count 2 --benchtime 50ms
printf '%s\n' "$out" >"$work/s3.txt"
# unit_of FILE PATTERN UNIT: the largest value of UNIT on the lines matching PATTERN
unit_of() { grep -E "$2" "$1" | awk -v u="$3" '{for (i=1;i<=NF;i++) if ($i==u) print $(i-1)}' | sort -n | tail -1; }
# allocs/op: the goals (38 per PUT, 43 per GET); libcurl 7.88 alone makes ~38/~41 of them
# (connection lookup, URL parsing, request and response header storage).
# B/op: libcurl's per-transfer structures make ~4.5 KB; 8 KiB catches a 16 KiB buffer.
for case in "Write 38" "Read 43"; do
  set -- $case
  a=$(unit_of "$work/s3.txt" "^Benchmark$1/" allocs/op)
  b=$(unit_of "$work/s3.txt" "^Benchmark$1/" B/op)
  [ -n "$a" ] && [ "$a" -le "$2" ] && pass || fail "S3 ${1}s allocate ${a:-?} times per op (want <= $2): $(grep "^Benchmark$1/" "$work/s3.txt")"
  [ -n "$b" ] && [ "$b" -lt 8192 ] && pass || fail "S3 ${1}s allocate ${b:-?} bytes per op (want < 8192)"
done
# the benchmark's objects are gone (the directory it was given stays, empty)
expect 0 "ls after bench" -- "$STRATA" ls "$uri"
[ -z "$out" ] && pass || fail "bench left: $out"

echo "$checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
