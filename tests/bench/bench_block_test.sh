#!/usr/bin/env bash
# strata bench on disk images: block workloads on a local file and on an NBD export
# (nbdkit, on a unix socket in a temp dir, stopped by PID). Names like SeqRead/1MiB/q8t1;
# only the region is touched; writes are refused where the region holds data unless
# --allow-overwrite; a region found empty is handed back empty; bad input is refused.
# Usage: bench_block_test.sh /path/to/strata /path/to/nbdkit.sh
set -u
STRATA=$(readlink -f "$1")
NBDKIT_SH=$(readlink -f "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-bblock-XXXXXX")
export XDG_DATA_HOME=$work/data
cleanup() { bash "$NBDKIT_SH" stopall "$work/nbd" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
quick=(--count 1 --duration 100ms)
MiB=$((1 << 20))

# sha_range FILE OFFSET LENGTH (bytes)
sha_range() { tail -c +$(($2 + 1)) "$1" | head -c "$3" | sha256sum | cut -d' ' -f1; }
blocks() { stat -c %b "$1"; }
bench_lines() { grep -E '^Benchmark' <<<"$1" | awk '{print $1}' | sed -E 's/^Benchmark//; s/-[0-9]+$//' | paste -sd' '; }

# --- a local file -------------------------------------------------------------------
img=$work/disk.img
truncate -s $((64 * MiB)) "$img"
expect 0 "file: write,read" -- "$STRATA" bench "file://$img" "${quick[@]}" --sizes 4KiB --region 16MiB
[ "$(bench_lines "$out")" = "RndWrite/4KiB/q1t1 RndRead/4KiB/q1t1" ] && pass \
  || fail "file: benchmark names: $(bench_lines "$out")"
bad=$(grep -E '^Benchmark' <<<"$out" | grep -vE 'ns/op.*MB/s.*p50-ns.*p99-ns.*max-ns')
[ -z "$bad" ] && pass || fail "file: a line lacks MB/s or percentiles: $bad"
[ "$(blocks "$img")" = 0 ] && pass || fail "file: the region was not handed back empty ($(blocks "$img") blocks)"
[ "$(stat -c %s "$img")" = $((64 * MiB)) ] && pass || fail "file: its size changed"
contains "file: page cache flagged" "$out" "# flag page-cache RndRead/4KiB/q1t1"

# data before and after the region is never touched
head -c $MiB /dev/urandom | dd of="$img" bs=$MiB seek=0 conv=notrunc status=none
head -c $MiB /dev/urandom | dd of="$img" bs=$MiB seek=40 conv=notrunc status=none
before0=$(sha_range "$img" 0 $MiB) before40=$(sha_range "$img" $((40 * MiB)) $MiB)
expect 0 "file: region between data" -- "$STRATA" bench "file://$img" "${quick[@]}" --sizes 4KiB,64KiB \
  --region 16MiB+16MiB --pattern seq --queue-depth 4 --concurrency 2
[ "$(bench_lines "$out")" = "SeqWrite/4KiB/q4t2 SeqWrite/64KiB/q4t2 SeqRead/4KiB/q4t2 SeqRead/64KiB/q4t2" ] \
  && pass || fail "file: seq names: $(bench_lines "$out")"
[ "$(sha_range "$img" 0 $MiB)" = "$before0" ] && [ "$(sha_range "$img" $((40 * MiB)) $MiB)" = "$before40" ] \
  && pass || fail "file: data outside the region changed"
[ "$(blocks "$img")" -le $((2 * MiB / 512 + 64)) ] && pass || fail "file: the region kept data: $(blocks "$img") blocks"

# a region holding data: writes refused (nothing changes), reads allowed, overwrite on request
expect 1 "file: refuses to overwrite" -- "$STRATA" bench "file://$img" "${quick[@]}" --sizes 4KiB --region 32MiB
contains "file: refusal says how" "$err" "--allow-overwrite"
[ "$(sha_range "$img" 0 $MiB)" = "$before0" ] && pass || fail "file: a refused run changed data"
expect 0 "file: reads of data" -- "$STRATA" bench "file://$img" "${quick[@]}" --sizes 4KiB --region 32MiB --ops read
[ "$(sha_range "$img" 0 $MiB)" = "$before0" ] && pass || fail "file: a read-only run changed data"
expect 0 "file: --allow-overwrite" -- "$STRATA" bench "file://$img" "${quick[@]}" --sizes 4KiB --region 2MiB \
  --allow-overwrite --ops write --pattern seq
[ "$(sha_range "$img" 0 $MiB)" != "$before0" ] && pass || fail "file: --allow-overwrite wrote nothing"
[ "$(sha_range "$img" $((40 * MiB)) $MiB)" = "$before40" ] && pass || fail "file: --allow-overwrite left its region"

# --direct: past the page cache (no page-cache flag), or refused by name where the file
# system has no O_DIRECT (tmpfs before Linux 6.6)
truncate -s $((64 * MiB)) "$work/direct.img"
expect_direct=0
python3 - "$work/direct.img" <<'PY' || expect_direct=1
import os, sys
try:
    os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT))
