#!/usr/bin/env bash
# strata bench and strata benchstat end to end: runs on memory:// and file:// produce Go
# benchmark text that benchstat reads back; --vs compares two targets; the objects a run
# writes are removed (also after Ctrl-C); bad input is refused with exit 2.
# Usage: bench_cli_test.sh /path/to/strata
set -u
STRATA=$(readlink -f "$1")
export QT_QPA_PLATFORM=offscreen
work=$(mktemp -d /tmp/strata-bench-XXXXXX)
export XDG_DATA_HOME=$work/data # the history of this run only
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
quick=(--count 3 --benchtime 20ms --sizes 4KiB,64KiB)

# memory: Go's format, every case present, reads allocate nothing per operation
expect 0 "bench memory" -- "$STRATA" bench memory://bench/ "${quick[@]}" --ops write,read,stat,list,delete
printf '%s\n' "$out" >"$work/mem.txt"
contains "header" "$out" "goos: linux"
contains "cpu line" "$out" "cpu: "
for name in Write/4KiB Write/64KiB Read/4KiB Read/64KiB Stat List Delete/4KiB; do
  n=$(grep -c "^Benchmark$name-[0-9]*[[:space:]]" "$work/mem.txt")
  [ "$n" = 3 ] && pass || fail "Benchmark$name: $n result lines, wanted 3"
done
grep -E '^BenchmarkRead/' "$work/mem.txt" | grep -qvE 'ns/op.*MB/s.*B/op.*allocs/op' \
  && fail "a Read line lacks a unit" || pass
# the allocation goals: memory Read and Write <= 2 allocs/op and < 1 KiB/op (nothing
# payload-sized: written blocks are recycled), file:// <= 4 allocs/op
# unit_of FILE PATTERN UNIT: the largest value of UNIT on the lines matching PATTERN
unit_of() { grep -E "$2" "$1" | awk -v u="$3" '{for (i=1;i<=NF;i++) if ($i==u) print $(i-1)}' | sort -n | tail -1; }
for op in Read Write; do
  a=$(unit_of "$work/mem.txt" "^Benchmark$op/" allocs/op)
  b=$(unit_of "$work/mem.txt" "^Benchmark$op/" B/op)
  [ "${a:-99}" -le 2 ] && pass || fail "memory ${op}s allocate $a times per op (want <= 2)"
  [ "${b:-99999}" -lt 1024 ] && pass || fail "memory ${op}s allocate $b bytes per op (want < 1024)"
done
# per-request latency on every line, as extra Go metrics, in order p50 <= p90 <= p99 <=
# p99.9 <= max
bad=$(grep -E '^Benchmark' "$work/mem.txt" | awk '{
  for (i = 1; i <= NF; i++) v[$i] = $(i-1)
  if (!("p50-ns" in v) || !("max-ns" in v)) { print "no latency: " $1; next }
  if (!(v["p50-ns"] + 0 <= v["p90-ns"] + 0 && v["p90-ns"] + 0 <= v["p99-ns"] + 0 && v["p99-ns"] + 0 <= v["p99.9-ns"] + 0 \
        && v["p99.9-ns"] + 0 <= v["max-ns"] + 0 && v["p50-ns"] + 0 > 0)) print "out of order: " $0
  delete v }')
[ -z "$bad" ] && pass || fail "latency metrics: $bad"
# time to first byte on reads only: never later than the whole read (1 % for the buckets)
bad=$(grep -E '^BenchmarkRead/' "$work/mem.txt" | awk '{
  for (i = 1; i <= NF; i++) v[$i] = $(i-1)
  if (!("ttfb-p50-ns" in v) || !("ttfb-p99-ns" in v) || v["ttfb-p50-ns"] > 1.01 * v["p50-ns"]) print }')
