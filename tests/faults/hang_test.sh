#!/usr/bin/env bash
# No hangs (issue 43): a server that stops answering mid-transfer, on a real server of the
# test's own (OpenSSH's sshd, Pure-FTPd, lighttpd with mod_webdav, s3rver), frozen with
# SIGSTOP (its listener and every session process below it), never kills it.
#
# For an upload and a download each, with ?timeout=3:
#   1. stall: strata says "no answer from 127.0.0.1:PORT for 3 s" within 5 s (timeout + 2 s)
#      of the last byte it got (the freeze, or later: the kernel's buffers hold some MiB of
#      each connection, which the copy takes first); the server goes on (SIGCONT) and the
#      copy then ends, by itself or by running the same command again, with the bytes of the
#      source (cmp) and nothing left behind (no temporary file, no journal).
#   2. SIGTERM while a request waits on the frozen server (no byte for 1 s): strata ends
#      within 2 s (exit 130, "interrupted"); what it leaves is a resume part or a temporary
#      file its journal names (so the rerun resumes or removes it); the same command, once
#      the server goes on, resumes (a download: its parts done are not fetched again) and
#      finishes exact.
# strata never removes anything here but its own temporary files: no sandbox needed.
# Usage: hang_test.sh sftp|ftp|webdav|s3 STRATA
set -uo pipefail
backend=$1 strata=$2
here=$(cd "$(dirname "$0")" && pwd)
servers=$here/../servers
# shellcheck source=../lib/checks.sh
source "$here/../lib/checks.sh"

timeout=3                      # ?timeout= of every URI
said_within_ms=$((timeout * 1000 + 2000)) # from the last byte
work=$(mktemp -d /tmp/strata-hang-XXXXXX)
export STRATA_STATE_DIR=$work/state HOME=$work/home
mkdir -p "$HOME" "$work/out"
srv=$work/srv
cp_pid="" frozen=()
cleanup() {
  [ -n "$cp_pid" ] && kill -9 "$cp_pid" 2>/dev/null
  [ ${#frozen[@]} -gt 0 ] && kill -CONT "${frozen[@]}" 2>/dev/null
  case $backend in
    sftp) bash "$servers/sshd.sh" stop "$srv" ;;
    ftp) bash "$servers/pureftpd.sh" stop "$srv" ;;
    webdav) bash "$servers/lighttpd.sh" stop "$srv" ;;
    s3) bash "$servers/s3rver.sh" stop "$srv" ;;
  esac >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
now_ms() { echo $(( ${EPOCHREALTIME/[.,]/} / 1000 )); }

# --- the server, and where its files are -----------------------------------------------------
# remote NAME: the URI of NAME on the server; server_file NAME: that file on the server's disk;
# server_dir: the folder both are in; pidfile: the listener's.
case $backend in
  sftp)
    bash "$servers/sshd.sh" start "$srv" >/dev/null 2>"$work/start.log" || { cat "$work/start.log"; exit 1; }
    # shellcheck disable=SC1091
    source "$srv/sshd.env"
    server_dir=$STRATA_SFTP_ROOT/upload/hang pidfile=$srv/sshd.pid port=$STRATA_SFTP_PORT
    remote() { echo "sftp://$STRATA_SFTP_USER@127.0.0.1:$port/upload/hang/$1?identity=$STRATA_SFTP_KEY&known-hosts=$STRATA_SFTP_KNOWN_HOSTS&timeout=$timeout"; }
    server_file() { echo "$server_dir/$1"; } ;;
  ftp)
    bash "$servers/pureftpd.sh" start "$srv" >/dev/null 2>"$work/start.log" || { cat "$work/start.log"; exit 1; }
    # shellcheck disable=SC1091
    source "$srv/pureftpd.env"
    export STRATA_FTP_HOST STRATA_FTP_PASSWORD
    server_dir=$STRATA_FTP_ROOT/upload/hang pidfile=$srv/pureftpd.pid port=$STRATA_FTP_PORT
    remote() { echo "ftp://$STRATA_FTP_USER@127.0.0.1:$port/upload/hang/$1?timeout=$timeout"; }
    server_file() { echo "$server_dir/$1"; } ;;
  webdav)
    endpoint=$(bash "$servers/lighttpd.sh" start "$srv" 2>"$work/start.log") || { cat "$work/start.log"; exit 1; }
    port=${endpoint##*:}
    server_dir=$(cat "$srv/lighttpd.datadir")/root/open/hang pidfile=$srv/lighttpd.pid
    remote() { echo "webdav://127.0.0.1:$port/open/hang/$1?timeout=$timeout"; }
    server_file() { echo "$server_dir/$1"; } ;;
  s3)
    endpoint=$(bash "$servers/s3rver.sh" start "$srv" 2>"$work/start.log") || { cat "$work/start.log"; exit 1; }
    # shellcheck disable=SC1091
    source "$srv/s3rver.env"
    export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION
    unset AWS_PROFILE AWS_SESSION_TOKEN
    port=${endpoint##*:}
    server_dir=$(cat "$srv/s3rver.datadir")/strata-test/hang pidfile=$srv/s3rver.pid
    remote() { echo "s3://strata-test/hang/$1?endpoint=$endpoint&timeout=$timeout"; }
    server_file() { echo "$server_dir/$1._S3rver_object"; } ;;
  *) echo "usage: hang_test.sh sftp|ftp|webdav|s3 STRATA"; exit 2 ;;
