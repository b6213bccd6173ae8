#!/usr/bin/env bash
# NBD servers of the tests: nbdkit 1.32 (any plugin and filters) or qemu-nbd 7.2 (an image
# file), each on the unix socket DIR/NAME.sock, never TCP; run in the background, stopped by
# PID. Several servers may share one DIR under different NAMEs.
#
# Usage: nbdkit.sh start DIR NAME [OPTIONS...] PLUGIN [PLUGIN-ARGS...] [OPTIONS...]
#            start nbdkit; OPTIONS are nbdkit's (any word starting with "-", wherever it is,
#            goes before the plugin name: filters are options), the other words are the plugin
#            and its arguments, in their order; e.g.  start d img memory 64M
#              start d img memory 64M --filter=delay delay-read=10ms
#              start d img --filter=error memory 1G error-pread-rate=1% error=EIO
#        nbdkit.sh qemu DIR NAME FILE [FORMAT]
#            serve FILE (FORMAT: qcow2 unless given) with qemu-nbd --persistent --shared=0
#        nbdkit.sh stop DIR NAME     stop it (TERM, KILL after 5 s); safe twice
#        nbdkit.sh stopall DIR       stop every server recorded in DIR
# start and qemu wait (20 s at most) until nbdinfo reads the export's size, then print one
# line, the server's URI: nbd+unix:///?socket=<absolute DIR>/NAME.sock
# State in DIR: NAME.pid, NAME.sock, NAME.log (kept after stop: it is the server's stderr).
#
# An option that takes a value may be one word (--filter=delay, -t4, --threads=4) or two
# (--filter delay, -t 4, -D nbdkit.backend.datapath=0). The script sets the socket, the PID
# file and the log itself (-f is always given): -U, -p, -i, -P, --run, -s, --vsock and
# --exit-with-parent are refused.
# nbdkit serves any export name for most plugins; qemu-nbd serves the empty one only.
#
# nbdkit 1.32 leaves its socket behind when it exits (stop and start remove it), and can
# abort on an assertion when a client drops a connection in the middle of a request: a test
# that does that should start its own server and expect it may be gone at the end.
# The error filter injects errors into every operation unless rates are per operation
# (error-pread-rate=, error-pwrite-rate=, ...).
set -euo pipefail

START_TIMEOUT=20 # seconds
STOP_TIMEOUT=5   # seconds between TERM and KILL

die() { echo "nbdkit.sh: $*" >&2; exit 1; }

check_name() {
  [[ $1 =~ ^[A-Za-z0-9_][A-Za-z0-9_.-]*$ ]] || die "bad server name '$1' (letters, digits, _ . - only)"
}