[ -z "$bad" ] && pass || fail "read lines without a sound ttfb: $bad"
grep -E '^Benchmark(Write|Stat|List|Delete)' "$work/mem.txt" | grep -q ttfb && fail "non-reads report ttfb" || pass
# JSON carries the whole histogram: its counts add up to the run's operations
expect 0 "bench json" -- "$STRATA" bench memory://bench/ --count 1 --benchtime 20ms --sizes 4KiB --ops read,write --json
json_out=$out
jq -e '.runs | length == 2 and all(.[]; (.latency.histogram | map(.[2]) | add) == .iterations
  and .latency.p50_ns <= .latency.p99_9_ns and .latency.p99_9_ns <= .latency.max_ns)' <<<"$out" >/dev/null \
  && pass || fail "bench --json: histogram counts or percentiles wrong: $(head -c 400 <<<"$out")"
expect 0 "bench csv" -- "$STRATA" bench memory://bench/ --count 1 --benchtime 20ms --sizes 4KiB --ops read --csv
contains "csv latency columns" "$out" "p50_ns,p90_ns,p99_ns,p99_9_ns,max_ns,ttfb_p50_ns,ttfb_p99_ns,histogram"
[ "$(tail -1 <<<"$out" | awk -F, '{print NF}')" -ge 18 ] && pass || fail "bench --csv: no latency columns: $out"
# both distributions (every read's, and its first byte's) count every operation once
sums=$(tail -1 <<<"$out" | awk -F, '{ for (c = 18; c <= 19; c++) { gsub(/"/, "", $c); n = split($c, b, " "); s = 0
  for (i = 1; i <= n; i++) { split(b[i], t, "/"); s += t[3] } printf "%d ", s } print $6 }')
read -r lat ttfb iters <<<"$sums"
[ "$lat" = "$iters" ] && [ "$ttfb" = "$iters" ] && pass \
  || fail "bench --csv: histogram counts $lat and ttfb $ttfb, not the $iters operations: $out"
# --duration: each run lasts at least that long (ns/op x iterations), however many
# operations that takes; not with delete or beside --benchtime. ns/op is printed to four
# significant digits, so the product may fall short by up to 0.05 %: allow 0.1 %.
expect 0 "bench duration" -- "$STRATA" bench memory://bench/ --count 2 --duration 300ms --sizes 4KiB --ops read,stat --concurrency 2
lasted=$(grep -E '^Benchmark' <<<"$out" | awk '{print int($3 * $2)}' | sort -n | head -1)
[ "$(grep -cE '^Benchmark' <<<"$out")" = 4 ] && [ "${lasted:-0}" -ge 299700000 ] && pass \
  || fail "bench --duration 300ms: a run lasted ${lasted:-?} ns: $out"
# --timeline: per-interval lines while the run goes; every operation in exactly one interval
"$STRATA" bench memory://bench/ --count 1 --duration 2s --sizes 4KiB --ops read --concurrency 2 \
  --timeline "$work/tl.csv" --interval 250ms >"$work/tl.out" 2>"$work/tl.err" &
pid=$!
sleep 1.2
live=$(($(wc -l <"$work/tl.csv") - 1))
wait "$pid" && pass || fail "bench --timeline: $(cat "$work/tl.err")"
[ "$live" -ge 2 ] && [ "$live" -le 6 ] && pass || fail "bench --timeline: $live intervals after 1.2 s (want 2..6): written live?"
head -1 "$work/tl.csv" | grep -qx 'target,benchmark,run,t_s,interval_s,ops,ops_per_s,mb_per_s,p50_ns,p99_ns' && pass \
  || fail "timeline header: $(head -1 "$work/tl.csv")"
iters=$(awk '/^BenchmarkRead/ {print $2}' "$work/tl.out")
awk -F, -v iters="${iters:-0}" 'NR > 1 { n++; ops += $6; if ($4 <= t) bad = "t_s not increasing"; t = $4
    if ($5 > 0.3) bad = "an interval of " $5 " s"; if ($7 <= 0 || $9 <= 0 || $10 < $9) bad = "line " NR ": " $0 }
  END { if (ops != iters) bad = bad " ops " ops " != iterations " iters; if (n < 7 || n > 10) bad = bad " " n " intervals"
    if (t < 1.9 || t > 2.3) bad = bad " ends at " t " s"; if (bad) { print bad; exit 1 } }' "$work/tl.csv" && pass \
  || fail "timeline: $(cat "$work/tl.csv")"
