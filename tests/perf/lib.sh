# Shared by the perf scripts: timing, medians, cache dropping, the release binary.
perf_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

perf_setup() {
  "$perf_root/scripts/bootstrap" perf >/dev/null
  STRATA=${STRATA:-$perf_root/build/release/app/strata}
  if [ -z "${STRATA_SKIP_BUILD:-}" ]; then
    cmake --preset release -S "$perf_root" >/dev/null && cmake --build --preset release >/dev/null
  fi
  # Peers must never send traffic anywhere; rclone 1.60 also fails with AWS_CA_BUNDLE set.
  unset AWS_CA_BUNDLE
  export STRATA_STATE_DIR=${STRATA_STATE_DIR:-$(mktemp -d /tmp/strata-perf-state-XXXXXX)}
  if sync && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
    PERF_CACHE="cold (page cache dropped before each run)"; PERF_DROP=1
  else
    PERF_CACHE="warm (cannot drop the page cache here)"; PERF_DROP=0
  fi
}

# Drops the page cache, then loads each tool once: the runs measure cold data, not how
# long a cold disk takes to page in Qt's libraries (a constant ~80 ms for strata).
drop_caches() {
  sync
  [ "$PERF_DROP" = 1 ] && echo 3 >/proc/sys/vm/drop_caches
  "$STRATA" --version >/dev/null; cp --version >/dev/null; rclone version >/dev/null 2>&1 || true
}

# time_cmd CMD...: seconds (wall) of one run, to stdout; the command's output is discarded.
time_cmd() {
  local start end errors
  errors=$(mktemp)
  start=$(date +%s.%N)
  "$@" >/dev/null 2>"$errors" || {
    echo "command failed: $*" >&2
    grep -v '^[[:space:]]*$' "$errors" | tail -n 2 | sed 's/^/  /' >&2
    rm -f "$errors"
    return 1
  }
  rm -f "$errors"
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

# peak_rss_kib CMD...: peak resident memory of one run, in KiB.
peak_rss_kib() {
  /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
}

# seconds S [UNIT]: S with three decimals and UNIT, or S as it is ("failed").
seconds() { if [[ $1 =~ ^[0-9.]+$ ]]; then printf '%.3f%s' "$1" "${2:-}"; else printf '%s' "$1"; fi; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }

# loopback_only LOG CMD...: runs CMD once under strace and fails when it tried to reach any
# address but 127.0.0.1 / ::1 (a tool that fell back to real AWS, a metadata service, DNS).
# The addresses it used are in LOG. Without strace, says so and runs CMD untraced.
# CMD may be a shell function if it and the variables it uses are exported (export -f).
loopback_only() {
  local log=$1; shift
  if ! command -v strace >/dev/null; then
    echo "loopback check skipped: strace is not installed" >&2
    "$@" >/dev/null 2>&1
    return
  fi
  strace -f -qq -e trace=connect,sendto,sendmsg -o "$log" bash -c '"$@"' bash "$@" >/dev/null 2>&1 \
    || { echo "command failed: $*" >&2; return 1; }
  local others
  others=$(grep -oE 'inet_addr\("[^"]*"\)|inet_pton\(AF_INET6, "[^"]*"' "$log" \
    | grep -oE '"[^"]*"' | tr -d '"' | grep -vxE '127\.0\.0\.1|::1|::ffff:127\.0\.0\.1' | sort -u || true)
  if [ -n "$others" ]; then
    echo "$1 tried to reach $(echo $others) (strace log: $log)" >&2
    return 1
  fi
}

# The round trips of the scripts that time transfer tools against one server
# (s3_vs_peers.sh, webdav_vs_peers.sh). The caller defines, per tool of the array `tools`,
# up_TOOL DIR PREFIX (leaves DIR's files at PREFIX/<basename DIR>/) and down_TOOL
# PREFIX/SET OUT (makes OUT/SET), plus warm (before each timed run) and purge PREFIX
# (removes a remote prefix, untimed); the sets' data is in $work/data/SET.

# check_tools_loopback: one traced upload and download of the small set per tool; fails
# when a tool reached beyond 127.0.0.1 or the round trip differs.
check_tools_loopback() {
  local tool
  for tool in "${tools[@]}"; do
    loopback_only "$work/strace-$tool-up.log" "up_$tool" "$work/data/small" "check/$tool"
    mkdir -p "$work/check-$tool"
    loopback_only "$work/strace-$tool-down.log" "down_$tool" "check/$tool/small" "$work/check-$tool"
    diff -rq "$work/data/small" "$work/check-$tool/small" >/dev/null \
      || { echo "$tool: the traced round trip of the small set differs" >&2; exit 1; }
    rm -rf "$work/check-$tool"
  done
  purge check
  command -v strace >/dev/null && echo "loopback check: ${tools[*]} reached 127.0.0.1 only (strace of one upload and one download each)"
  return 0
}

# start_perf_server FIXTURE TAG: the server of tests/servers/FIXTURE.sh, started in a scratch
# folder $work (under PERF_DIR, /var/tmp; named after TAG) with a scratch HOME in it; on
# exit the server stops and both go (and Strata's state folder, if perf_setup made it:
# the caller's own_state is 1). Sets servers and work.
start_perf_server() {
  servers=$perf_root/tests/servers/$1.sh
  "$servers" check
  work=$(mktemp -d "${PERF_DIR:-/var/tmp}/strata-$2-XXXXXX")
  trap perf_cleanup EXIT
  export HOME=$work/home
  mkdir -p "$HOME"
  "$servers" start "$work/server" >/dev/null 2>"$work/server-start.log" || { cat "$work/server-start.log" >&2; exit 1; }
}
perf_cleanup() {
  "$servers" stop "$work/server" >/dev/null 2>&1 || true
  rm -rf "$work"
  if [ "${own_state:-0}" = 1 ]; then
    case "$STRATA_STATE_DIR" in /tmp/strata-perf-state-*) rm -rf "$STRATA_STATE_DIR" ;; esac
  fi
}

