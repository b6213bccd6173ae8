#!/usr/bin/env bash
# Strata's NBD backend against nbdcopy and qemu-img convert, all reading the same nbdkit
# servers on unix sockets:
#   full    2 GiB, every byte written (random)        -> local file, null
#   empty   6 GiB, nothing written (one hole)         -> local file, null, .zst
#   sparse  4 GiB, ~25 % data in ~1 000 scattered runs -> local file, null, .zst
# Goals: strata's copy (first Connect to last Disconnect in nbdkit's log filter) <= 1.05x
# nbdcopy's on every line, its whole process's wall time too on the images with data (the
# empty image's copy takes ~10 ms, mostly process start-up: there 5 ms more than nbdcopy
# counts as equal), its CPU time <= nbdcopy's;
# the .zst of the mostly empty image <= 0.10x the wall time of `nbdcopy URI - | zstd -T0`
# (the issue measured the pipe on the empty 6 GiB image); the sparse image's .zst no slower
# than the pipe (its data must be read and compressed: reading it alone, nbdcopy to null:,
# takes about 0.1x the pipe, and the table notes that); outputs identical (compared byte for
# byte with a reference by sparse_cmp.c, a cmp that skips the holes both files have) and as
# sparse (du).
# Prints every run, then per line the median wall time, the mean CPU time of the tool's
# whole process tree, the median CPU the server spent for it, the ratios strata/nbdcopy and
# whether each goal is met.
#
# Usage: tests/perf/nbd_vs_nbdcopy.sh [RUNS=3]
#        tests/perf/nbd_vs_nbdcopy.sh --back-to-back [PAIRS=5]
#   --back-to-back: as a user copies one image after another: a 1 GiB memory export (random
#   data) and a 2 GiB sparse-random export (seed=42 percent=25 runlength=1048576, served
#   directly) copied to a file by strata and nbdcopy in PAIRS alternating pairs, no cache
#   dropped between runs (one untimed pair first). Each run is judged twice: the copy itself
#   (first Connect to last Disconnect in nbdkit's log filter) and the whole process (wall,
#   user and system time from /usr/bin/time). Goals: strata's median wall <= 1.05x
#   nbdcopy's on both measures, its mean system time <= nbdcopy's.
# Env:   SHORT_RUNS (101: runs of the empty image to a file and to null:, ~10 ms each),
#        PERF_DIR (/var/tmp), STRATA (the release binary), STRATA_SKIP_BUILD=1,
#        LINES (which lines, default all: "full-file full-null empty-file empty-null
#        empty-zst sparse-file sparse-null sparse-zst"), FULL_MIB (2048), EMPTY_MIB (6144),
#        SPARSE_MIB (4096), SPARSE_ARGS (sparse-random plugin arguments, default
#        "seed=42 percent=25 runlength=1048576"), QEMU_IMG_OPTS ("-W -m 16 -t unsafe").
# Exit status 1 when a tool failed or an output differs (goals missed do not count).
#
# The images live in nbdkit's memory plugin, one server per image, so every tool reads the
# same server doing the same cheap work (a memcpy per read; block status from its sparse
# array: written pages are data, the rest hole+zero). The sparse image is filled once from
# nbdkit-sparse-random-plugin (deterministic with seed=; each block of a data run is one
# random byte repeated, so its data compresses well: random-content=true in SPARSE_ARGS
# makes it incompressible), the full one from /dev/urandom.
#
# Commands (DEST: a file under the work directory, removed before each run):
#   strata   strata cp URI DEST | strata cp URI null: | strata cp URI DEST.zst
#   nbdcopy  nbdcopy URI DEST   | nbdcopy URI null:   | nbdcopy URI - | zstd -T0 -q -o DEST.zst
#            (defaults: 4 connections, 64 requests in flight each, holes skipped by block
#            status and runs of zeroes >= 4 KiB detected: the output file is sparse)
#   qemu-img qemu-img convert QEMU_IMG_OPTS -f raw -O raw URI DEST
#            qemu-img convert QEMU_IMG_OPTS -n -f raw URI --target-image-opts driver=null-co,size=N
#            (-W -m 16: out of order, 16 requests in flight, its most parallel; -t unsafe: no
#            fsync at the end, like nbdcopy without --flush; qemu-img cannot write a pipe)
set -euo pipefail
source "$(dirname "$0")/lib.sh"
back_to_back=0
if [ "${1:-}" = --back-to-back ]; then back_to_back=1; shift; fi
runs=${1:-$([ "$back_to_back" = 1 ] && echo 5 || echo 3)}
# A copy of the empty image lasts about 10 ms, mostly process start-up: its lines take more
# runs, or the machine's noise decides the 1.05x.
short_runs=${SHORT_RUNS:-101}
full_mib=${FULL_MIB:-2048}
empty_mib=${EMPTY_MIB:-6144}
sparse_mib=${SPARSE_MIB:-4096}
sparse_args=${SPARSE_ARGS:-seed=42 percent=25 runlength=1048576}
read -ra qemu_opts <<<"${QEMU_IMG_OPTS--W -m 16 -t unsafe}"
read -ra lines <<<"${LINES:-full-file full-null empty-file empty-null empty-zst sparse-file sparse-null sparse-zst}"
die() { echo "nbd_vs_nbdcopy.sh: $*" >&2; exit 1; }
[[ $runs =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive number, not '$runs'"
[[ $short_runs =~ ^[1-9][0-9]*$ ]] || die "SHORT_RUNS must be a positive number, not '$short_runs'"
for l in "${lines[@]}"; do
  case "$l" in full-file|full-null|full-zst|empty-file|empty-null|empty-zst|sparse-file|sparse-null|sparse-zst) ;;
    *) die "unknown line '$l' in LINES: (full|empty|sparse)-(file|null|zst)" ;; esac