expect 2 "timeline without duration" -- "$STRATA" bench memory://bench/ --timeline "$work/x.csv"
[ ! -e "$work/x.csv" ] && pass || fail "a refused --timeline made its file"
expect 2 "interval without timeline" -- "$STRATA" bench memory://bench/ --duration 1s --interval 1s
expect 2 "interval too short" -- "$STRATA" bench memory://bench/ --duration 1s --timeline "$work/x.csv" --interval 1ms
# --mix: one pool of workers drawing operations by weight, one result line per operation;
# the shares follow the weights; on file:// every object it made is gone afterwards
mkdir -p "$work/mix"
expect 0 "bench --mix" -- "$STRATA" bench "file://$work/mix" --count 1 --duration 1s --sizes 4KiB \
  --mix read=45,write=15,stat=30,delete=10
names=$(grep -E '^Benchmark' <<<"$out" | awk '{print $1}' | sed -E 's/-[0-9]+$//' | paste -sd' ')
[ "$names" = "BenchmarkMixed/Read/4KiB BenchmarkMixed/Write/4KiB BenchmarkMixed/Stat BenchmarkMixed/Delete/4KiB" ] \
  && pass || fail "bench --mix names: $names"
shares=$(grep -E '^BenchmarkMixed' <<<"$out" | awk '{n[NR] = $2; t += $2} END {
  split("45 15 30 10", w, " "); for (i = 1; i <= 4; i++) if (n[i] / t * 100 < w[i] - 3 || n[i] / t * 100 > w[i] + 3)
    printf "op %d: %.1f %% for weight %d; ", i, n[i] / t * 100, w[i] }')
[ -z "$shares" ] && [ "$(grep -c '^BenchmarkMixed' <<<"$out")" = 4 ] && pass || fail "bench --mix shares: $shares $out"
grep -E '^BenchmarkMixed/Read' <<<"$out" | grep -q 'ttfb-p50-ns' && pass || fail "mixed reads without ttfb"
[ -z "$(ls -A "$work/mix")" ] && pass || fail "bench --mix left: $(ls -A "$work/mix" | head)"
expect 0 "bench --mix, benchtime" -- "$STRATA" bench memory://bench/ --count 1 --benchtime 50ms --sizes 4KiB \
  --mix read=1,write=1 --concurrency 2
[ "$(grep -cE '^BenchmarkMixed/(Read|Write)/4KiB/c=2-' <<<"$out")" = 2 ] && pass || fail "bench --mix with c=2: $out"
expect 2 "mix with list" -- "$STRATA" bench memory://bench/ --mix list=5
expect 2 "mix zero weight" -- "$STRATA" bench memory://bench/ --mix read=0
expect 2 "mix twice" -- "$STRATA" bench memory://bench/ --mix read=1,read=2
expect 2 "mix and ops" -- "$STRATA" bench memory://bench/ --mix read=1 --ops write
expect 2 "duration and delete" -- "$STRATA" bench memory://bench/ --duration 1s --ops delete
contains "duration and delete: why" "$err" "cannot time deletes"
expect 2 "duration and benchtime" -- "$STRATA" bench memory://bench/ --duration 1s --benchtime 1s
# the report flags what its numbers should be read with
contains "memory is in-process" "$(cat "$work/mem.txt")" "# flag in-process: memory://"
jq -e '.flags | map(.flag) | index("in-process") != null' <<<"$json_out" >/dev/null && pass \
  || fail "bench --json: no in-process flag: $(jq -c .flags <<<"$json_out")"
expect 0 "benchstat reads it" -- "$STRATA" benchstat "$work/mem.txt"
contains "benchstat table" "$out" "sec/op"
contains "benchstat rows" "$out" "Read/64KiB"
[ -n "$(ls "$work/data/strata/bench/" 2>/dev/null)" ] && pass || fail "no history file in $work/data/strata/bench"

# file: the same, and the scratch directory is gone afterwards
mkdir -p "$work/files"
expect 0 "bench file" -- "$STRATA" bench "file://$work/files" "${quick[@]}"
printf '%s\n' "$out" >"$work/file.txt"
expect 0 "benchstat file" -- "$STRATA" benchstat "$work/file.txt" && contains "file rows" "$out" "Write/4KiB"
for op in Read Write; do
  a=$(unit_of "$work/file.txt" "^Benchmark$op/" allocs/op)
  [ "${a:-99}" -le 4 ] && pass || fail "file ${op}s allocate $a times per op (want <= 4)"
