#!/usr/bin/env bash
# The allocation goals on S3, against the shared s3rver: `strata bench` counts every heap
# allocation of the process (libcurl's and libcrypto's too), and a PUT or GET must stay
# within 0.15x of aws-sdk-go's allocations (384 per 4 KiB PUT, 434 per GET). Fails when
# per-request allocations come back: a header list, a URL, a signature built with
# temporaries, a response buffer, a digest context made per request.
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
# unit_of FILE PATTERN UNIT: the largest value of UNIT on the lines matching PATTERN
unit_of() { grep -E "$2" "$1" | awk -v u="$3" '{for (i=1;i<=NF;i++) if ($i==u) print $(i-1)}' | sort -n | tail -1; }
# check_allocs FILE LABEL "OP MAX_ALLOCS MAX_BYTES"...
check_allocs() {
  local file=$1 label=$2 case a b; shift 2
  for case in "$@"; do
    set -- $case
    a=$(unit_of "$file" "^Benchmark$1/" allocs/op)
    b=$(unit_of "$file" "^Benchmark$1/" B/op)
    [ -n "$a" ] && [ "$a" -le "$2" ] && pass || fail "$label: S3 ${1}s allocate ${a:-?} times per op (want <= $2): $(grep "^Benchmark$1/" "$file")"
    [ -n "$b" ] && [ "$b" -le "$3" ] && pass || fail "$label: S3 ${1}s allocate ${b:-?} bytes per op (want <= $3)"
  done
}

# libcurl 7.88 makes ~38 of a request's allocations itself (connection lookup, URL
# parsing, request and response header storage) and allocates its receive buffer (16 KiB)
# and, for an upload, its upload buffer (16 KiB) anew for every transfer: ~22 KiB a GET,
# ~38 KiB a PUT. 57/65 allocations are 0.15x of aws-sdk-go's; the byte limits catch a
# larger buffer or a body copied per request.
expect 0 "bench s3" -- "$STRATA" bench "$uri" --ops write,read --sizes 4KiB,256KiB --count 2 --benchtime 50ms
printf '%s\n' "$out" >"$work/s3.txt"
check_allocs "$work/s3.txt" "libcurl" "Write 57 40960" "Read 65 24576"
# time to first byte on reads, noted by libcurl's write callback as the body arrives: a
# 4 MiB GET's first byte comes well before its last; writes have none
expect 0 "bench s3 ttfb" -- "$STRATA" bench "$uri" --ops write,read --sizes 4MiB --count 1 --benchtime 200ms
ttfb=$(unit_of <(printf '%s\n' "$out") "^BenchmarkRead/4MiB" ttfb-p50-ns)
p50=$(unit_of <(printf '%s\n' "$out") "^BenchmarkRead/4MiB" p50-ns)
[ -n "$ttfb" ] && [ -n "$p50" ] && awk -v t="$ttfb" -v p="$p50" 'BEGIN { exit !(t < 0.9 * p) }' && pass \
  || fail "S3 4 MiB reads: ttfb-p50 ${ttfb:-?} ns is not well below p50 ${p50:-?} ns: $out"
grep -E '^BenchmarkWrite' <<<"$out" | grep -q ttfb && fail "S3 writes report a time to first byte" || pass
# the benchmark's objects are gone (the directory it was given stays, empty)
expect 0 "ls after bench" -- "$STRATA" ls "$uri"
[ -z "$out" ] && pass || fail "bench left: $out"

echo "$checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