done

[ -n "${STRATA_STATE_DIR:-}" ] && own_state=0 || own_state=1
perf_setup
for t in nbdkit nbdcopy nbdinfo qemu-img zstd; do
  command -v "$t" >/dev/null || die "$t is missing: scripts/bootstrap perf installs it"
done
servers=$perf_root/tests/servers/nbdkit.sh
work=$(mktemp -d "${PERF_DIR:-/var/tmp}/strata-nbdperf-XXXXXX")
cleanup() {
  "$servers" stopall "$work/srv" || true
  rm -rf "$work"
  if [ "$own_state" = 1 ]; then
    case "$STRATA_STATE_DIR" in /tmp/strata-perf-state-*) rm -rf "$STRATA_STATE_DIR" ;; esac
  fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- back-to-back pairs (--back-to-back)
# log_span LOG FROM: seconds from the first Connect to the last Disconnect in LOG's lines
# after line FROM (nbdkit's log filter: "DATE TIME connection=N Connect ...").
log_span() {
  tail -n +"$(( $2 + 1 ))" "$1" | awk '
    / Connect / || / Disconnect / {
      split($2, t, ":"); s = t[1] * 3600 + t[2] * 60 + t[3]
      if ($4 == "Connect" && first == "") first = s
      if ($4 == "Disconnect") last = s
    }
    END { if (first == "" || last == "") print "-"; else printf "%.4f\n", last - first }'
}
# log_span_us LOG FROM: the same in microseconds ("" when the log shows no connection).
log_span_us() { log_span "$1" "$2" | awk '$1 != "-" {printf "%.0f\n", $1 * 1e6}'; }
# pair_run IMG TOOL PAIR: one timed copy of IMG to a file; appends "wall span user sys".
pair_run() {
  local img=$1 tool=$2 i=$3 o=$work/out.img from rc=0
  rm -f "$o"
  from=$(wc -l <"$work/b2b-$img.log")
  case "$tool" in
    strata) /usr/bin/time -f '%e %U %S' -o "$work/time" "$STRATA" cp "${uri[$img]}" "$o" >/dev/null 2>"$work/err" || rc=$? ;;
    nbdcopy) /usr/bin/time -f '%e %U %S' -o "$work/time" nbdcopy "${uri[$img]}" "$o" >/dev/null 2>"$work/err" || rc=$? ;;
  esac
  if [ "$rc" != 0 ]; then
    echo "$img pair $i $tool FAILED (exit $rc): $(tail -1 "$work/err")"; failures=$((failures + 1)); return
  fi
  "$work/sparse_cmp" "$o" "$work/ref-$img.img" >/dev/null || { echo "$img pair $i $tool: output DIFFERS"; failures=$((failures + 1)); }
  local wall user sys span
  read -r wall user sys < <(tail -1 "$work/time")
  span=$(log_span "$work/b2b-$img.log" "$from")
  printf '%-7s pair %d %-8s wall %6.3f s  copy (connect..disconnect) %7s s  user %5.2f s  sys %5.2f s\n' \
    "$img" "$i" "$tool" "$wall" "$span" "$user" "$sys"
  [ "$i" = 0 ] || echo "$wall $span $user $sys" >>"$work/b2b-$img-$tool"
  rm -f "$o"
}
if [ "$back_to_back" = 1 ]; then
  cc -O2 -o "$work/sparse_cmp" "$perf_root/tests/perf/sparse_cmp.c" || die "cannot build tests/perf/sparse_cmp.c (cc)"
  declare -A uri
  failures=0
  echo "strata:   $STRATA ($("$STRATA" --version 2>&1 | head -1 || true)); $(nbdcopy --version | head -1), $(nbdkit --version)"
  echo "back to back, $runs pairs, no cache dropped; work dir $work ($(df -T "$work" | awk 'NR==2 {print $2}'))"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
  uri[full]=$("$servers" start "$work/srv" b2b-full --filter=log memory 1G "logfile=$work/b2b-full.log" 2>/dev/null) \
    || die "cannot start the 1 GiB memory server"
  head -c 1G /dev/urandom | nbdcopy - "${uri[full]}" || die "cannot fill the 1 GiB image"
  uri[sparse]=$("$servers" start "$work/srv" b2b-sparse --filter=log sparse-random 2G seed=42 percent=25 \
    runlength=1048576 "logfile=$work/b2b-sparse.log" 2>/dev/null) || die "cannot start the sparse-random server"
  for img in full sparse; do
    nbdcopy "${uri[$img]}" "$work/ref-$img.img" || die "nbdcopy could not make the $img reference"
  done
  for img in full sparse; do
    for ((i = 0; i <= runs; i++)); do # pair 0: not counted
      if (( i % 2 )); then order="strata nbdcopy"; else order="nbdcopy strata"; fi
      for tool in $order; do pair_run "$img" "$tool" "$i"; done
    done
  done
  echo
  echo "== medians of $runs pairs (seconds; user and sys: means)"
  printf '%-7s %-8s %8s %8s %7s %7s   %-22s\n' image tool wall copy user sys "strata/nbdcopy wall, copy, sys"
  verdicts=""
  for img in full sparse; do
    for tool in nbdcopy strata; do
      f=$work/b2b-$img-$tool
      [ -s "$f" ] || { printf '%-7s %-8s FAILED\n' "$img" "$tool"; continue; }
      w=$(cut -d' ' -f1 "$f" | median); c=$(cut -d' ' -f2 "$f" | grep -v '^-$' | median)
      u=$(awk '{s += $3} END {printf "%.3f", s / NR}' "$f"); y=$(awk '{s += $4} END {printf "%.3f", s / NR}' "$f")
      declare "b2b_${img}_${tool}=$w $c $y"
      extra=""
      if [ "$tool" = strata ] && [ -s "$work/b2b-$img-nbdcopy" ]; then
        vn="b2b_${img}_nbdcopy"; read -r nw nc ny <<<"${!vn}"
        rw=$(ratio "$w" "$nw"); rc=$(ratio "$c" "$nc"); ry=$(ratio "$y" "$ny")
        extra="$rw  $rc  $ry"
        v="met"
        [ "$(echo "$w <= $nw * 1.05" | bc -l)" = 1 ] || v="MISSED (wall ${rw}x)"
        [ "$(echo "$c <= $nc * 1.05" | bc -l)" = 1 ] || v="MISSED (copy ${rc}x)"
        [ "$(echo "$y <= $ny" | bc -l)" = 1 ] || v="MISSED (sys ${ry}x)"
        verdicts+=$(printf '%-7s %s' "$img" "$v")$'\n'
      fi
      printf '%-7s %-8s %8.3f %8.3f %7.3f %7.3f   %s\n' "$img" "$tool" "$w" "$c" "$u" "$y" "$extra"
    done
  done
  echo
  echo "== goals: strata's wall and copy <= 1.05x nbdcopy's, its system time <= nbdcopy's"
  printf '%s' "$verdicts"
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
  (( failures == 0 )) || { echo "$failures failed run(s) or differing output(s)"; exit 1; }
  exit 0