done
[ -z "$(ls -A "$work/files")" ] && pass || fail "bench left: $(ls -A "$work/files")"
contains "file reads may be the page cache's" "$(cat "$work/file.txt")" "# flag page-cache Read/4KiB"


# two files compared: a "vs base" column, the JSON form, the geomean row
expect 0 "benchstat A B" -- "$STRATA" benchstat "$work/mem.txt" "$work/file.txt"
contains "comparison" "$out" "vs base"
contains "benchstat compares p99 (as Go benchstat: -ns becomes -sec)" "$out" "p99-sec"
contains "geomean" "$out" "geomean"
expect 0 "benchstat json" -- "$STRATA" benchstat --format json "$work/mem.txt" "$work/file.txt"
jq -e '.. | objects | select(.name? == "geomean")' <<<"$out" >/dev/null && pass || fail "json has no geomean row"
expect 0 "benchstat csv" -- "$STRATA" benchstat --format csv "$work/mem.txt" "$work/file.txt"

# --vs: both targets, run by run in turn, and the comparison printed
expect 0 "bench --vs" -- "$STRATA" bench memory://a/ --vs "file://$work/files" --count 2 --benchtime 20ms --sizes 4KiB
contains "--vs compares" "$out" "vs base"
[ -z "$(ls -A "$work/files")" ] && pass || fail "bench --vs left: $(ls -A "$work/files")"

# Ctrl-C: stops, removes what it wrote, exit 130
mkdir -p "$work/int"
"$STRATA" bench "file://$work/int" --benchtime 30s --count 1 --sizes 4KiB >"$work/int.out" 2>"$work/int.err" &
pid=$!
# Interrupted once it has written something (else "removes what it wrote" proves nothing).
for ((i = 0; i < 400; i++)); do [ -n "$(ls -A "$work/int")" ] && break; sleep 0.05; done
[ -n "$(ls -A "$work/int")" ] && pass || fail "bench wrote nothing in 20 s"
kill -INT "$pid"
wait "$pid"; rc=$?
[ "$rc" = 130 ] && pass || fail "bench after Ctrl-C: exit $rc (wanted 130): $(cat "$work/int.err")"
[ -z "$(ls -A "$work/int")" ] && pass || fail "bench after Ctrl-C left: $(ls -A "$work/int")"

# bad input
expect 2 "unknown op" -- "$STRATA" bench memory://x/ --ops frobnicate && contains "unknown op" "$err" "--ops"
expect 2 "bad size" -- "$STRATA" bench memory://x/ --sizes 0
expect 2 "bad benchtime" -- "$STRATA" bench memory://x/ --benchtime soon
# One duration parser for the command line and the window (core/io/duration_text).
for d in 0s -1s 1.5x 2h ms 61m 1e400s; do
  expect 2 "benchtime $d refused" -- "$STRATA" bench memory://x/ --benchtime "$d"
done
expect 0 "benchtime in microseconds" -- "$STRATA" bench memory://x/ --ops stat --sizes 1KiB --benchtime 800us --count 1
expect 2 "bad concurrency" -- "$STRATA" bench memory://x/ --concurrency 0
expect 1 "missing directory" -- "$STRATA" bench "$work/missing/x" && contains "missing directory" "$err" "does not exist"
[ ! -e "$work/missing" ] && pass || fail "bench created the missing directory"
expect 1 "benchstat missing file" -- "$STRATA" benchstat "$work/missing.txt"
expect 2 "benchstat bad alpha" -- "$STRATA" benchstat --alpha 2 "$work/mem.txt"
printf 'PASS\nok  \tpkg\t0.1s\nnot a benchmark\n' >"$work/noise.txt"
expect 0 "benchstat on noise" -- "$STRATA" benchstat "$work/noise.txt"
contains "noise reported" "$err" "no benchmark results"

echo "$checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
