#!/usr/bin/env bash
# The percentiles strata bench reports follow a known latency distribution: the fault proxy
# (tests/faults/fault_proxy.js) in front of s3rver and lighttpd delays a fixed share of the
# requests (SHARE, 5 %) by DELAY (20 ms). Reads of 4 KiB then take ~1 ms, or DELAY more:
# p50 must stay below DELAY, p99 at or above it; the share the proxy delayed is checked
# against its log. It runs alone (RUN_SERIAL): the shared servers answer others meanwhile.
# Usage: bench_injected_latency_test.sh /path/to/strata   (through CTest: fixtures s3rver,
# lighttpd)
set -u
STRATA=$(readlink -f "$1")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$(mktemp -d /tmp/strata-bench-lat-XXXXXX)
export XDG_DATA_HOME=$work/data
proxy_pid=""
cleanup() { [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
DELAY_MS=20 SHARE=0.05
for f in "${STRATA_S3_ENVFILE:-}" "${STRATA_WEBDAV_ENVFILE:-}"; do
  [ -f "$f" ] || { echo "FAIL: no server env file (run through CTest, fixtures s3rver and lighttpd)"; exit 1; }
done
set -a; source "$STRATA_S3_ENVFILE"; source "$STRATA_WEBDAV_ENVFILE"; set +a
for e in "$STRATA_S3_ENDPOINT" "$STRATA_WEBDAV_ENDPOINT"; do
  case "$e" in http://127.0.0.1:[0-9]*) ;; *) echo "FAIL: $e is not on 127.0.0.1"; exit 1 ;; esac
done

# start_proxy PORT: the proxy in front of PORT; sets proxy_port, proxy_pid.
start_proxy() {
  : >"$work/proxy.log"
  node "$ROOT/tests/faults/fault_proxy.js" "$1" "$work/proxy.log" "delay=$DELAY_MS" "share=$SHARE" trace=1 seed=7 \
    >"$work/proxy.out" 2>"$work/proxy.err" &
  proxy_pid=$!
  proxy_port=""
  for ((i = 0; i < 250; i++)); do
    proxy_port=$(sed -n 's/^listening //p' "$work/proxy.out")
    [ -n "$proxy_port" ] && return 0
    sleep 0.02
  done
  fail "fault_proxy.js did not start: $(cat "$work/proxy.err")"
  finish
}
stop_proxy() { kill "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null; proxy_pid=""; }
metric() { awk -v u="$2" '/^BenchmarkRead/ {for (i = 1; i <= NF; i++) if ($i == u) print $(i-1)}' <<<"$1"; }

# check NAME URI: a 3 s read benchmark through the proxy
check() {
  local name=$1 uri=$2 p50 p90 p99 delayed reqs
  expect 0 "$name: bench" -- "$STRATA" bench "$uri" --ops read --sizes 4KiB --count 1 --duration 3s || return
  p50=$(metric "$out" p50-ns) p90=$(metric "$out" p90-ns) p99=$(metric "$out" p99-ns)
  delayed=$(grep -c '^delay GET' "$work/proxy.log") reqs=$(grep -c '^req GET' "$work/proxy.log")
  awk -v d="$delayed" -v n="$reqs" -v s="$SHARE" 'BEGIN { exit !(n >= 300 && d / n > s / 2 && d / n < s * 2) }' \
    && pass || fail "$name: the proxy delayed $delayed of $reqs GETs (want about $SHARE of several hundred)"
  echo "$name: p50 $p50 ns, p90 $p90 ns, p99 $p99 ns; the proxy delayed $delayed of $reqs GETs by $DELAY_MS ms"
  local delay_ns=$((DELAY_MS * 1000000))
  # What the distribution fixes whatever the servers' own speed (they are shared with other
  # tests, s3rver is single-threaded): 95 % of reads are not delayed, so the median is
  # below the delay; 5 % are delayed by it, so p99 is at or above it.
  [ -n "$p50" ] && [ "${p50%.*}" -lt "$delay_ns" ] && pass || fail "$name: p50 ${p50:-?} ns not below the delay"
  [ -n "$p99" ] && [ "${p99%.*}" -ge "$delay_ns" ] && pass || fail "$name: p99 ${p99:-?} ns below the $DELAY_MS ms delay"
}

export no_proxy=127.0.0.1
start_proxy "${STRATA_S3_ENDPOINT##*:}"
check s3 "s3://$STRATA_S3_BUCKET/bench-latency-$$/?endpoint=http://127.0.0.1:$proxy_port"
stop_proxy
start_proxy "${STRATA_WEBDAV_ENDPOINT##*:}"
dav="webdav://127.0.0.1:$proxy_port/open/bench-latency-$$/"
expect 0 "webdav: mkdir" -- "$STRATA" mkdir "$dav"
check webdav "$dav"
expect 0 "webdav: clean up" -- "$STRATA" rm -r "$dav"
stop_proxy
finish