fi
# cmp of a 6 GiB empty image reads 12 GiB of zeroes into the page cache after every run (7 s
# of CPU), and the next run pays for the kernel freeing them: the checks compare data only.
cc -O2 -o "$work/sparse_cmp" "$perf_root/tests/perf/sparse_cmp.c" || die "cannot build tests/perf/sparse_cmp.c (cc)"

echo "strata:   $STRATA ($("$STRATA" --version 2>&1 | head -1 || true))"
echo "nbdcopy:  $(nbdcopy --version | head -1), $(nbdkit --version), $(qemu-img --version | head -1), $(zstd --version)"
echo "commands: strata cp URI OUT | strata cp URI null: | strata cp URI OUT.zst"
echo "          nbdcopy URI OUT | nbdcopy URI null: | nbdcopy URI - | zstd -T0 -q -o OUT.zst"
echo "          qemu-img convert ${qemu_opts[*]} -f raw -O raw URI OUT | ... -n -f raw URI --target-image-opts driver=null-co,size=N"
echo "work dir: $work ($(df -T "$work" | awk 'NR==2 {print $2}')), page cache: $PERF_CACHE, $runs runs each"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

# --- the images: one nbdkit memory server each
declare -A uri size pid
start_server() { # NAME PLUGIN-ARGS...: prints nothing, sets uri[NAME] and pid[NAME]
  local name=$1; shift
  uri[$name]=$("$servers" start "$work/srv" "$name" "$@" 2>"$work/srv-$name.start") \
    || { cat "$work/srv-$name.start" >&2; die "cannot start the $name server"; }
  pid[$name]=$(cat "$work/srv/$name.pid")
}
t0=$EPOCHREALTIME
# The log filter (outermost) gives each copy's span: first Connect to last Disconnect.
start_server full --filter=log memory "${full_mib}M" "logfile=$work/full.nbdlog"
head -c "$((full_mib << 20))" /dev/urandom | nbdcopy - "${uri[full]}" || die "cannot fill the full image"
start_server empty --filter=log memory "${empty_mib}M" "logfile=$work/empty.nbdlog"
start_server sparse --filter=log memory "${sparse_mib}M" "logfile=$work/sparse.nbdlog"
read -ra sr_args <<<"$sparse_args"
start_server sparse-src sparse-random "${sparse_mib}M" "${sr_args[@]}"
nbdcopy "${uri[sparse-src]}" "${uri[sparse]}" || die "cannot fill the sparse image"
"$servers" stop "$work/srv" sparse-src
for img in full empty sparse; do
  size[$img]=$(nbdinfo --size "${uri[$img]}")
  map=$(nbdinfo --map --totals "${uri[$img]}" | awk '$3 == 0 {d = $2} END {print (d == "" ? "0.0%" : d)}')
  runs_data=$(nbdinfo --map "${uri[$img]}" | awk '$3 == 0' | wc -l)
  printf 'image %-6s %5d MiB, data by block status: %6s in %4d extents  (%s)\n' \
    "$img" "$((size[$img] >> 20))" "$map" "$runs_data" "${uri[$img]}"
