#!/usr/bin/env bash
# strata bench against fio 3.33 on the same disk images, KDiskMark's four profiles read and
# written (SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T1, RND4K Q1T1), on:
#   nbd-mem    an nbdkit memory export (2 GiB; the first 1 GiB used, filled with random data)
#   nbd-delay  the same behind nbdkit's delay filter (DELAY, default 1ms, every read and
#              write): the latency to expect is known. Strata uses one connection here
#              (connections=1), as fio's nbd engine does: with nbdkit's 16 threads per
#              connection, a second connection changes the queueing both would measure.
#   file       a 1 GiB file of random data under PERF_DIR, O_DIRECT for both (strata
#              --direct, fio direct=1)
# fio runs its nbd engine on the exports; on the file psync at queue depth 1 and io_uring
# deeper (its best). strata runs `strata bench URI --ops OP --sizes BS --pattern P
# --queue-depth Q --concurrency 1 --duration D --count 1 --allow-overwrite`. The two take
# turns, RUNS times per line (medians).
# Goals: strata's IOPS >= 1.0x fio's on every line; where both measure the same thing (the
# delay export) its p50 within +-10 % and its p99 within +-20 % of fio's. Printed per line:
# IOPS, p50 and p99 of both, the ratios.
# Which fio latency: its total latency (lat, asked with lat_percentiles=1), from before a
# request is issued to its completion, as strata times it. fio's completion latency (clat)
# starts, for an asynchronous engine such as nbd, only once the engine's queue call has
# returned, i.e. after libnbd has sent the request and its data: on a 1 MiB write at depth
# 1 that leaves out ~100 us of a ~300 us request (nbd-mem SeqWrite/1MiB/q1t1: clat p50
# 169 us, strata 273 us, the same IOPS). CLAT=1 compares with clat instead.
#
# Usage: tests/perf/bench_vs_fio.sh [RUNS=3]
# Env:   DURATION (3s per run), DELAY (1ms), TARGETS ("nbd-mem nbd-delay file"),
#        PROFILES (all: "SeqRead/1MiB/q8 SeqRead/1MiB/q1 RndRead/4KiB/q32 RndRead/4KiB/q1
#        SeqWrite/1MiB/q8 SeqWrite/1MiB/q1 RndWrite/4KiB/q32 RndWrite/4KiB/q1"),
#        PERF_DIR (/var/tmp), STRATA (the release binary), STRATA_SKIP_BUILD=1,
#        FIO_TWICE=1 (fio in strata's column too: the ratios two runs of the same tool show
#        on this machine, the noise every other ratio carries).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-3}
duration=${DURATION:-3s}
delay=${DELAY:-1ms}
read -ra targets <<<"${TARGETS:-nbd-mem nbd-delay file}"
read -ra profiles <<<"${PROFILES:-SeqRead/1MiB/q8 SeqRead/1MiB/q1 RndRead/4KiB/q32 RndRead/4KiB/q1 SeqWrite/1MiB/q8 SeqWrite/1MiB/q1 RndWrite/4KiB/q32 RndWrite/4KiB/q1}"
die() { echo "bench_vs_fio.sh: $*" >&2; exit 1; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number, not '$runs'"
[[ $duration =~ ^[0-9]+(ms|s)$ ]] || die "DURATION must be like 3s or 500ms, not '$duration'"
perf_setup
for t in fio nbdkit nbdcopy jq; do command -v "$t" >/dev/null || die "$t is missing: scripts/bootstrap perf installs it"; done
fio_runtime=$duration # fio reads 3s and 500ms alike
fio_latency=$([ "${CLAT:-0}" = 1 ] && echo clat_ns || echo lat_ns)

work=$(mktemp -d "${PERF_DIR:-/var/tmp}/strata-bench-fio-XXXXXX")
export XDG_DATA_HOME=$work/data # strata's history of these runs only
nbd_dir=$(mktemp -d /tmp/strata-bfio-XXXXXX) # short: unix socket paths
nbdkit_sh=$perf_root/tests/servers/nbdkit.sh
cleanup() { bash "$nbdkit_sh" stopall "$nbd_dir" 2>/dev/null; rm -rf "$work" "$nbd_dir"; }
trap cleanup EXIT
GiB=$((1 << 30))

# The images: random data in the region both tools use.
head -c $GiB /dev/urandom >"$work/region.bin"
declare -A uri
for t in "${targets[@]}"; do
  case "$t" in
    nbd-mem) uri[$t]=$(bash "$nbdkit_sh" start "$nbd_dir" mem memory 2G 2>/dev/null) ;;
    nbd-delay) uri[$t]=$(bash "$nbdkit_sh" start "$nbd_dir" delay --filter=delay memory 2G \
      "delay-read=$delay" "delay-write=$delay" 2>/dev/null) ;;
    file) uri[$t]="file://$work/disk.img"; cp "$work/region.bin" "$work/disk.img" ;;
    *) die "unknown target '$t' in TARGETS (nbd-mem nbd-delay file)" ;;
  esac
  [[ $t == nbd-* ]] && nbdcopy "$work/region.bin" "${uri[$t]}"
done
rm -f "$work/region.bin"

