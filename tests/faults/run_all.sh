#!/usr/bin/env bash
# The fault-injection suite: transfers to and from every remote backend on real servers
# (s3rver, lighttpd + mod_webdav, nbdkit, OpenSSH's sshd, Pure-FTPd) while faults are injected, then a check of what
# arrived, read from the servers' own storage (s3rver's data folder, lighttpd's document
# root, nbdkit's image file) and never through Strata.
#
# Workloads: one large object, a tree of small files (2 000 by default), a disk image (NBD),
# each uploaded and downloaded. Faults:
#   server-kill   the server is killed (kill -9) mid-transfer and restarted 1 s later
#   drop          SFTP, FTP: the sessions' processes are killed mid-transfer, the server stays
#                 (every connection dropped at once)
#   errors        a share of requests fails: 503 answers and connections cut half-way
#                 (tests/faults/fault_proxy.js in front of s3rver and lighttpd), EIO from
#                 nbdkit's error filter
#   latency       every request delayed (the proxy; nbdkit's delay filter)
#   strata-kill   the strata process itself killed (kill -9) mid-transfer
# A transfer that fails is run again with the same command, which must resume and finish.
# After each case: whatever the first run left under a final name is complete and exact
# (else its bytes count as lost), after the last run everything is there and exact, no
# temporary object or journal is left, and the --json report matches what arrived.
#
# Usage: tests/faults/run_all.sh [--quick] [--only REGEX] [STRATA]
#   --quick      smaller data (a 40 MiB object, 300 small files, a 128 MiB image): the
#                version scripts/test runs (ctest -L faults)
#   --only RE    only the cases whose name (backend/workload/direction/fault) matches RE
#   STRATA       the strata binary (default: build/release, else build/dev)
# Prints one table row per case and a total; exits 1 when any case lost bytes, left
# something behind, failed to finish after the rerun or reported wrongly.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
QUICK=0 ONLY="" STRATA=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --only) ONLY=$2; shift ;;
    -h|--help) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "run_all.sh: unknown option $1" >&2; exit 2 ;;
    *) STRATA=$1 ;;
  esac
  shift
done
if [ -z "$STRATA" ]; then
  for b in release dev ci; do [ -x "$ROOT/build/$b/app/strata" ] && { STRATA=$ROOT/build/$b/app/strata; break; }; done
fi
[ -x "$STRATA" ] || { echo "run_all.sh: no strata binary (build first, or pass its path)" >&2; exit 2; }
STRATA=$(readlink -f "$STRATA")
for tool in node curl jq nbdkit nbdinfo cmp; do
  command -v "$tool" >/dev/null || { echo "run_all.sh: $tool is not installed (scripts/bootstrap test installs it)" >&2; exit 2; }
done

if [ "$QUICK" = 1 ]; then BIG_MIB=40 SMALL=300 IMG_MIB=128; else BIG_MIB=256 SMALL=2000 IMG_MIB=1024; fi
KILL_AFTER=25 # percent of the transfer done when a kill comes