done
# References, untimed: nbdcopy's copies, checked against the servers by qemu-img compare (a
# second reader).
for img in full empty sparse; do
  nbdcopy "${uri[$img]}" "$work/ref-$img.img" || die "nbdcopy could not make the $img reference"
  qemu-img compare -q -f raw -F raw "$work/ref-$img.img" "${uri[$img]}" \
    || die "the $img reference (nbdcopy) differs from its server (qemu-img compare)"
done
sync
printf 'images and references ready in %.1f s (not timed); references: %s\n' \
  "$(echo "$EPOCHREALTIME - $t0" | bc -l)" \
  "$(for img in full empty sparse; do printf '%s %s KiB  ' "$img" "$(du -k "$work/ref-$img.img" | cut -f1)"; done)"

# --- the commands: TOOL-DEST URI OUT SIZE
strata-file() { "$STRATA" cp "$1" "$2"; }
strata-null() { "$STRATA" cp "$1" null:; }
strata-zst()  { "$STRATA" cp "$1" "$2.zst"; }
nbdcopy-file() { nbdcopy "$1" "$2"; }
nbdcopy-null() { nbdcopy "$1" null:; }
nbdcopy-zst()  { nbdcopy "$1" - | zstd -T0 -q -f -o "$2.zst"; }
qemu-img-file() { qemu-img convert "${qemu_opts[@]}" -f raw -O raw "$1" "$2"; }
qemu-img-null() { qemu-img convert "${qemu_opts[@]}" -n -f raw "$1" --target-image-opts "driver=null-co,size=$3"; }
tools_of() { case "$1" in *-zst) echo strata nbdcopy ;; *) echo strata nbdcopy qemu-img ;; esac; }
label() { [ "$1-$2" = nbdcopy-zst ] && echo "nbdcopy|zstd" || echo "$1"; }