esac
[ "$backend" != s3 ] && mkdir -p "$server_dir"
[ "$backend" = ftp ] && chown nobody:nogroup "$server_dir" # Pure-FTPd writes as nobody
message="no answer from 127.0.0.1:$port for $timeout s"

# The data: 64 MiB, sent at 16 MB/s in parts of 8 MiB (a freeze lands mid-transfer, after
# some parts are done, and more is to come than the kernel holds ahead: 4 parts in flight
# of 8 MiB; a clean run takes ~4 s).
head -c $((64 << 20)) /dev/urandom >"$work/big.bin"
flags=(--bwlimit 16M --part-size 8M)
if [ "$backend" = s3 ]; then
  "$strata" cp "$work/big.bin" "$(remote seed.bin)" >/dev/null 2>"$work/seed.err" || { cat "$work/seed.err"; exit 1; }
else
  cp "$work/big.bin" "$server_dir/seed.bin"
  [ "$backend" = ftp ] && chown nobody:nogroup "$server_dir/seed.bin"
fi

# --- freezing the server ---------------------------------------------------------------------
# The listener and every process below it (sshd's per-connection processes and theirs,
# Pure-FTPd's sessions).
descendants() { local p; for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done; }
freeze() {
  frozen_at=$(now_ms)
  local listener
  listener=$(head -1 "$pidfile")
  frozen=("$listener" $(descendants "$listener"))
  kill -STOP "${frozen[@]}"
  # A session forked meanwhile is frozen too.
  local more
  more=$(for p in "${frozen[@]}"; do descendants "$p"; done | sort -u)
  [ -n "$more" ] && kill -STOP $more && frozen+=($more)
}
thaw() { kill -CONT "${frozen[@]}" 2>/dev/null; frozen=(); }

