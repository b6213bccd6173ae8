#!/usr/bin/env bash
# The allocation goals of issue 7 on S3, against the shared s3rver: `strata bench` counts
# every heap allocation of the process (libcurl's too), and a PUT or GET must stay within a
# tenth of aws-sdk-go's (384 allocs per 4 KiB PUT, 434 per GET) over libcurl, and allocate
# nothing over the client's own HTTP/1.1. Fails when per-request allocations come back: a
# header list, a URL, a signature built with temporaries, a response buffer, or libcurl's
# 16 KiB/64 KiB transfer buffers no longer recycled (curl_buffers.cpp).
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

# The client's own HTTP/1.1 (plain http://, the default): building, signing and sending a
# request and reading its answer allocate nothing once the buffers have grown (a stray
# allocation or two of the benchmark loop itself is tolerated, no per-request structure).
expect 0 "bench s3" -- "$STRATA" bench "$uri" --ops write,read --sizes 4KiB,256KiB --count 2 --benchtime 50ms
printf '%s\n' "$out" >"$work/s3.txt"
check_allocs "$work/s3.txt" "own HTTP" "Write 1 256" "Read 1 256"

# Through libcurl (STRATA_HTTP_WIRE=0, also the path of TLS, proxies and authentication):
# within a tenth of aws-sdk-go's allocations (38 per PUT, 43 per GET); libcurl 7.88 alone
# makes ~38/~41 of them (connection lookup, URL parsing, request and response header
# storage) and ~4.5 KB; 8 KiB catches a 16 KiB transfer buffer no longer recycled.
expect 0 "bench s3 over libcurl" -- env STRATA_HTTP_WIRE=0 "$STRATA" bench "$uri" --ops write,read --sizes 4KiB,256KiB --count 2 --benchtime 50ms
printf '%s\n' "$out" >"$work/s3-curl.txt"
check_allocs "$work/s3-curl.txt" "libcurl" "Write 38 8191" "Read 43 8191"
# the benchmark's objects are gone (the directory it was given stays, empty)
expect 0 "ls after bench" -- "$STRATA" ls "$uri"
[ -z "$out" ] && pass || fail "bench left: $out"

echo "$checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
