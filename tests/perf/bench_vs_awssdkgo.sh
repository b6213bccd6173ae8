#!/usr/bin/env bash
# strata bench against aws-sdk-go's PutObject/GetObject benchmark (issue #7), both on the
# same s3rver on 127.0.0.1, at 4KiB/256KiB/4MiB/16MiB, then `strata benchstat` of the two.
# Goals (issue 24): ns/op <= 0.9x aws-sdk-go at every size, allocs/op <= 0.15x, B/op <= 0.25x
# (every library's allocations counted on both sides: Go's runtime counts its own heap,
# strata replaces malloc). libcurl 7.88 allocates its receive and upload buffers (16 KiB
# each at least) for every transfer, so a PUT costs strata >= 32 KiB whatever we do: the
# B/op goal for writes could only be met by an allocator shim, which issue 24 removed. s3rver is single-threaded node: its CPU time per tool is printed.
#
# Usage: tests/perf/bench_vs_awssdkgo.sh [COUNT=6] [BENCHTIME=1s]
# Env:   PERF_DIR, STRATA, STRATA_SKIP_BUILD=1
# Needs: golang-go golang-github-aws-aws-sdk-go-dev (scripts/bootstrap perf installs them).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
count=${1:-6} benchtime=${2:-1s}
perf_setup
peer=$perf_root/../shared/peers/aws-sdk-go/run.sh
[ -x "$peer" ] || peer=/work/shared/peers/aws-sdk-go/run.sh
[ -f "$peer" ] || { echo "the aws-sdk-go harness is missing ($peer)" >&2; exit 1; }
servers=$perf_root/tests/servers/s3rver.sh
"$servers" install
work=$(mktemp -d "${PERF_DIR:-/var/tmp}/strata-benchperf-XXXXXX")
trap '"$servers" stop "$work/server" || true; rm -rf "$work"' EXIT
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY AWS_PROFILE AWS_CA_BUNDLE
export no_proxy=127.0.0.1 AWS_EC2_METADATA_DISABLED=true
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
endpoint=$("$servers" start "$work/server" 2>"$work/server.log") || { cat "$work/server.log" >&2; exit 1; }
[[ $endpoint =~ ^http://127\.0\.0\.1:[0-9]+$ ]] || { echo "unexpected endpoint $endpoint" >&2; exit 1; }
bucket=strata-test
pid=$(cat "$work/server/s3rver.pid")
server_cpu() { awk '{print ($14 + $15) / 100}' "/proc/$pid/stat"; } # utime + stime, seconds

echo "strata: $STRATA; aws-sdk-go: $(dpkg-query -W -f='${Version}' golang-github-aws-aws-sdk-go-dev 2>/dev/null); go $(go version | cut -d' ' -f3)"
echo "s3rver $endpoint; count $count, benchtime $benchtime; load $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

c0=$(server_cpu)
S3_ENDPOINT=$endpoint "$peer" "$endpoint" "$bucket" "$count" "$benchtime" >"$work/go.txt" 2>"$work/go.err" \
  || { cat "$work/go.err" >&2; exit 1; }
c1=$(server_cpu)
"$STRATA" bench "s3://$bucket/bench/?endpoint=$endpoint" --ops write,read --count "$count" --benchtime "$benchtime" \
  --sizes 4KiB,256KiB,4MiB,16MiB --label strata >"$work/strata.txt" 2>"$work/strata.err" \
  || { cat "$work/strata.err" >&2; exit 1; }
c2=$(server_cpu)
printf 's3rver CPU: %.1f s during aws-sdk-go, %.1f s during strata\n\n' "$(echo "$c1 - $c0" | bc -l)" "$(echo "$c2 - $c1" | bc -l)"

# benchstat splits its tables by configuration: both runs get the same pkg and cpu lines
# (Go reads the CPU's brand string, strata /proc/cpuinfo: on some VMs they differ).
sed -i -e 's/^pkg: .*/pkg: s3/' -e '/^cpu: /d' "$work/go.txt" "$work/strata.txt"
echo "== aws-sdk-go (old) vs strata (new), strata benchstat"
"$STRATA" benchstat "$work/go.txt" "$work/strata.txt"
echo
echo "== ratios of medians, strata / aws-sdk-go (goals: ns/op <= 0.90, allocs/op <= 0.15, B/op <= 0.25)"
"$STRATA" benchstat --format json "$work/go.txt" "$work/strata.txt" >"$work/cmp.json"
# Three decimals; below 0.001 says so (a ratio like 4.67e-05 must not print as "4.67").
jq -r '
  def fmt: if . == null then "-" elif . < 0.001 then "<0.001" else ((. * 1000 | round) / 1000 | tostring) end;
  [.. | objects | select(has("unit") and has("name") and .name != "geomean")]
  | group_by(.name)[] as $rows
  | ($rows | map({(.unit): ((.new.center // 0) / ((.old.center // 0) + 1e-300))}) | add) as $r
  | "\($rows[0].name)\tsec/op \($r["sec/op"] | fmt)\tB/op \($r["B/op"] | fmt)\tallocs/op \($r["allocs/op"] | fmt)"' \
  "$work/cmp.json" 2>/dev/null || echo "(ratios: see the table above)"