except OSError:
    sys.exit(1)
PY
if [ "$expect_direct" = 0 ]; then
  expect 0 "file: --direct" -- "$STRATA" bench "file://$work/direct.img" "${quick[@]}" --sizes 4KiB --region 8MiB --direct
  lacks "file: --direct is not flagged page-cache" "$out" "page-cache"
  expect 1 "file: --direct, unaligned region" -- "$STRATA" bench "file://$work/direct.img" "${quick[@]}" \
    --sizes 4KiB --region 1000+8MiB --direct
  contains "file: alignment named" "$err" "multiples of"
else
  expect 1 "file: --direct refused" -- "$STRATA" bench "file://$work/direct.img" "${quick[@]}" --direct
  contains "file: O_DIRECT named" "$err" "O_DIRECT"
fi

# KDiskMark's profiles
expect 0 "file: --profile default" -- "$STRATA" bench "file://$work/direct.img" --count 1 --duration 50ms \
  --profile default --region 16MiB
[ "$(bench_lines "$out")" = "SeqRead/1MiB/q8t1 SeqRead/1MiB/q1t1 RndRead/4KiB/q32t1 RndRead/4KiB/q1t1 SeqWrite/1MiB/q8t1 SeqWrite/1MiB/q1t1 RndWrite/4KiB/q32t1 RndWrite/4KiB/q1t1" ] \
  && pass || fail "file: profile names: $(bench_lines "$out")"
expect 0 "file: --profile default --ops read" -- "$STRATA" bench "file://$work/direct.img" --count 1 \
  --duration 50ms --profile default --region 16MiB --ops read
[ "$(grep -cE '^BenchmarkSeqRead|^BenchmarkRndRead' <<<"$out")" = 4 ] && [ "$(grep -c Write <<<"$out")" = 0 ] \
  && pass || fail "file: read profiles: $(bench_lines "$out")"
[ "$(blocks "$work/direct.img")" = 0 ] && pass || fail "file: profiles left data behind"
# --json carries the block fields
expect 0 "file: --json" -- "$STRATA" bench "file://$work/direct.img" "${quick[@]}" --sizes 4KiB --region 8MiB \
  --queue-depth 2 --json
jq -e '.runs | length == 2 and all(.[]; .queue_depth == 2 and .pattern == "rand" and .working_set == 8388608)' \
  <<<"$out" >/dev/null && pass || fail "file: --json block fields: $(head -c 300 <<<"$out")"

# Ctrl-C in the middle of writes: exit 130, the region handed back empty
truncate -s $((64 * MiB)) "$work/int.img"
"$STRATA" bench "file://$work/int.img" --count 1 --duration 30s --sizes 4KiB --ops write --region 16MiB \
  >"$work/int.out" 2>"$work/int.err" &
pid=$!
for ((i = 0; i < 400; i++)); do [ "$(blocks "$work/int.img")" != 0 ] && break; sleep 0.05; done
[ "$(blocks "$work/int.img")" != 0 ] && pass || fail "file: bench wrote nothing in 20 s"
kill -INT "$pid"; wait "$pid"; rc=$?
[ "$rc" = 130 ] && pass || fail "file: bench after Ctrl-C: exit $rc: $(cat "$work/int.err")"
[ "$(blocks "$work/int.img")" = 0 ] && pass || fail "file: Ctrl-C left data in the region"