export QT_QPA_PLATFORM=offscreen
work=$(mktemp -d /tmp/strata-faults-XXXXXX)
export STRATA_STATE_DIR=$work/state # this run's journals only
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
unset AWS_PROFILE AWS_SESSION_TOKEN AWS_CA_BUNDLE
SERVERS=$ROOT/tests/servers
PROXY_JS=$ROOT/tests/faults/fault_proxy.js
srv=$work/srv
proxy_pid="" proxy_port="" cp_pid=""
cleanup() {
  [ -n "$cp_pid" ] && kill -9 "$cp_pid" 2>/dev/null
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
  bash "$SERVERS/s3rver.sh" stop "$work/s3" 2>/dev/null
  bash "$SERVERS/lighttpd.sh" stop "$work/dav" 2>/dev/null
  bash "$SERVERS/sshd.sh" stop "$work/ssh" 2>/dev/null
  bash "$SERVERS/pureftpd.sh" stop "$work/ftp" 2>/dev/null
  bash "$SERVERS/nbdkit.sh" stopall "$srv" 2>/dev/null
  [ -n "${KEEP:-}" ] && echo "kept $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now_us() { echo "${EPOCHREALTIME/[.,]/}"; }
say() { printf '%s\n' "$*" >&2; }

# --- the data ------------------------------------------------------------------------------
src=$work/src
mkdir -p "$src/small" "$work/out" "$srv"
head -c $((BIG_MIB << 20)) /dev/urandom >"$src/big.bin"
# Small files: 1 byte to 16 KiB, in 20 folders, cut from one random pool.
head -c $((16 << 20)) /dev/urandom >"$work/pool"
for ((i = 0; i < SMALL; i++)); do
  d=$src/small/d$((i % 20)); [ -d "$d" ] || mkdir "$d"
  tail -c +$(( (i * 7919) % (15 << 20) + 1 )) "$work/pool" | head -c $(( (RANDOM * 3 + i) % 16384 + 1 )) >"$d/f$i"
done
rm "$work/pool"
# A disk image with about a quarter of data, in scattered 1 MiB extents, the rest holes.
truncate -s $((IMG_MIB << 20)) "$src/disk.img"
for ((i = 0; i < IMG_MIB / 4; i++)); do
  dd if=/dev/urandom of="$src/disk.img" bs=1M count=1 seek=$(( (i * 4 + RANDOM % 4) % IMG_MIB )) conv=notrunc status=none
done
say "data: big.bin $BIG_MIB MiB, small/ $SMALL files ($(du -sb "$src/small" | cut -f1) bytes), disk.img $IMG_MIB MiB ($(du -k "$src/disk.img" | cut -f1) KiB allocated)"

# --- servers ----------------------------------------------------------------------------------
s3_endpoint=$(bash "$SERVERS/s3rver.sh" start "$work/s3" 2>"$work/s3.start.log") || { cat "$work/s3.start.log" >&2; exit 1; }
s3_port=${s3_endpoint##*:}
s3_data=$(cat "$work/s3/s3rver.datadir")/strata-test
dav_endpoint=$(bash "$SERVERS/lighttpd.sh" start "$work/dav" 2>"$work/dav.start.log") || { cat "$work/dav.start.log" >&2; exit 1; }
dav_port=${dav_endpoint##*:}
dav_root=$(cat "$work/dav/lighttpd.datadir")/root/open
bash "$SERVERS/sshd.sh" start "$work/ssh" >/dev/null 2>"$work/ssh.start.log" || { cat "$work/ssh.start.log" >&2; exit 1; }
# shellcheck disable=SC1091
source "$work/ssh/sshd.env"
ssh_root=$STRATA_SFTP_ROOT/upload # the server's folder, read here directly
ssh_opts="identity=$STRATA_SFTP_KEY&known-hosts=$STRATA_SFTP_KNOWN_HOSTS"
ssh_uri() { echo "sftp://$STRATA_SFTP_USER@127.0.0.1:$STRATA_SFTP_PORT/upload/$1?$ssh_opts"; }
bash "$SERVERS/pureftpd.sh" start "$work/ftp" >/dev/null 2>"$work/ftp.start.log" || { cat "$work/ftp.start.log" >&2; exit 1; }
# shellcheck disable=SC1091
source "$work/ftp/pureftpd.env"
export STRATA_FTP_HOST STRATA_FTP_PASSWORD # the password goes to 127.0.0.1 only
ftp_root=$STRATA_FTP_ROOT/upload
ftp_uri() { echo "ftp://$STRATA_FTP_USER@127.0.0.1:$STRATA_FTP_PORT/upload/$1"; }
# ftp_mkdir DIR: a folder below the server's upload folder that its user (nobody) can write.
ftp_mkdir() { mkdir -p "$ftp_root/$1" && chown nobody:nogroup "$ftp_root/$1"; }

# start_proxy PORT OPTIONS...: the fault proxy in front of PORT; sets proxy_port, proxy_log.
start_proxy() {
  local port=$1; shift
  proxy_log=$work/proxy.$case_id.log # one per case: a rerun's proxy adds to it
  local said=$work/proxy.$case_id.out # a file of its own: an old one would give an old port
  rm -f "$said"
  node "$PROXY_JS" "$port" "$proxy_log" "$@" >"$said" 2>"$work/proxy.$case_id.err" &
  proxy_pid=$!
  local i
  for ((i = 0; i < 200; i++)); do
    proxy_port=$(sed -n 's/^listening //p' "$said" 2>/dev/null)
    [ -n "$proxy_port" ] && return 0
    sleep 0.02
  done
  say "fault_proxy.js did not start: $(cat "$said" "$work/proxy.$case_id.err")"; exit 1
}
stop_proxy() { [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null; wait "$proxy_pid" 2>/dev/null; proxy_pid="" proxy_port=""; }

# --- checking what arrived ----------------------------------------------------------------
# compare SRC DIR SUFFIX: every file below SRC (or SRC itself, a file) against DIR/<same
# relative path>SUFFIX. Sets exact (files present and identical), bad (present, different),
# missing, lost (bytes of bad and missing files), extra (other files in DIR: leftovers).
compare() {
  local from=$1 dir=$2 suffix=$3 rel f size
  exact=0 bad=0 missing=0 lost=0 extra=0
  local -A want=()
  if [ -f "$from" ]; then
    local -a files=("$from") rels=("${from##*/}")
  else
    local -a files=() rels=()
    while IFS= read -r -d '' f; do files+=("$f"); rels+=("${f#"$from"/}"); done < <(find "$from" -type f -print0)
  fi
  local i
  for i in "${!files[@]}"; do
    f=${files[$i]} rel=${rels[$i]}
    want[$rel$suffix]=1
    if [ -f "$dir/$rel$suffix" ]; then
      if cmp -s "$f" "$dir/$rel$suffix"; then exact=$((exact + 1)); continue; fi
      bad=$((bad + 1))
    else
      missing=$((missing + 1))
    fi
    size=$(stat -c %s "$f"); lost=$((lost + size))
  done
  [ -d "$dir" ] || return 0
  while IFS= read -r -d '' f; do
    rel=${f#"$dir"/}
    [ -n "${want[$rel]:-}" ] && continue
    # s3rver keeps each object's metadata and checksum next to it.
    [[ $suffix == ._S3rver_object && $rel =~ \._S3rver_(metadata\.json|object\.md5)$ ]] && continue
    # A folder's marker object ("dir/") where the source has that folder.
    [[ $suffix == ._S3rver_object && ${rel##*/} == ._S3rver_object && -d $from/${rel%._S3rver_object} ]] && continue
    # lighttpd's mod_webdav writes a PUT to "NAME.PID.N~" and renames it when the body is
    # whole: a lighttpd killed mid-PUT leaves that file of its own (the server's crash
    # debris, not a file of ours; no client can name it to remove it).
    if [[ ${fault:-} == server-kill && $suffix != ._S3rver_object && $rel =~ \.[0-9]+\.[0-9]+~$ ]]; then
      server_debris+=("$rel"); continue
    fi
    extra=$((extra + 1)); leftover_names+=("$rel")
  done < <(find "$dir" -type f -print0)
}

# check_dst: compare for the current case (a tree lands in DIR/small, a file in DIR).
check_dst() {
  if [ "$workload" = small ]; then compare "$src/$item" "$dst_dir/$item" "$suffix"
  else compare "$src/$item" "$dst_dir" "$suffix"; fi
}

# Multipart uploads on s3rver's disk, by id. It answers AbortMultipartUpload with 405, so
# what Strata aborts stays there too: they are counted apart from leftovers, and a killed
# run's upload is checked to have been aborted by the rerun (in the proxy's trace).
s3_upload_ids() { find "$s3_data" -maxdepth 2 -mindepth 2 -path '*._S3rver_uploads/*' -type d -printf '%f\n' 2>/dev/null | sort; }
s3_uploads() { s3_upload_ids | wc -l; }

# --- one case -------------------------------------------------------------------------------
rows=() failed_cases=0 total_faults=0 total_lost=0 total_left=0 case_no=0
# row CASE FAULTS FIRST RERUN LOST LEFT REPORT NOTE
row() { rows+=("$(printf '%-34s %7s  %-16s %-9s %9s %5s  %-6s %s' "$@")"); printf '%-34s %7s  %-16s %-9s %9s %5s  %-6s %s\n' "$@" >&2; }

# run_cp ARGS...: strata cp in the background with a progress fd; sets cp_pid.
run_cp() {
  : >"$work/progress"
  "$STRATA" cp --json --progress-fd 3 "$@" >"$work/cp.out" 2>"$work/cp.err" 3>"$work/progress" &
  cp_pid=$!
}
# wait_progress PERCENT: until the running copy reports PERCENT (or ends); 0 on time.
wait_progress() {
  local deadline=$(( $(now_us) + 60000000 )) p
  while kill -0 "$cp_pid" 2>/dev/null && (( $(now_us) < deadline )); do
    p=$(tail -n 1 "$work/progress" 2>/dev/null); p=${p%%/*}
    [ -n "$p" ] && (( p >= $1 )) && return 0
    sleep 0.02
  done
  return 1
}
wait_cp() { # wait_cp: the exit code of the running copy (killed after 300 s)
  local deadline=$(( $(now_us) + 300000000 )) rc
  # stderr aside: bash reports a job killed by a signal ("Killed") while it reaps it.
  {
    while kill -0 "$cp_pid" && (( $(now_us) < deadline )); do sleep 0.05; done
    kill -9 "$cp_pid"
    wait "$cp_pid"; rc=$?
  } 2>/dev/null
  cp_pid=""
  return $rc
}

# one_case BACKEND WORKLOAD DIRECTION FAULT
one_case() {
  local backend=$1 workload=$2 direction=$3 fault=$4
  local name="$backend/$workload/$direction/$fault"
  [ -n "$ONLY" ] && ! [[ $name =~ $ONLY ]] && return 0
  case_no=$((case_no + 1)); case_id=c$case_no
  leftover_names=()
  local from to dst_dir suffix="" rflag=() limit=() faults=0 note="" item
  case $workload in
    big) item=big.bin ;;
    small) item=small; rflag=(-r) ;;
    image) item=disk.img; [ "$direction" = up ] && rflag=(--overwrite) ;; # an export is always there
  esac
  # The rate limit makes a kill or a drop land mid-transfer: about 4 s for the whole.
  local bytes
  bytes=$(du -sb --apparent-size "$src/$item" | cut -f1)
  [ "$workload" = image ] && bytes=$(( $(du -sk "$src/$item" | cut -f1) * 1024 ))
  [[ $fault == *kill || $fault == drop ]] && limit=(--bwlimit $(( bytes / 4 + 1 )))

  # Where the servers are reached (through the proxy for errors and latency).
  local s3_at=$s3_port dav_at=$dav_port server_port=$s3_port
  [ "$backend" = webdav ] && server_port=$dav_port
  if [ "$backend" != nbd ]; then
    case $fault in
      errors) start_proxy "$server_port" fail=0.06 cut=0.03 seed=$case_no ;;
      latency) start_proxy "$server_port" delay=20 ;;
      # Every request seen: the rerun must abort the killed run's multipart upload.
      strata-kill) [ "$backend" = s3 ] && [ "$direction" = up ] && start_proxy "$server_port" trace=1 ;;
    esac
  fi
  if [ -n "$proxy_pid" ]; then
    [ "$backend" = s3 ] && s3_at=$proxy_port
    [ "$backend" = webdav ] && dav_at=$proxy_port
  fi

  local nbd_img nbd_args=() nbd_params=() uri
  case $backend in
    s3)
      local s3_uri="s3://strata-test/$case_id/$item?endpoint=http://127.0.0.1:$s3_at"
      if [ "$direction" = up ]; then from=$src/$item to=$s3_uri dst_dir=$s3_data/$case_id suffix=._S3rver_object
      else from="s3://strata-test/seed/$item?endpoint=http://127.0.0.1:$s3_at" to=$work/out/$case_id/$item dst_dir=$work/out/$case_id; mkdir -p "$dst_dir"; fi ;;
    webdav)
      local dav_uri="webdav://127.0.0.1:$dav_at/open/$case_id/$item"
      if [ "$direction" = up ]; then
        curl -s --noproxy '*' -o /dev/null -X MKCOL "http://127.0.0.1:$dav_port/open/$case_id/"
        from=$src/$item to=$dav_uri dst_dir=$dav_root/$case_id
      else from="webdav://127.0.0.1:$dav_at/open/seed/$item" to=$work/out/$case_id/$item dst_dir=$work/out/$case_id; mkdir -p "$dst_dir"; fi ;;
    sftp)
      if [ "$direction" = up ]; then mkdir -p "$ssh_root/$case_id"; from=$src/$item to=$(ssh_uri "$case_id/$item") dst_dir=$ssh_root/$case_id
      else from=$(ssh_uri "seed/$item") to=$work/out/$case_id/$item dst_dir=$work/out/$case_id; mkdir -p "$dst_dir"; fi ;;
    ftp)
      if [ "$direction" = up ]; then ftp_mkdir "$case_id"; from=$src/$item to=$(ftp_uri "$case_id/$item") dst_dir=$ftp_root/$case_id
      else from=$(ftp_uri "seed/$item") to=$work/out/$case_id/$item dst_dir=$work/out/$case_id; mkdir -p "$dst_dir"; fi ;;
    nbd)
      # nbdkit's file plugin over an image file: it survives a restart of the server.
      nbd_img=$work/nbd.$case_id.img
      case $fault in
        errors) nbd_args=(--filter=error) nbd_params=(error=EIO)
                [ "$direction" = down ] && nbd_params+=(error-pread-rate=2%) || nbd_params+=(error-pwrite-rate=2%) ;;
        latency) nbd_args=(--filter=delay) nbd_params=(delay-read=2ms delay-write=2ms) ;;
      esac
      # The log filter outermost: it sees every request and every error injected below it.
      nbd_args=(--filter=log "${nbd_args[@]}" file "$nbd_img" "logfile=$work/nbdlog.$case_id" "${nbd_params[@]}")
      if [ "$direction" = up ]; then truncate -s $((IMG_MIB << 20)) "$nbd_img"
      else cp --sparse=always "$src/disk.img" "$nbd_img"; fi
      uri=$(bash "$SERVERS/nbdkit.sh" start "$srv" "$case_id" "${nbd_args[@]}" 2>"$work/nbd.start.log") \
        || { say "nbdkit did not start: $(cat "$work/nbd.start.log")"; exit 1; }
      if [ "$direction" = up ]; then from=$src/disk.img to=$uri dst_dir=""
      else from=$uri to=$work/out/$case_id/disk.img dst_dir=$work/out/$case_id; mkdir -p "$dst_dir"; fi ;;
  esac

  local uploads_before ids_before; uploads_before=$(s3_uploads) ids_before=$(s3_upload_ids)
  # The first run, with its fault.
  local t0 rc first report_ok=yes
  t0=$(now_us)
  run_cp "${rflag[@]}" "${limit[@]}" "$from" "$to"
  case $fault in
    server-kill)
      if wait_progress $KILL_AFTER; then
        case $backend in
          s3) bash "$SERVERS/s3rver.sh" crash "$work/s3"; sleep 1; bash "$SERVERS/s3rver.sh" revive "$work/s3" >/dev/null ;;
          webdav) bash "$SERVERS/lighttpd.sh" crash "$work/dav"; sleep 1; bash "$SERVERS/lighttpd.sh" revive "$work/dav" >/dev/null ;;
          sftp) bash "$SERVERS/sshd.sh" crash "$work/ssh"; sleep 1; bash "$SERVERS/sshd.sh" revive "$work/ssh" >/dev/null ;;
          ftp) bash "$SERVERS/pureftpd.sh" crash "$work/ftp"; sleep 1; bash "$SERVERS/pureftpd.sh" revive "$work/ftp" >/dev/null ;;
          nbd) kill -9 "$(head -1 "$srv/$case_id.pid")" 2>/dev/null; sleep 1
               bash "$SERVERS/nbdkit.sh" start "$srv" "$case_id" "${nbd_args[@]}" >/dev/null 2>>"$work/nbd.start.log" ;;
        esac
        faults=1
      else note="ended before the kill"; fi ;;
    drop)
      if wait_progress $KILL_AFTER; then
        # The listener stays: only the sessions (its children, and theirs) go.
        local listener sessions
        [ "$backend" = ftp ] && listener=$(head -1 "$work/ftp/pureftpd.pid") || listener=$(head -1 "$work/ssh/sshd.pid")
        sessions=$(pgrep -P "$listener")
        [ -n "$sessions" ] && kill -9 $sessions $(for s in $sessions; do pgrep -P "$s"; done) 2>/dev/null
        faults=1
      else note="ended before the drop"; fi ;;
    strata-kill)
      # An upload to S3 is killed once its multipart upload has parts on the server.
      local at=$KILL_AFTER
      [ "$backend/$workload/$direction" = s3/big/up ] && at=60
      if wait_progress "$at"; then kill -9 "$cp_pid" 2>/dev/null; faults=1; else note="ended before the kill"; fi ;;
  esac
  wait_cp; rc=$?
  local out1 err1
  out1=$(cat "$work/cp.out"); err1=$(cat "$work/cp.err")
  case $fault in
    errors|latency)
      if [ "$backend" = nbd ]; then
        [ "$fault" = errors ] && faults=$(grep -cE '\.\.\.(Read|Write|Zero|Trim) id=[0-9]+ return=-1' "$work/nbdlog.$case_id")
        [ "$fault" = latency ] && faults=$(grep -cE ' (Read|Write) id=' "$work/nbdlog.$case_id")
      else
        faults=$(grep -cE "^(fail|cut|delay) " "$proxy_log")
      fi ;;
  esac
  if [ "$rc" != 0 ] && [ "$rc" != 137 ]; then
    local why
    why=$(jq -r '.failures[0].message // .error // empty' <<<"$out1" 2>/dev/null | head -1)
    [ -n "$why" ] || why=$(head -1 <<<"$err1")
    note+=" first: ${why:0:120};"
  fi
  if [ "$rc" = 0 ]; then first=completed
  elif [ "$fault" = strata-kill ] && [ "$rc" = 137 ]; then first=killed
  else first="failed($rc)"; fi

  # What the first run left under final names must be exact; its report must say so.
  if [ -n "$dst_dir" ]; then
    check_dst
    local bad_first=$bad
    if [ "$bad_first" != 0 ]; then note+=" $bad_first partial under final names;"; total_lost=$((total_lost + lost)); fi
    if [ "$rc" != 137 ] && [ -n "$out1" ]; then
      local reported
      reported=$(jq -r '.files_copied + .files_skipped' <<<"$out1" 2>/dev/null)
      if [ "$reported" != "$exact" ] && ! { [ "$rc" = 0 ] && [ "$reported" -ge "$exact" ] 2>/dev/null; }; then
        report_ok=no; note+=" report says $reported files, $exact arrived;"
      fi
      if [ "$rc" != 0 ] && [ "$(jq -r '.files_failed' <<<"$out1" 2>/dev/null)" = 0 ] && [ "$(jq -r '.state' <<<"$out1")" = completed ]; then
        report_ok=no; note+=" failed run reported as completed;"
      fi
      [ "$rc" = 0 ] && [ "$(jq -r '.files_failed' <<<"$out1")" != 0 ] && { report_ok=no; note+=" exit 0 with failures;"; }
    fi
    if [ "$rc" != 0 ] && [ "$rc" != 137 ]; then
      # One clear sentence per failure, no secret, nothing like a stack.
      [ -n "$err1" ] || [ "$(jq -r '.failures | length' <<<"$out1" 2>/dev/null)" -gt 0 ] 2>/dev/null \
        || { report_ok=no; note+=" failed silently;"; }
    fi
  fi

  # The rerun, without faults (the server is back; a clean proxy stands where the faulty
  # one was, so the command is the same), finishes the job.
  local had_proxy=$proxy_port
  stop_proxy
  local rerun="-" resumed=""
  if [ "$rc" != 0 ]; then
    [ -n "$had_proxy" ] && start_proxy "$server_port" "port=$had_proxy" trace=1
    case $backend in
      nbd) bash "$SERVERS/nbdkit.sh" stop "$srv" "$case_id"
           uri=$(bash "$SERVERS/nbdkit.sh" start "$srv" "$case_id" file "$nbd_img" 2>>"$work/nbd.start.log")
           [ "$direction" = up ] && to=$uri || from=$uri ;;
    esac
    "$STRATA" cp --json "${rflag[@]}" "$from" "$to" >"$work/cp.out" 2>"$work/cp.err"
    local rc2=$?
    if [ "$rc2" = 0 ]; then rerun=completed; else rerun="failed($rc2)"; note+=" rerun: $(head -c 200 "$work/cp.err" | tr '\n' ' ');"; fi
    stop_proxy
    resumed=$(jq -r '.bytes_resumed // 0' "$work/cp.out" 2>/dev/null)
    [ -n "$resumed" ] && [ "$resumed" != 0 ] && note+=" resumed $((resumed >> 10)) KiB;"
  fi
  local seconds=$(( ($(now_us) - t0) / 1000 ))

  # After the last run: all there, exact; nothing else.
  local lost_now left
  leftover_names=() server_debris=()
  if [ -n "$dst_dir" ]; then
    check_dst
  else
    bash "$SERVERS/nbdkit.sh" stop "$srv" "$case_id"
    exact=0 bad=0 missing=0 lost=0 extra=0
    cmp -s "$src/disk.img" "$nbd_img" && exact=1 || { bad=1; lost=$bytes; }
  fi
  lost_now=$lost
  left=$extra
  local journals
  journals=$(find "$STRATA_STATE_DIR" -type f 2>/dev/null | wc -l)
  left=$((left + journals))
  [ "$journals" != 0 ] && note+=" $journals journal files left;"
  [ ${#leftover_names[@]} -gt 0 ] && note+=" left: ${leftover_names[*]:0:3};"
  [ ${#server_debris[@]} -gt 0 ] && note+=" the killed server's own partial: ${server_debris[*]:0:2};"
  if [ "$backend" = s3 ] && [ "$direction" = up ]; then
    local up; up=$(( $(s3_uploads) - uploads_before ))
    [ "$up" != 0 ] && note+=" s3rver keeps $up aborted upload(s) (it answers AbortMultipartUpload with 405);"
    if [ "$fault" = strata-kill ] && [ "$rerun" = completed ]; then
      local id not_aborted=0
      for id in $(comm -13 <(printf '%s\n' "$ids_before") <(s3_upload_ids)); do
        grep -q "^req DELETE /strata-test/$case_id/$item?uploadId=$id\$" "$proxy_log" \
          && note+=" the killed run's upload aborted by the rerun;" || not_aborted=$((not_aborted + 1))
      done
      [ "$not_aborted" != 0 ] && { left=$((left + not_aborted)); note+=" $not_aborted upload(s) of the killed run never aborted;"; }
    fi
  fi
  [ "$backend" = nbd ] && bash "$SERVERS/nbdkit.sh" stop "$srv" "$case_id"
  rm -f "$work/nbd.$case_id.img"
  rm -rf "$STRATA_STATE_DIR"
  note+=" ${seconds} ms"

  total_faults=$((total_faults + faults)) total_lost=$((total_lost + lost_now)) total_left=$((total_left + left))
  local finished=no
  { [ "$first" = completed ] || [ "$rerun" = completed ]; } && finished=yes
  if [ "$finished" != yes ] || [ "$lost_now" != 0 ] || [ "$left" != 0 ] || [ "$report_ok" != yes ] || [[ $note == *partial* ]]; then
    failed_cases=$((failed_cases + 1)); note="FAIL:$note"
  fi
  row "$name" "$faults" "$first" "$rerun" "$lost_now" "$left" "$report_ok" "$note"
  [ "$first" = completed ] && n_completed=$((n_completed + 1))
  [ "$first" != completed ] && [ "$rerun" = completed ] && n_clean=$((n_clean + 1))
  return 0
}

# The sources of the downloads: a clean upload to each server (checked like the rest).
seed() {
  local item
  for item in big.bin small disk.img; do
    [ "$item" = small ] && r=(-r) || r=()
    "$STRATA" cp "${r[@]}" "$src/$item" "s3://strata-test/seed/$item?endpoint=$s3_endpoint" >/dev/null 2>"$work/seed.err" \
      || { say "seeding s3rver failed: $(cat "$work/seed.err")"; exit 1; }
  done
  mkdir -p "$ssh_root/seed"
  for item in big.bin small; do
    [ "$item" = small ] && r=(-r) || r=()
    "$STRATA" cp "${r[@]}" "$src/$item" "$(ssh_uri "seed/$item")" >/dev/null 2>"$work/seed.err" \
      || { say "seeding sshd failed: $(cat "$work/seed.err")"; exit 1; }
  done
  ftp_mkdir seed
  for item in big.bin small; do
    [ "$item" = small ] && r=(-r) || r=()
    "$STRATA" cp "${r[@]}" "$src/$item" "$(ftp_uri "seed/$item")" >/dev/null 2>"$work/seed.err" \
      || { say "seeding pure-ftpd failed: $(cat "$work/seed.err")"; exit 1; }
  done
  curl -s --noproxy '*' -o /dev/null -X MKCOL "$dav_endpoint/open/seed/"
  for item in big.bin small; do
    [ "$item" = small ] && r=(-r) || r=()
    "$STRATA" cp "${r[@]}" "$src/$item" "webdav://127.0.0.1:$dav_port/open/seed/$item" >/dev/null 2>"$work/seed.err" \
      || { say "seeding lighttpd failed: $(cat "$work/seed.err")"; exit 1; }
  done
}
seed

n_completed=0 n_clean=0
say ""
printf '%-34s %7s  %-16s %-9s %9s %5s  %-6s %s\n' case faults "first run" rerun "lost B" left report note >&2
for backend in s3 webdav; do
  for workload in big small; do
    for direction in up down; do
      for fault in server-kill errors latency strata-kill; do
        one_case "$backend" "$workload" "$direction" "$fault"
      done
    done
  done
done
for direction in down up; do
  for fault in server-kill errors latency strata-kill; do
    one_case nbd image "$direction" "$fault"
  done
done
# SFTP and FTP: no HTTP proxy fits an SSH stream or FTP's two connections; dropped
# connections stand for their errors.
for backend in sftp ftp; do
  for workload in big small; do
    for direction in up down; do
      for fault in server-kill drop strata-kill; do
        one_case "$backend" "$workload" "$direction" "$fault"
      done
    done
  done
done

echo
echo "Fault-injection suite ($([ "$QUICK" = 1 ] && echo quick || echo full): $BIG_MIB MiB object, $SMALL small files, $IMG_MIB MiB image)"
printf '%-34s %7s  %-16s %-9s %9s %5s  %-6s %s\n' case faults "first run" rerun "lost B" left report note
printf '%s\n' "${rows[@]}"
echo
echo "cases: ${#rows[@]}; faults injected: $total_faults; completed despite the faults: $n_completed;" \
  "failed cleanly and finished on rerun: $n_clean; bytes lost: $total_lost; leftovers: $total_left; bad cases: $failed_cases"
[ "$failed_cases" = 0 ]