# make_set_data SET...: the caller's data sets under $work/data/SET, as many files of random
# bytes as set_files[SET], each set_kib[SET] KiB (a set already there is kept); then sync.
make_set_data() {
  local set f
  for set in "$@"; do
    [ -d "$work/data/$set" ] && continue
    mkdir -p "$work/data/$set"
    for ((f = 0; f < set_files[$set]; f++)); do
      head -c "$((set_kib[$set] << 10))" /dev/urandom >"$(printf '%s/data/%s/f%04d' "$work" "$set" "$f")"
    done
    echo "data $set: ${set_files[$set]} x ${set_kib[$set]} KiB ($(du -sh "$work/data/$set" | cut -f1))"
  done
  sync
}

# time_transfer_sets RUNS SET...: each set up and down RUNS times per tool, the order of
# the tools rotating every round; each download is compared with its source. The seconds
# go into the caller's associative array results["SET-up,TOOL"] / ["SET-down,TOOL"]. A peer
# tool that fails (its error shown) counts as "failed" in that run; Strata failing ends it.
time_transfer_sets() {
  local runs=$1 set i tool prefix out tu td; shift
  for set in "$@"; do
    for ((i = 1; i <= runs; i++)); do
      # The order rotates each round: no tool always runs first (or right after another's).
      local order=("${tools[@]:$(( (i - 1) % ${#tools[@]} ))}" "${tools[@]:0:$(( (i - 1) % ${#tools[@]} ))}")
      for tool in "${order[@]}"; do
        prefix=runs/$set-$i-$tool out=$work/out/$set-$i-$tool
        mkdir -p "$out"
        local first=${tools[0]}
        warm; tu=$(time_cmd "up_$tool" "$work/data/$set" "$prefix") || { [ "$tool" = "$first" ] && exit 1; tu=failed; }
        td=failed
        if [ "$tu" != failed ]; then
          warm; td=$(time_cmd "down_$tool" "$prefix/$set" "$out") || { [ "$tool" = "$first" ] && exit 1; td=failed; }
        fi
        if [ "$td" != failed ]; then
          diff -r "$work/data/$set" "$out/$set" >/dev/null \
            || { echo "$tool: the download of $set (run $i) differs from its source" >&2; exit 1; }
        fi
        results["$set-up,$tool"]+="$tu "; results["$set-down,$tool"]+="$td "
        printf '%-7s run %d %-7s upload %11s   download %11s   %s\n' "$set" "$i" "$tool" "$(seconds "$tu" " s")" \
          "$(seconds "$td" " s")" "$([ "$td" = failed ] && echo "(failed)" || echo "(identical)")"
        rm -rf "$out"; purge "$prefix" # untimed: keep the server small
      done
    done
  done
}

# print_transfer_medians RUNS SET...: after time_transfer_sets, the medians per set and
# direction for each of the caller's tools (the first is Strata), the ratios of every other
# tool's time over Strata's (above 1: Strata is faster) and the large set's MB/s (its size
# in KiB in the caller's set_kib[large]).
print_transfer_medians() {
  local runs=$1 set row tool dir; shift
  local -a others=("${tools[@]:1}")
  # The median of a tool's runs; "failed" if any of them failed.
  med() { if [[ " ${results["$1"]} " == *" failed "* ]]; then echo failed; else printf '%s\n' ${results["$1"]} | median; fi; }
  echo
  echo "== medians over $runs runs (seconds, lower is better; MB/s of the large set)"
  printf '%-12s' case; for tool in "${tools[@]}"; do printf ' %9s' "$tool"; done
  printf '  '; for tool in "${others[@]}"; do printf ' %16s' "$tool/${tools[0]}"; done; echo
  for set in "$@"; do
    for row in "$set-up" "$set-down"; do
      local s; s=$(med "$row,${tools[0]}")
      printf '%-12s' "$row"; for tool in "${tools[@]}"; do printf ' %9s' "$(seconds "$(med "$row,$tool")")"; done
      printf '  '
      for tool in "${others[@]}"; do
        local m; m=$(med "$row,$tool")
        if [ "$m" = failed ]; then printf ' %16s' failed; else printf ' %16s' "$(ratio "$m" "$s")x"; fi
      done
      echo
    done
  done
  if [[ " $* " == *" large "* ]]; then
    local bytes=$(( set_kib[large] << 10 ))
    for dir in up down; do
      printf 'large-%-5s MB/s:' "$dir"
      local sep=" "
      for tool in "${tools[@]}"; do
        local m; m=$(med "large-$dir,$tool")
        if [ "$m" = failed ]; then printf '%s%s failed' "$sep" "$tool"
        else printf '%s%s %.0f' "$sep" "$tool" "$(echo "$bytes / $m / 1000000" | bc -l)"; fi
        sep=", "
      done
      echo
    done
  fi
}