# bad input
expect 2 "bad pattern" -- "$STRATA" bench "file://$img" --pattern zigzag
expect 2 "bad queue depth" -- "$STRATA" bench "file://$img" --queue-depth 0
expect 2 "bad profile" -- "$STRATA" bench "file://$img" --profile fast
expect 2 "profile with sizes" -- "$STRATA" bench "file://$img" --profile default --sizes 4KiB
expect 2 "bad region" -- "$STRATA" bench "file://$img" --region lots
expect 1 "region past the end" -- "$STRATA" bench "file://$img" --region 60MiB+8MiB --ops read
contains "region past the end: why" "$err" "the image holds 67108864 bytes"
expect 1 "stat on an image" -- "$STRATA" bench "file://$img" --ops stat
contains "stat on an image: why" "$err" "read and written in blocks"
expect 1 "profile on objects" -- "$STRATA" bench memory://bench/ --profile default
contains "profile on objects: why" "$err" "disk image"
expect 1 "direct on objects" -- "$STRATA" bench memory://bench/ --direct
expect 1 "mix on an image" -- "$STRATA" bench "file://$img" --mix read=1 --region 8MiB
contains "mix on an image: why" "$err" "disk image"
expect 1 "image vs objects" -- "$STRATA" bench "file://$img" --ops read --vs memory://bench/
contains "image vs objects: why" "$err" "like with like"

# --- an NBD export (nbdkit) --------------------------------------------------------
uri=$(bash "$NBDKIT_SH" start "$work/nbd" mem memory 128M 2>"$work/nbdkit.err") \
  || { fail "nbdkit did not start: $(cat "$work/nbdkit.err")"; finish; }
expect 0 "nbd: --profile default" -- "$STRATA" bench "$uri" --count 1 --duration 50ms --profile default \
  --region 32MiB+32MiB
[ "$(grep -cE '^Benchmark(Seq|Rnd)(Read|Write)/' <<<"$out")" = 8 ] && pass || fail "nbd: profiles: $(bench_lines "$out")"
contains "nbd: loopback flagged" "$out" "# flag loopback"
map=$(nbdinfo --map "$uri")
[ "$(grep -vc 'hole,zero' <<<"$map")" = 0 ] && pass || fail "nbd: the region was not handed back: $map"
expect 1 "nbd: --direct" -- "$STRATA" bench "$uri" "${quick[@]}" --direct
contains "nbd: --direct why" "$err" "NBD server"
# data in the export (written by nbdcopy): writes over it refused, beside it allowed
head -c $MiB /dev/urandom >"$work/mib"
nbdcopy "$work/mib" "$uri" 2>"$work/nbdcopy.err" || fail "nbdcopy: $(cat "$work/nbdcopy.err")"
sum=$(nbdcopy "$uri" - | head -c $MiB | sha256sum | cut -d' ' -f1)
expect 1 "nbd: refuses to overwrite" -- "$STRATA" bench "$uri" "${quick[@]}" --sizes 4KiB --region 8MiB
contains "nbd: refusal says how" "$err" "--allow-overwrite"
expect 0 "nbd: beside the data" -- "$STRATA" bench "$uri" "${quick[@]}" --sizes 4KiB --region 8MiB+8MiB \
  --concurrency 2 --queue-depth 4
[ "$(nbdcopy "$uri" - | head -c $MiB | sha256sum | cut -d' ' -f1)" = "$sum" ] && pass \
  || fail "nbd: data outside the region changed"
[ "$(nbdinfo --map "$uri" | awk '$4 == "data"' | wc -l)" = 1 ] && pass \
  || fail "nbd: data left behind: $(nbdinfo --map "$uri")"
bash "$NBDKIT_SH" stop "$work/nbd" mem

# --- the queue: --queue-depth N keeps N requests in flight from one thread -------------
# Each request waits 5 ms in the server (delay filter, inside the log filter), so what the
# log shows in progress is what strata has in flight; every request it sent is counted
# once in its iterations.
uri=$(bash "$NBDKIT_SH" start "$work/nbd" q --filter=log --filter=delay memory 64M delay-read=5ms \
  delay-write=5ms logfile="$work/q.nbdlog" 2>"$work/nbdkit.err") \
  || { fail "nbdkit (delay) did not start: $(cat "$work/nbdkit.err")"; finish; }