# strata_run TARGET OP BS PATTERN QD: "IOPS MB/s P50_NS P99_NS"
strata_run() {
  local t=$1 op=$2 bs=$3 pattern=$4 qd=$5 extra=()
  local target=${uri[$t]}
  [ "$t" = file ] && extra=(--direct)
  [ "$t" = nbd-delay ] && target+="&connections=1"
  "$STRATA" bench "$target" --ops "$op" --sizes "$bs" --pattern "$pattern" --queue-depth "$qd" \
    --concurrency 1 --duration "$duration" --count 1 --region 1GiB --allow-overwrite "${extra[@]}" \
    | awk '/^Benchmark/ { for (i = 1; i <= NF; i++) { if ($i == "ns/op") ns = $(i-1); if ($i == "MB/s") mb = $(i-1);
        if ($i == "p50-ns") p50 = $(i-1); if ($i == "p99-ns") p99 = $(i-1) }
        printf "%.0f %.1f %d %d\n", 1e9 / ns, mb, p50, p99 }'
}

# fio_run TARGET OP BS PATTERN QD: "IOPS MB/s P50_NS P99_NS" (total latency; CLAT=1: clat)
fio_run() {
  local t=$1 op=$2 bs=$3 pattern=$4 qd=$5 rw engine
  rw=$([ "$pattern" = seq ] && echo "$op" || echo "rand$op")
  local args=(--name=p --rw="$rw" --bs="${bs%iB}" --iodepth="$qd" --numjobs=1 --size=1G --offset=0
    --time_based=1 --runtime="$fio_runtime" --output-format=json --lat_percentiles=1)
  if [ "$t" = file ]; then
    engine=$([ "$qd" = 1 ] && echo psync || echo io_uring)
    args+=(--ioengine="$engine" --filename="$work/disk.img" --direct=1)
  else
    args+=(--ioengine=nbd --uri="${uri[$t]}")
  fi
  fio "${args[@]}" 2>/dev/null | sed -n '/^{/,$p' | jq -r --arg op "$op" --arg lat "$fio_latency" '.jobs[0][$op] |
    "\(.iops | floor) \(.bw_bytes / 1e6 * 10 | floor / 10) \(.[$lat].percentile["50.000000"]) \(.[$lat].percentile["99.000000"])"'
}

echo "strata bench vs fio $(fio --version | sed 's/fio-//'): $runs runs of $duration per line, turns taken; delay $delay;" \
  "fio's ${fio_latency%_ns} percentiles"
if [ "${FIO_TWICE:-0}" = 1 ]; then echo "FIO_TWICE=1: the strata columns are a second fio"; else echo "strata: $STRATA"; fi
printf '%-10s %-20s %9s %9s %6s %10s %10s %6s %10s %10s %6s %s\n' target profile \
  strata-iops fio-iops ratio strata-p50 fio-p50 ratio strata-p99 fio-p99 ratio goals
missed=0
for t in "${targets[@]}"; do
  for p in "${profiles[@]}"; do
    IFS=/ read -r name bs q <<<"$p"
    qd=${q#q}
    op=$([[ $name == *Read ]] && echo read || echo write)
    pattern=$([[ $name == Seq* ]] && echo seq || echo rand)
    : >"$work/s.txt"; : >"$work/f.txt"
    for ((r = 0; r < runs; r++)); do
      if [ "${FIO_TWICE:-0}" = 1 ]; then
        fio_run "$t" "$op" "$bs" "$pattern" "$qd" >>"$work/s.txt" || die "fio failed on $t $p"
      else
        strata_run "$t" "$op" "$bs" "$pattern" "$qd" >>"$work/s.txt" || die "strata failed on $t $p"
      fi
      fio_run "$t" "$op" "$bs" "$pattern" "$qd" >>"$work/f.txt" || die "fio failed on $t $p"
    done
    col() { awk -v c="$2" '{print $c}' "$1" | median; }
    si=$(col "$work/s.txt" 1) fi=$(col "$work/f.txt" 1)
    s50=$(col "$work/s.txt" 3) f50=$(col "$work/f.txt" 3)
    s99=$(col "$work/s.txt" 4) f99=$(col "$work/f.txt" 4)
    ri=$(ratio "$si" "$fi") r50=$(ratio "$s50" "$f50") r99=$(ratio "$s99" "$f99")
    goals=$(awk -v ri="$ri" 'BEGIN { print (ri >= 1.0) ? "iops met" : "iops MISSED" }')
    if [ "$t" = nbd-delay ]; then
      goals+=$(awk -v a="$r50" -v b="$r99" 'BEGIN { printf ", p50 %s, p99 %s", (a >= 0.9 && a <= 1.1) ? "met" : "MISSED",
        (b >= 0.8 && b <= 1.2) ? "met" : "MISSED" }')
    fi
    [[ $goals == *MISSED* ]] && missed=$((missed + 1))
    printf '%-10s %-20s %9s %9s %6s %10s %10s %6s %10s %10s %6s %s\n' "$t" "$name/$bs/q${qd}t1" "$si" "$fi" "$ri" \
      "$s50" "$f50" "$r50" "$s99" "$f99" "$r99" "$goals"
  done
done
echo "latencies in ns; ratios strata/fio; $missed lines missed a goal"