# cpu_children: sets REPLY to the CPU milliseconds (user + sys) of every child this shell
# has waited for so far, their own waited-for children included: the whole process tree of
# a command, both sides of a pipe. Runs in this shell (a $(...) would see its own children).
# No $(...) in here: a subshell's CPU would count against the next command measured.
cpu_children() {
  local t m x total=0
  times >"$work/times"
  { read -r _ _; read -r -a t; } <"$work/times" # children: "1m2.345s 0m0.678s"
  for x in "${t[@]}"; do
    m=${x%%m*} x=${x#*m} x=${x%s}
    total=$(( total + 10#$m * 60000 + 10#${x%.*} * 1000 + 10#${x#*.} ))
  done
  REPLY=$total
}
# srv_ticks NAME: sets REPLY to the server's CPU so far, in clock ticks.
srv_ticks() {
  local -a st
  read -ra st <"/proc/${pid[$1]}/stat" || { REPLY=0; return; }
  REPLY=$(( st[13] + st[14] ))
}
hz=$(getconf CLK_TCK)
# Every tool starts from the same state: the page cache dropped, then each program (and the
# libraries it loads) read back in by a --version, so no tool pays for the disk and none
# finds another's leftovers.
warm() {
  drop_caches >/dev/null 2>&1 || true
  "$STRATA" --version >/dev/null; nbdcopy --version >/dev/null; qemu-img --version >/dev/null; zstd --version >/dev/null
}

declare -A wall copy cpu srv out_k failed checks_bad
failures=0
# run_one LINE TOOL RUN: one timed run, then its checks; records or prints the failure.
run_one() {
  local line=$1 tool=$2 run=$3 img=${1%-*} dest=${1#*-}
  local key=$line,$tool o=$work/out/$line-$tool
  local c0 c1 s0 s1 w0 w1 rc=0 msg="" from
  rm -f "$o" "$o.zst"
  warm
  from=$(wc -l <"$work/$img.nbdlog")
  srv_ticks "$img"; s0=$REPLY
  cpu_children; c0=$REPLY
  w0=${EPOCHREALTIME/[.,]/}
  "$tool-$dest" "${uri[$img]}" "$o" "${size[$img]}" >/dev/null 2>"$work/err" || rc=$?
  w1=${EPOCHREALTIME/[.,]/}
  cpu_children; c1=$REPLY
  srv_ticks "$img"; s1=$REPLY
  if [ "$rc" != 0 ]; then
    msg=$(sed '/^[[:space:]]*$/d' "$work/err" | tail -1 | cut -c1-120)
    failed[$key]="exit $rc${msg:+: $msg}"
    printf '%-12s run %d %-13s FAILED (%s)\n' "$line" "$run" "$(label "$tool" "$dest")" "${failed[$key]}"
    failures=$((failures + 1))
    rm -f "$o" "$o.zst"
    return
  fi
  # Wall in microseconds; CPU in the milliseconds bash's `times` gives (see avg below).
  local us_w=$(( w1 - w0 )) ms_c=$(( c1 - c0 )) ms_s=$(( (s1 - s0) * 1000 / hz ))
  wall[$key]+="$us_w "; cpu[$key]+="$ms_c "; srv[$key]+="$ms_s "
  local us_copy
  us_copy=$(log_span_us "$work/$img.nbdlog" "$from")
  copy[$key]+="${us_copy:-$us_w} "
  # Checks, untimed: the same bytes as the reference; how much disk the output takes.
  local check=identical kib=""
  case "$dest" in
    file)
      [ -f "$o" ] || { check="no output file"; }
      [ "$check" = identical ] && { "$work/sparse_cmp" "$o" "$work/ref-$img.img" >/dev/null || check=DIFFERS; }
      [ -f "$o" ] && kib=$(du -k "$o" | cut -f1) ;;
    zst)
      if [ ! -f "$o.zst" ]; then check="no output file"
      else
        # Decompressed to a file, zero blocks as holes (zstd --sparse), then compared.
        { zstd -d -q -f --sparse -o "$o" "$o.zst" && "$work/sparse_cmp" "$o" "$work/ref-$img.img" >/dev/null; } \
          || check=DIFFERS
        kib=$(du -k "$o.zst" | cut -f1)
      fi ;;
    null) check="-" ;;
  esac
  [ -n "$kib" ] && out_k[$key]=$kib
  if [ "$check" != identical ] && [ "$check" != - ]; then
    checks_bad[$key]=$check; failures=$((failures + 1))
  fi
  printf '%-12s run %d %-13s wall %8.3f s  copy %8.3f s  cpu %7.3f s  server cpu %6.2f s  %s%s\n' \
    "$line" "$run" "$(label "$tool" "$dest")" "$(msec "$(( us_w / 1000 ))")" "$(msec "$(( ${us_copy:-$us_w} / 1000 ))")" \
    "$(msec "$ms_c")" "$(msec "$ms_s")" \
    "$check" "${kib:+, du $kib KiB}"
  rm -f "$o" "$o.zst"
}
msec() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

# warm_up LINE TOOL...: one untimed run of each tool on the line. The first run after another
# line pays for what that line left the machine to do: here, after the 6 GiB zstd pipe, the
# next 1 GiB copy took 4 s of CPU instead of 0.7 s whichever tool ran first (the VM gets its
# freed memory back page by page). Without this round that tool is always strata.
warm_up() {
  local line=$1 img=${1%-*} dest=${1#*-} tool o t0=$EPOCHREALTIME; shift
  for tool in "$@"; do
    o=$work/out/$line-$tool
    rm -f "$o" "$o.zst"
    warm
    "$tool-$dest" "${uri[$img]}" "$o" "${size[$img]}" >/dev/null 2>&1 || true # a failure shows in the timed runs
    rm -f "$o" "$o.zst"
  done
  printf '%-12s warm-up round, not counted (%s): %.1f s\n' "$line" "$*" "$(echo "$EPOCHREALTIME - $t0" | bc -l)"
}

mkdir -p "$work/out"
for line in "${lines[@]}"; do
  read -ra tools <<<"$(tools_of "$line")"
  n=${#tools[@]}
  n_runs=$runs
  case "$line" in empty-file|empty-null) n_runs=$short_runs ;; esac
  warm_up "$line" "${tools[@]}"
  for ((i = 1; i <= n_runs; i++)); do
    # The order rotates each round: no tool always runs first (or right after another's).
    order=("${tools[@]:$(( (i - 1) % n ))}" "${tools[@]:0:$(( (i - 1) % n ))}")
    for tool in "${order[@]}"; do
      [ -n "${failed[$line,$tool]:-}" ] && continue # failed once: not again on this line
      run_one "$line" "$tool" "$i"
    done
  done
done

# --- table
# shellcheck disable=SC2086 # $1 is a list of numbers
med() { printf '%s\n' $1 | median; } # of milliseconds
fmt() { [ -z "$1" ] && echo - || printf '%.3f' "$(echo "$1 / 1000" | bc -l)"; }       # ms -> s
fmt_us() { [ -z "$1" ] && echo - || printf '%.4f' "$(echo "$1 / 1000000" | bc -l)"; } # us -> s
# CPU is a mean, not a median: `times` counts whole milliseconds, too coarse for a median of
# 6 ms runs, while the sum over the runs (hence the mean) is exact to a millisecond.
# shellcheck disable=SC2086 # $1 is a list of numbers
avg() { printf '%s\n' $1 | awk '{s += $1} END {if (NR) printf "%.3f\n", s / NR}'; }
rat() { # A B: A/B with two decimals, n/a when B is 0
  if [ -z "$1" ] || [ -z "$2" ]; then echo -; elif [ "$2" = 0 ]; then echo n/a; else ratio "$1" "$2"; fi
}
le() { [ "$(echo "$1 <= $2" | bc -l)" = 1 ]; } # A <= B
echo
echo "== medians over $runs runs, $short_runs for the empty image to a file or null: (seconds; cpu: mean of the tool's"
echo "   process tree, user + sys; server cpu: nbdkit's; copy: first Connect to last Disconnect in nbdkit's log)"
printf '%-12s %-13s %9s %9s %9s %10s %12s  %-10s %11s %11s %10s\n' line tool wall copy cpu "server cpu" "out KiB" check \
  "wall/nbdc" "copy/nbdc" "cpu/nbdc"
declare -A verdict
for line in "${lines[@]}"; do
  read -ra tools <<<"$(tools_of "$line")"
  dest=${line#*-} img=${line%-*}
  nw=""; nc=""; ny=""
  [ -z "${failed[$line,nbdcopy]:-}" ] \
    && { nw=$(med "${wall[$line,nbdcopy]}"); nc=$(avg "${cpu[$line,nbdcopy]}"); ny=$(med "${copy[$line,nbdcopy]}"); }
  for tool in "${tools[@]}"; do
    key=$line,$tool
    if [ -n "${failed[$key]:-}" ]; then
      printf '%-12s %-13s FAILED (%s)\n' "$line" "$(label "$tool" "$dest")" "${failed[$key]}"
      continue
    fi
    w=$(med "${wall[$key]}"); y=$(med "${copy[$key]}"); c=$(avg "${cpu[$key]}"); s=$(med "${srv[$key]}")
    rw=-; ry=-; rc=-
    [ "$tool" = nbdcopy ] || { rw=$(rat "$w" "$nw"); ry=$(rat "$y" "$ny"); rc=$(rat "$c" "$nc"); }
    printf '%-12s %-13s %9s %9s %9s %10s %12s  %-10s %11s %11s %10s\n' "$line" "$(label "$tool" "$dest")" \
      "$(fmt_us "$w")" "$(fmt_us "$y")" "$(fmt "$c")" "$(fmt "$s")" "${out_k[$key]:--}" \
      "${checks_bad[$key]:-$( [ "$dest" = null ] && echo - || echo identical)}" "$rw" "$ry" "$rc"
  done
  # Goals, for strata against nbdcopy on this line.
  note=""
  if [ -n "$nw" ]; then
    le "$nw" 100000 && note+="  (nbdcopy takes $(fmt_us "$nw") s: start-up costs dominate)"
    # The floor of a .zst: reading the image's data at all, as nbdcopy to null: does.
    if [ "$dest" = zst ] && [ -n "${wall[$img-null,nbdcopy]:-}" ]; then
      floor=$(med "${wall[$img-null,nbdcopy]}")
      le "$floor" "$(echo "$nw * 0.10" | bc -l)" \
        || note+="  (0.10x is out of reach here: nbdcopy's mere read of $img to null: takes $(rat "$floor" "$nw")x the pipe)"
    fi
  fi
  if [ -n "${failed[$line,strata]:-}" ]; then verdict[$line]="MISSED: strata FAILED$note"; continue; fi
  if [ -z "$nw" ]; then verdict[$line]="MISSED: nbdcopy FAILED, nothing to compare with"; continue; fi
  sw=$(med "${wall[$line,strata]}"); sc=$(avg "${cpu[$line,strata]}")
  v=""
  if [ "$dest" = zst ] && [ "$img" = empty ]; then
    # The issue's goal: the mostly empty image compresses >= 10x faster than through a pipe.
    le "$sw" "$(echo "$nw * 0.10" | bc -l)" || v+=" wall $(rat "$sw" "$nw")x the pipe > 0.10x;"
  elif [ "$dest" = zst ]; then
    le "$sw" "$nw" || v+=" wall $(rat "$sw" "$nw")x the pipe > 1.00x;"
  else
    # The copy itself (connect to disconnect) on every line; the whole process too where
    # there is data to copy (not a 10 ms empty image, where process start-up is most of it).
    # The empty image's copy lasts a few ms: there 5 ms more than nbdcopy is no difference
    # a user can feel (issue 24 retired the goals that asked for such milliseconds).
    sy=$(med "${copy[$line,strata]}") limit=$(echo "$ny * 1.05" | bc -l)
    [ "$img" = empty ] && limit=$(echo "if ($ny + 5000 > $limit) $ny + 5000 else $limit" | bc -l)
    le "$sy" "$limit" || v+=" copy $(rat "$sy" "$ny")x > 1.05x;"
    if [ "$img" != empty ]; then
      le "$sw" "$(echo "$nw * 1.05" | bc -l)" || v+=" wall $(rat "$sw" "$nw")x > 1.05x;"
    fi
  fi
  peer="nbdcopy's"; [ "$dest" = zst ] && peer="the pipe's"
  climit=$nc; [ "$img" = empty ] && climit=$(echo "$nc + 5" | bc -l) # ms: as above
  le "$sc" "$climit" || v+=" cpu $(fmt "$sc") s > $peer $(fmt "$nc") s;"
  [ -z "${checks_bad[$line,strata]:-}" ] || v+=" output ${checks_bad[$line,strata]};"
  if [ "$dest" != null ]; then
    sk=${out_k[$line,strata]:-0} nk=${out_k[$line,nbdcopy]:-0}
    # "As sparse": at most 1 MiB or 1 % more disk than nbdcopy's output.
    slack=$(( nk / 100 > 1024 ? nk / 100 : 1024 ))
    (( sk <= nk + slack )) || v+=" du $sk KiB > nbdcopy's $nk KiB + $slack KiB;"
  fi
  if [ -z "$v" ]; then verdict[$line]="met$note"; else verdict[$line]="MISSED:${v%;}$note"; fi
done
echo
echo "== goals (strata vs nbdcopy): the copy (connect..disconnect) <= 1.05x, and the whole process's wall for images"
echo "   with data (the empty image: copy and cpu within 5 ms of nbdcopy's count as met); cpu <= 1.00x, the empty"
echo "   image's .zst <= 0.10x the pipe's wall"
echo "   (the sparse one's <= 1.00x),"
echo "   outputs identical to the reference, du <= nbdcopy's + max(1 MiB, 1 %)"
for line in "${lines[@]}"; do printf '%-12s %s\n' "$line" "${verdict[$line]}"; done
echo
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
if (( failures > 0 )); then
  echo "$failures failed run(s) or differing output(s) (see above)"
  exit 1
fi