# peak_in_flight OP FROM_LINE: "PEAK COUNT" of OP (Read|Write) requests in the log after FROM_LINE
peak_in_flight() {
  tail -n +$(($2 + 1)) "$work/q.nbdlog" | awk -v op="$1" '
    $0 ~ op " id=" { if ($4 ~ /^\.\.\./) now--; else { now++; n++; if (now > peak) peak = now } }
    END { printf "%d %d\n", peak, n }'
}
iterations() { grep -E "^Benchmark$1" <<<"$out" | awk '{print $2}'; }
for op in read write; do
  from=$(wc -l <"$work/q.nbdlog")
  expect 0 "queue: $op q8t1" -- "$STRATA" bench "$uri&connections=1" --ops $op --sizes 4KiB --queue-depth 8 \
    --concurrency 1 --count 1 --duration 300ms --region 8MiB --allow-overwrite
  Op=$([ $op = read ] && echo Read || echo Write)
  read -r peak sent < <(peak_in_flight "$Op" "$from")
  [ "$peak" = 8 ] && pass || fail "queue: $op: $peak requests in flight at most, not 8"
  [ "$sent" = "$(iterations "Rnd$Op/4KiB/q8t1")" ] && pass \
    || fail "queue: $op: the server saw $sent requests, strata counted $(iterations "Rnd$Op/4KiB/q8t1")"
done
# two threads of 4 on one connection: both queues in flight at once (the first hands the
# connection to its I/O thread when the second comes), 8 at the peak
from=$(wc -l <"$work/q.nbdlog")
expect 0 "queue: q4t2 on one connection" -- "$STRATA" bench "$uri&connections=1" --ops read --sizes 4KiB \
  --queue-depth 4 --concurrency 2 --count 1 --duration 300ms --region 8MiB
read -r peak sent < <(peak_in_flight Read "$from")
[ "$peak" = 8 ] && pass || fail "queue: q4t2: $peak requests in flight at most, not 8 (a thread waited?)"
[ "$sent" = "$(iterations "RndRead/4KiB/q4t2")" ] && pass \
  || fail "queue: q4t2: the server saw $sent requests, strata counted $(iterations "RndRead/4KiB/q4t2")"
# two threads of 1 with two connections: each queue on a connection of its own (driven on
# its own thread, as fio's nbd engine drives each job's handle), not both on the first
# through its I/O thread because the second was still handshaking when they began
from=$(wc -l <"$work/q.nbdlog")
expect 0 "queue: q1t2 on two connections" -- "$STRATA" bench "$uri&connections=2" --ops read --sizes 4KiB \
  --queue-depth 1 --concurrency 2 --count 1 --duration 300ms --region 8MiB
per=$(tail -n +$((from + 1)) "$work/q.nbdlog" | awk '/ Read id=.*\.\.\.$/ { n[$3]++ }
  END { for (c in n) printf "%d ", n[c] }')
read -r -a counts <<<"$per"
if [ "${#counts[@]}" = 2 ] && [ "${counts[0]}" -ge 10 ] && [ "${counts[1]}" -ge 10 ]; then pass; else
  fail "queue: q1t2: reads per connection: ${per:-none} (wanted two connections, each with its share)"
fi
# deeper than the connection's requests=N: refused, saying how to go deeper
expect 1 "queue: q16 over requests=4" -- "$STRATA" bench "$uri&connections=1&requests=4" --ops read --sizes 4KiB \
  --queue-depth 16 --concurrency 1 --count 1 --duration 200ms --region 8MiB
contains "queue: deeper than requests= says how" "$err" "raise requests="
# the server gone mid-run: a clear error, no hang
( sleep 0.3; bash "$NBDKIT_SH" stop "$work/nbd" q ) &
expect 1 "queue: server stopped mid-run" -- timeout 20 "$STRATA" bench "$uri&connections=1" --ops read \
  --sizes 4KiB --queue-depth 8 --concurrency 1 --count 1 --duration 5s --region 8MiB
wait
contains "queue: server gone says so" "$err" "cannot read nbd+unix"

finish