# is_ours PID SOCKET: the process exists, is nbdkit or qemu-nbd, and serves SOCKET (its
# command line names it): a PID reused by anything else is never signalled.
is_ours() {
  local pid=$1 sock=$2 args exe
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  args=$(tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline") || return 1
  exe=$(head -1 <<<"$args"); exe=${exe##*/}
  [ "$exe" = nbdkit ] || [ "$exe" = qemu-nbd ] || return 1
  grep -qxF -e "$sock" -e "--unix=$sock" -e "--socket=$sock" <<<"$args"
}

cmd_stop() {
  local dir=$1 name=$2 pid=""
  local sock=$dir/$name.sock pidfile=$dir/$name.pid
  [ -f "$pidfile" ] && pid=$(head -1 "$pidfile")
  if [ -n "$pid" ] && is_ours "$pid" "$sock"; then
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$(( ${EPOCHREALTIME/[.,]/} + STOP_TIMEOUT * 1000000 ))
    while is_ours "$pid" "$sock" && (( ${EPOCHREALTIME/[.,]/} < deadline )); do sleep 0.05; done
    if is_ours "$pid" "$sock"; then
      echo "nbdkit.sh: $name: pid $pid ignored TERM for $STOP_TIMEOUT s, killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
      for _ in {1..40}; do is_ours "$pid" "$sock" || break; sleep 0.05; done
    fi
  fi
  rm -f "$sock" "$pidfile"
}

cmd_stopall() {
  local dir=$1 f name
  shopt -s nullglob
  for f in "$dir"/*.pid "$dir"/*.sock; do
    name=${f##*/}; name=${name%.*}
    cmd_stop "$dir" "$name"
  done
}

# wait_ready DIR NAME PID WHAT: waits until nbdinfo reads the size of the export on
# DIR/NAME.sock, then prints the URI; stops the server and fails if it does not come up.
wait_ready() {
  local dir=$1 name=$2 pid=$3 what=$4
  local sock=$dir/$name.sock log=$dir/$name.log
  local uri="nbd+unix:///?socket=$sock" t0=$EPOCHREALTIME i
  for ((i = 0; i < START_TIMEOUT * 20; i++)); do
    if [ -S "$sock" ] && nbdinfo --size "$uri" >/dev/null 2>>"$dir/$name.probe.log"; then
      rm -f "$dir/$name.probe.log"
      # The recorded PID must be the server's, or stop could never signal it.
      is_ours "$pid" "$sock" || { cmd_stop "$dir" "$name"
        die "$name: $sock answers but pid $pid is not a $what serving it (was setsid forked?)"; }
      local ms=$(( (${EPOCHREALTIME/[.,]/} - ${t0/[.,]/}) / 1000 ))
      echo "nbdkit.sh: $name: $what pid $pid, ready in $ms ms, log $log" >&2
      echo "$uri"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      cat "$log" >&2; cmd_stop "$dir" "$name"
      die "$name: $what exited during start-up (its log is above)"
    fi
    sleep 0.05
  done
  cat "$log" "$dir/$name.probe.log" >&2 2>/dev/null || true
  cmd_stop "$dir" "$name"
  die "$name: $what did not answer nbdinfo --size on $sock within $START_TIMEOUT s (log above)"
}

# prepare DIR NAME: prints the absolute DIR, having stopped a server left over under the
# same DIR/NAME (an interrupted run) and removed a stale socket.
prepare() {
  local dir=$1 name=$2
  check_name "$name"
  mkdir -p "$dir" || die "cannot create $dir"
  dir=$(cd "$dir" && pwd)
  local sock=$dir/$name.sock
  # sockaddr_un.sun_path holds 107 bytes and a NUL.
  (( ${#sock} <= 107 )) || die "socket path $sock is longer than 107 bytes: use a shorter DIR"
  cmd_stop "$dir" "$name"
  echo "$dir"
}

cmd_start() {
  local dir=$1 name=$2; shift 2
  command -v nbdkit >/dev/null || die "nbdkit is not installed (scripts/bootstrap test installs it)"
  command -v nbdinfo >/dev/null || die "nbdinfo is not installed (scripts/bootstrap test installs libnbd-bin)"
  # Options (words starting with -, and the value of those that take one as the next word)
  # go before the plugin; the plugin and its key=value arguments keep their order.
  local -a opts=() plugin=()
  while [ $# -gt 0 ]; do
    case "$1" in
      -U|-U*|--unix|--unix=*|-p|-p*|--port|--port=*|-i|-i*|--ip-addr*|--ipaddr*|-P|-P*|--pid-file*|--pidfile*|--run|--run=*|-s|--single|--stdin|--vsock|--exit-with-parent|-4|-6|--ipv4-only|--ipv6-only)
        die "$name: nbdkit option $1 is set by nbdkit.sh or not allowed (unix socket DIR/NAME.sock only)" ;;
      -f|--foreground|--no-fork) shift ;; # always given
      -D|--debug|-e|--export|--export-name|--exportname|--filter|-g|--group|--log|--mask-handshake|--selinux-label|-t|--threads|--tls|--tls-certificates|--tls-psk|-u|--user)
        [ $# -ge 2 ] || die "$name: nbdkit option $1 needs a value"
        opts+=("$1" "$2"); shift 2 ;;
      -*) opts+=("$1"); shift ;;
      *) plugin+=("$1"); shift ;;
    esac
  done
  [ ${#plugin[@]} -gt 0 ] || die "$name: no plugin named (e.g. nbdkit.sh start DIR $name memory 64M)"

  dir=$(prepare "$dir" "$name")
  local sock=$dir/$name.sock log=$dir/$name.log
  : >"$log"
  # nbdkit 1.32 sets PR_SET_PDEATHSIG at start-up even without --exit-with-parent, so it dies
  # with the process that started it; forking into the background (no -f) would avoid that,
  # but then nbdkit sends its stderr to /dev/null unless -v (which logs every request). So it
  # runs with -f under a small bash that outlives it: that bash writes nbdkit's PID to
  # DIR/NAME.pid, waits for it and exits with it. setsid: both are out of the caller's
  # process group and session (CTest, a perf script's Ctrl-C); all descriptors are the log's.
  local pidfile=$dir/$name.pid
  # shellcheck disable=SC2016 # $! and $0 belong to the inner bash
  setsid bash -c 'nbdkit -f "$@" & echo $! >"$0.tmp" && mv "$0.tmp" "$0"; wait $!' \
    "$pidfile" -U "$sock" "${opts[@]}" "${plugin[@]}" </dev/null >>"$log" 2>&1 &
  local pid="" i
  for ((i = 0; i < START_TIMEOUT * 20; i++)); do
    pid=$(head -1 "$pidfile" 2>/dev/null) || true
    [ -n "$pid" ] && break
    sleep 0.05
  done
  [ -n "$pid" ] || { cat "$log" >&2; die "$name: nbdkit did not start within $START_TIMEOUT s (no $pidfile)"; }
  wait_ready "$dir" "$name" "$pid" "nbdkit ${plugin[0]}"
}

cmd_qemu() {
  local dir=$1 name=$2 file=$3 format=${4:-qcow2}
  command -v qemu-nbd >/dev/null || die "qemu-nbd is not installed (scripts/bootstrap test installs qemu-utils)"
  command -v nbdinfo >/dev/null || die "nbdinfo is not installed (scripts/bootstrap test installs libnbd-bin)"
  [ -f "$file" ] || [ -b "$file" ] || die "$name: no image file $file"
  file=$(realpath "$file")
  dir=$(prepare "$dir" "$name")
  local sock=$dir/$name.sock log=$dir/$name.log
  : >"$log"
  # --fork: qemu-nbd forks and its parent exits once the server runs; --pid-file: the
  # server's PID. --shared=0: any number of clients at once (multi-conn copiers open
  # several). setsid: out of the caller's process group and session, like nbdkit.
  local pidfile=$dir/$name.pid
  setsid -w qemu-nbd --fork --persistent --shared=0 --socket="$sock" --format="$format" \
    --pid-file="$pidfile" "$file" </dev/null >>"$log" 2>&1 \
    || { cat "$log" >&2; cmd_stop "$dir" "$name"; die "$name: qemu-nbd failed to start (its log is above)"; }
  local pid
  pid=$(head -1 "$pidfile" 2>/dev/null) || true
  [ -n "$pid" ] || { cat "$log" >&2; cmd_stop "$dir" "$name"; die "$name: qemu-nbd wrote no $pidfile"; }
  wait_ready "$dir" "$name" "$pid" "qemu-nbd ($format $file)"
}

usage() { sed -n '6,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

case "${1:-}" in
  start) [ $# -ge 4 ] || usage; cmd_start "${@:2}" ;;
  qemu) [ $# -ge 4 ] && [ $# -le 5 ] || usage; cmd_qemu "${@:2}" ;;
  stop)
    [ $# -eq 3 ] || usage; check_name "$3"
    [ -d "$2" ] || exit 0
    cmd_stop "$(cd "$2" && pwd)" "$3" ;;
  stopall) [ $# -eq 2 ] || usage; [ -d "$2" ] || exit 0; cmd_stopall "$(cd "$2" && pwd)" ;;
  *) usage ;;
esac