# --- one copy in the background ---------------------------------------------------------------
# start_cp SRC DST: strata cp --json with progress on fd 3; sets cp_pid.
start_cp() {
  : >"$work/progress"
  "$strata" cp --json "${flags[@]}" --progress-fd 3 "$1" "$2" >"$work/cp.out" 2>"$work/cp.err" 3>"$work/progress" &
  cp_pid=$!
}
# wait_progress PERCENT: until the copy has done PERCENT (0), or ended or took 20 s (1).
wait_progress() {
  local deadline=$(( $(now_ms) + 20000 )) p
  while kill -0 "$cp_pid" 2>/dev/null && (( $(now_ms) < deadline )); do
    p=$(tail -n 1 "$work/progress" 2>/dev/null); p=${p%%/*}
    [ -n "$p" ] && (( p >= $1 )) && return 0
    sleep 0.02
  done
  return 1
}
# The copy's progress moved (its progress file grew) since the last call: sets moved_at.
progress_size=0 moved_at=0
look_at_progress() {
  local size
  size=$(stat -c %s "$work/progress" 2>/dev/null || echo 0)
  (( size != progress_size )) && { progress_size=$size; moved_at=$(now_ms); }
}
# wait_said TEXT: until the copy's stderr holds TEXT (20 s at most); prints the milliseconds
# from its last byte (the freeze, or its last progress after it) to then.
wait_said() {
  local deadline=$(( $(now_ms) + 20000 ))
  progress_size=$(stat -c %s "$work/progress") moved_at=$(now_ms)
  while (( $(now_ms) < deadline )) && kill -0 "$cp_pid" 2>/dev/null; do
    look_at_progress
    grep -qF "$1" "$work/cp.err" && { echo $(( $(now_ms) - moved_at )); return 0; }
    sleep 0.02
  done
  return 1
}
# wait_still MS: until the copy's progress stood still for MS (0), or it ended or 20 s
# went by (1).
wait_still() {
  local deadline=$(( $(now_ms) + 20000 ))
  progress_size=$(stat -c %s "$work/progress") moved_at=$(now_ms)
  while (( $(now_ms) < deadline )) && kill -0 "$cp_pid" 2>/dev/null; do
    look_at_progress
    (( $(now_ms) - moved_at >= $1 )) && return 0
    sleep 0.02
  done
  return 1
}
# wait_end MS: the copy's exit status, once it ended within MS (else killed: 137).
wait_end() {
  local deadline=$(( $(now_ms) + $1 )) rc
  {
    while kill -0 "$cp_pid" && (( $(now_ms) < deadline )); do sleep 0.02; done
    kill -9 "$cp_pid"
    wait "$cp_pid"; rc=$?
  } 2>/dev/null
  cp_pid=""
  return $rc
}

# What a copy to DIR may leave there besides NAME: only Strata's own temporary files.
leftovers() { # leftovers DIR NAME
  find "$1" -maxdepth 1 -type f ! -name "$2" ! -name "$2._S3rver_*" -printf '%f\n' 2>/dev/null | sort
}
journal_names() { cat "$STRATA_STATE_DIR"/transfers/*.transfer.log 2>/dev/null; }

# check_done WHAT SRC-FILE DST-FILE DST-DIR NAME: the copy is whole and nothing is left.
check_done() {
  if cmp -s "$2" "$3"; then pass; else fail "$1: the copy differs from the source (or is missing)"; fi
  local left
  left=$(leftovers "$4" "$5")
  [ -z "$left" ] && pass || fail "$1: left behind: $left"
  [ -z "$(ls -A "$STRATA_STATE_DIR/transfers" 2>/dev/null)" ] && pass || fail "$1: a journal is left"
}

# one_direction up|down
one_direction() {
  local dir=$1 src dst dst_file dst_dir name=big.bin rc ms
  for phase in stall term; do
    # A folder of each case's own: what is left there is this case's.
    if [ "$dir" = up ]; then
      src=$work/big.bin dst=$(remote "$dir-$phase/$name") dst_file=$(server_file "$dir-$phase/$name")
      dst_dir=$server_dir/$dir-$phase
      [ "$backend" != s3 ] && mkdir -p "$dst_dir" # S3 has no folders to make
      [ "$backend" = ftp ] && chown nobody:nogroup "$dst_dir"
    else
      src=$(remote seed.bin) dst=$work/out/$dir-$phase/$name dst_file=$work/out/$dir-$phase/$name
      dst_dir=$work/out/$dir-$phase
      mkdir -p "$dst_dir"
    fi
    local what="$backend $dir, $phase"
    start_cp "$src" "$dst"
    wait_progress 20 || { fail "$what: the copy never got to 20% ($(head -c 300 "$work/cp.err"))"; wait_end 1000; continue; }
    freeze
    if [ "$phase" = stall ]; then
      # 1. The stall is said within timeout + 2 s of the last byte, as it is.
      if ! ms=$(wait_said "$message"); then
        fail "$what: '$message' never said: $(tail -c 400 "$work/cp.err")"
      elif (( ms > said_within_ms )); then
        fail "$what: '$message' said $ms ms after the last byte (wanted $said_within_ms at most)"
      else
        pass; echo "$what: '$message' said ${ms} ms after the last byte, $(( $(now_ms) - frozen_at )) ms after the freeze"
      fi
      thaw
      wait_end 60000; rc=$?
      echo "$what: the first run ended with $rc after the server went on"
      if [ "$rc" != 0 ]; then
        [ "$rc" = 1 ] && pass || fail "$what: the first run ended with $rc (wanted 0, or 1 for a failure said)"
        expect 0 "$what: the same command again" -- "$strata" cp --json "${flags[@]}" "$src" "$dst"
      fi
    else
      # 2. SIGTERM while a request waits on the frozen server.
      wait_still 1000 || fail "$what: the copy never stood still on the frozen server"
      local t0
      t0=$(now_ms)
      kill -TERM "$cp_pid"
      wait_end 10000; rc=$?
      ms=$(( $(now_ms) - t0 ))
      echo "$what: ended ${ms} ms after SIGTERM, status $rc"
      (( ms <= 2000 )) && pass || fail "$what: SIGTERM took ${ms} ms to end strata (wanted 2000 at most)"
      [ "$rc" = 130 ] && pass || fail "$what: exit $rc after SIGTERM, wanted 130: $(tail -c 300 "$work/cp.err")"
      contains "$what: said" "$(cat "$work/cp.err")" "strata: interrupted; run the same command again"
      # Every file left is one the rerun resumes (a resume part) or removes (the journal names it).
      local f journal
      journal=$(journal_names)
      for f in $(leftovers "$dst_dir" "$name"); do
        [[ $f == .strata-resume-*.part ]] && { pass; continue; }
        [[ $journal == *"$f"* ]] && { pass; continue; }
        fail "$what: $f is left and neither resumed nor named in the journal"
      done
      thaw
      expect 0 "$what: the same command again" -- "$strata" cp --json "${flags[@]}" "$src" "$dst"
      contains "$what: the rerun resumed the job" "$err" "strata: resuming an interrupted transfer"
      local resumed
      resumed=$(jq -r '.bytes_resumed // 0' <<<"$out" 2>/dev/null)
      echo "$what: the rerun resumed $resumed bytes"
      # A local file keeps the parts done: they are not fetched again. (An upload's parts
      # go side by side and may none be done yet.)
      if [ "$dir" = down ]; then
        [ "${resumed:-0}" -gt 0 ] && pass || fail "$what: the rerun sent everything again (bytes_resumed $resumed)"
      fi
    fi
    check_done "$what" "$work/big.bin" "$dst_file" "$dst_dir" "$name"
  done
}

one_direction up
one_direction down
finish
