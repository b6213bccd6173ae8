#!/usr/bin/env bash
# A second real S3 server for the tests: Ceph's radosgw (Debian 12's Ceph 16.2 "Pacific") on a
# throw-away single-node cluster: one monitor, one OSD keeping its objects in memory
# (memstore), pools of size 1, no mgr; cephx on, with keys generated for each start. Unlike
# s3rver it checks SigV4 signatures and implements versioning and multipart listings.
# Everything (config, keyrings, mon store, OSD data, logs, sockets, PIDs) is under DIR; the
# daemons listen on 127.0.0.1 only (the monitor and radosgw on ports the kernel had free,
# the OSD on one of Ceph's 6800-7300); no systemd, nothing written outside DIR.
#
# Usage: rgw.sh install      install Debian's ceph-mon, ceph-osd and radosgw if missing
#        rgw.sh start DIR    start a cluster and radosgw; state in DIR (rgw.env, logs, PIDs)
#        rgw.sh stop DIR     stop its daemons (TERM, KILL after 10 s), remove what start made
#                            but DIR/log; safe twice; fails if a daemon survived
#        rgw.sh env DIR      print DIR/rgw.env (shell lines: endpoint, bucket, keys; the
#                            same names as s3rver.sh's s3rver.env)
#        rgw.sh unfinished-upload ENVFILE BUCKET KEY BYTES
#                            begins a multipart upload of KEY, stores one part of BYTES
#                            random bytes and leaves it unfinished (as a killed client
#                            would); prints the upload id
#
# RGW_TCP_NODELAY=1 (start): beast sends with Nagle's algorithm off (tcp_nodelay=1). Off by
# default, as in Ceph: an answer's body then waits for the client's ACK of its head, which
# the tests keep (the client acknowledges at once). tests/perf/distance_vs_peers.sh sets it:
# its proxy, not the client, is the one that acknowledges, with Linux's delayed ACKs.
#
# Stays within DIR: the ceph tools run with -c DIR/ceph.conf (CEPH_CONF and CEPH_ARGS of the
# caller are ignored) and every path Ceph would put under /var or /run is set in it.
set -euo pipefail

BUCKET=strata-test
VERSIONED_BUCKET=strata-versioned
USER_ID=strata
START_TIMEOUT=90 # seconds, the whole start
STOP_TIMEOUT=10  # seconds between TERM and KILL
DAEMONS=(mon osd rgw)
# What start creates in DIR, and stop removes (DIR/log stays, for the post-mortem).
STATE=(ceph.conf keyring monmap run mon osd rgw crash tmp rgw.env rgw.env.tmp)
PACKAGES=(ceph-mon ceph-osd radosgw) # ceph-common (ceph, ceph-authtool, monmaptool) comes with them
EMPTY_SHA256=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
PY=/usr/bin/python3 # ceph-common's own (the ceph CLI is Python); picks free ports

die() { echo "rgw.sh: $*" >&2; exit 1; }
now_us() { echo "${EPOCHREALTIME/[.,]/}"; }
# phase NAME: appends "NAME MS" (milliseconds since the previous phase) to $phases.
phase() { local t; t=$(now_us); phases+="${phases:+, }$1 $(( (t - phase_t) / 1000 ))ms"; phase_t=$t; }
unset CEPH_CONF CEPH_ARGS

installed() {
  local p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || return 1
  done
}

cmd_install() {
  installed && return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "rgw.sh: installing ${PACKAGES[*]} (Debian's Ceph)" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q >&2
  $sudo apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" >&2 || die "apt-get install failed"
  installed || die "apt-get install finished but ${PACKAGES[*]} are not all installed"
}

# is_ours DIR PID: the process exists and is a Ceph daemon of DIR's cluster (its command line
# names DIR/ceph.conf), not some other process that got the PID after ours ended.
is_ours() {
  local dir=$1 pid=$2
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null \
    && tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | grep -qxF "$dir/ceph.conf"
}

# pids DIR [NAME...]: the recorded PIDs of DIR's daemons (all, or these) still ours.
pids() {
  local dir=$1 d pid
  shift
  [ $# -gt 0 ] || set -- "${DAEMONS[@]}"
  for d in "$@"; do
    [ -f "$dir/run/$d.pid" ] || continue
    pid=$(cat "$dir/run/$d.pid")
    is_ours "$dir" "$pid" && echo "$pid"
  done
  return 0
}

# terminate DIR NAME...: TERM these daemons, KILL those still there after STOP_TIMEOUT.
terminate() {
  local dir=$1 pid left deadline
  shift
  for pid in $(pids "$dir" "$@"); do kill -TERM "$pid" 2>/dev/null || true; done
  deadline=$(( $(now_us) + STOP_TIMEOUT * 1000000 ))
  while [ -n "$(pids "$dir" "$@")" ] && (( $(now_us) < deadline )); do sleep 0.05; done
  left=$(pids "$dir" "$@")
  [ -n "$left" ] || return 0
  echo "rgw.sh: pids ${left//$'\n'/ } ignored TERM for $STOP_TIMEOUT s, killing them" >&2
  for pid in $left; do kill -KILL "$pid" 2>/dev/null || true; done
  deadline=$(( $(now_us) + 5000000 ))
  while [ -n "$(pids "$dir" "$@")" ] && (( $(now_us) < deadline )); do sleep 0.05; done
}

cmd_stop() {
  local dir=$1 left
  # In this order: radosgw waits for the OSD as it stops, the OSD reports its stop to the
  # monitor (and waits 5 s, osd_mon_shutdown_timeout, when the monitor is already gone).
  terminate "$dir" rgw
  terminate "$dir" osd
  terminate "$dir" mon
  left=$(pids "$dir")
  [ -z "$left" ] || die "daemons ${left//$'\n'/ } of $dir survived KILL; data left in place"
  # What start made, but the logs (kept for the post-mortem of a failed run, like s3rver.log).
  local f
  for f in "${STATE[@]}"; do rm -rf "${dir:?}/$f"; done
}

free_port() {
  "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# rand N SET: N random characters of SET (a tr set), for access keys and secrets.
rand() {
  local s
  s=$(head -c 2048 /dev/urandom | LC_ALL=C tr -dc "$2")
  echo "${s:0:$1}"
}

# spawn DIR NAME LOG CMD...: a daemon in the foreground of a background job, in a session of
# its own (CTest does not wait for it, it outlives the script); PID in DIR/run/NAME.pid.
spawn() {
  local dir=$1 name=$2 log=$3
  shift 3
  setsid "$@" </dev/null >>"$log" 2>&1 &
  echo "$!" >"$dir/run/$name.pid"
}

# fail DIR MESSAGE: print the tails of the logs, stop what started, give up.
fail() {
  local dir=$1 f
  shift
  for f in "$dir"/log/*.log; do
    [ -s "$f" ] || continue
    echo "---- tail of $f" >&2
    tail -n 25 "$f" >&2
  done
  cmd_stop "$dir" || true
  die "$*"
}

# alive DIR NAME: the daemon NAME is still running (else fail with its log).
alive() {
  local pid
  pid=$(cat "$1/run/$2.pid")
  is_ours "$1" "$pid" || fail "$1" "$2 (pid $pid) exited during start-up (logs above)"
}

cmd_start() {
  local dir=$1
  installed || die "Ceph is not installed: run tests/servers/rgw.sh install"
  command -v curl >/dev/null || die "curl is not installed (scripts/bootstrap test installs it)"
  curl --help all 2>/dev/null | grep -q -- --aws-sigv4 || die "curl has no --aws-sigv4 (7.75 or later needed)"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  case "$dir" in *[[:space:]]*) die "DIR must not contain spaces (Ceph config paths): $dir" ;; esac
  cmd_stop "$dir" # a cluster left over by an interrupted run of this same state dir
  local t0=$EPOCHREALTIME phases="" phase_t deadline=$(( $(now_us) + START_TIMEOUT * 1000000 ))
  phase_t=$(now_us)
  rm -rf "$dir/log"
  mkdir -p "$dir"/{run,log,mon,osd,rgw,crash,tmp}

  local conf=$dir/ceph.conf fsid osd_uuid mon_port rgw_port
  fsid=$(cat /proc/sys/kernel/random/uuid)
  osd_uuid=$(cat /proc/sys/kernel/random/uuid)
  mon_port=$(free_port)
  rgw_port=$(free_port)
  while [ "$rgw_port" = "$mon_port" ]; do rgw_port=$(free_port); done

  # $cluster, $name, $id, $pid are Ceph's metavariables (quoted here, expanded by Ceph).
  cat >"$conf" <<EOF
# Written by tests/servers/rgw.sh: a throw-away single-node cluster under $dir.
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$mon_port]
public addr = 127.0.0.1
cluster addr = 127.0.0.1
public network = 127.0.0.0/8
ms bind ipv4 = true
ms bind ipv6 = false
ms bind msgr1 = false
ms bind msgr2 = true
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
keyring = $dir/keyring
run dir = $dir/run
admin socket = $dir/run/\$cluster-\$name.\$pid.asok
crash dir = $dir/crash
tmp dir = $dir/tmp
log file = $dir/log/\$cluster-\$name.log
log to syslog = false
err to syslog = false
clog to syslog = false
log to stderr = false
mon cluster log file = $dir/log/\$cluster.log
mon cluster log to syslog = false
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
mon allow pool size one = true
mon allow pool delete = true
mon warn on pool no redundancy = false
# The monitor refuses to run with less than 5% of its disk free: its store is a few MB.
mon data avail warn = 2
mon data avail crit = 1
mon max pg per osd = 1000
# Each change of the maps (a pool created, its application set) is a Paxos proposal, by
# default batched for 1 s: radosgw makes about ten of them while it starts.
paxos propose interval = 0.05
paxos min wait = 0.01

[mon]
mon data = $dir/mon/\$cluster-\$id

[osd]
osd data = $dir/osd/\$cluster-\$id
osd objectstore = memstore
memstore device bytes = 4294967296
osd check max object name len on startup = false

[client.rgw.strata]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port${RGW_TCP_NODELAY:+ tcp_nodelay=1}
rgw data = $dir/rgw
# 64 request threads rather than 512: plenty for the tests, a tenth of the threads.
rgw thread pool size = 64
# What a delete or an overwrite frees goes to rgw's garbage collector, which by default
# waits two hours and runs hourly: in a 4 GiB memstore, a perf run of 64 MiB copies filled
# the OSD (writes then wait for space that never comes). Collected within seconds instead.
rgw gc obj min wait = 1
rgw gc processor period = 2
EOF

  # One keyring for the whole (throw-away) cluster: the monitor's key, the admin's, the
  # OSD's and the gateway's; ceph-mon --mkfs imports them all into its auth database.
  local kr=$dir/keyring
  ceph-authtool "$kr" --create-keyring --gen-key -n mon. --cap mon 'allow *' >/dev/null
  ceph-authtool "$kr" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' \
    --cap mgr 'allow *' --cap mds 'allow *' >/dev/null
  ceph-authtool "$kr" --gen-key -n osd.0 --cap mon 'allow profile osd' \
    --cap mgr 'allow profile osd' --cap osd 'allow *' >/dev/null
  ceph-authtool "$kr" --gen-key -n client.rgw.strata --cap mon 'allow rw' \
    --cap osd 'allow rwx' --cap mgr 'allow rw' >/dev/null
  chmod 600 "$kr"

  local log=$dir/log/daemons.out # what the daemons print outside their logs
  monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$mon_port]" "$dir/monmap" >>"$log" 2>&1 \
    || fail "$dir" "monmaptool failed"
  ceph-mon -c "$conf" --mkfs -i a --monmap "$dir/monmap" --keyring "$kr" >>"$log" 2>&1 \
    || fail "$dir" "ceph-mon --mkfs failed"
  spawn "$dir" mon "$log" ceph-mon -c "$conf" -i a -f
  phase keys+mkfs

  # The OSD: registered with the monitor (the ceph CLI waits until the monitor answers),
  # then its store made, then started.
  local tmo=$(( (deadline - $(now_us)) / 1000000 )) cli
  timeout "$tmo" ceph -c "$conf" --connect-timeout "$tmo" osd new "$osd_uuid" 0 >>"$log" 2>&1 &
  cli=$!
  while kill -0 "$cli" 2>/dev/null; do
    is_ours "$dir" "$(cat "$dir/run/mon.pid")" || { kill "$cli" 2>/dev/null; wait "$cli" || true; alive "$dir" mon; }
    sleep 0.05
  done
  wait "$cli" || fail "$dir" "the monitor did not register osd.0 (ceph osd new)"
  phase mon+osd-new
  mkdir -p "$dir/osd/ceph-0"
  ceph-osd -c "$conf" -i 0 --mkfs --osd-uuid "$osd_uuid" >>"$log" 2>&1 || fail "$dir" "ceph-osd --mkfs failed"
  spawn "$dir" osd "$log" ceph-osd -c "$conf" -i 0 -f
  phase osd-mkfs

  # radosgw creates its pools and default zone itself. Started before the OSD is up, its
  # first requests wait for a retry (seconds); so it waits for the monitor's word that the
  # OSD booted, in the cluster log.
  while ! grep -q " osd\.0 .* boot\$" "$dir/log/ceph.log" 2>/dev/null; do
    (( $(now_us) < deadline )) || fail "$dir" "osd.0 did not boot within $START_TIMEOUT s"
    alive "$dir" mon; alive "$dir" osd
    sleep 0.05
  done
  phase osd-boot
  spawn "$dir" rgw "$log" radosgw -c "$conf" -n client.rgw.strata -f
  local endpoint=http://127.0.0.1:$rgw_port code=000
  while (( $(now_us) < deadline )); do
    code=$(curl -s --noproxy "*" -o /dev/null -w '%{http_code}' --max-time 2 "$endpoint/") || true
    [ "$code" != 000 ] && break
    alive "$dir" mon; alive "$dir" osd; alive "$dir" rgw
    sleep 0.2
  done
  [ "$code" != 000 ] || fail "$dir" "radosgw did not answer on $endpoint within $START_TIMEOUT s"
  phase rgw-up

  local access secret
  access=STRATA$(rand 14 'A-Z0-9')
  secret=$(rand 40 'A-Za-z0-9')
  radosgw-admin -c "$conf" user create --uid="$USER_ID" --display-name="Strata tests" \
    --access-key="$access" --secret-key="$secret" >>"$log" 2>&1 || fail "$dir" "radosgw-admin user create failed"
  # curl 7.88 signs the SHA-256 of the payload but does not send it: radosgw would then
  # check the signature against UNSIGNED-PAYLOAD. The header (signed too) settles it.
  code=$(curl -s --noproxy "*" -o /dev/null -w '%{http_code}' --max-time 20 \
    --aws-sigv4 "aws:amz:us-east-1:s3" --user "$access:$secret" -H "x-amz-content-sha256: $EMPTY_SHA256" \
    -X PUT "$endpoint/$BUCKET") || true
  [ "$code" = 200 ] || fail "$dir" "cannot create bucket $BUCKET (HTTP $code)"
  # A second bucket keeps every version (versioning cannot be turned off again, so the
  # shared one stays unversioned): for the tests of older versions.
  code=$(curl -s --noproxy "*" -o /dev/null -w '%{http_code}' --max-time 20     --aws-sigv4 "aws:amz:us-east-1:s3" --user "$access:$secret" -H "x-amz-content-sha256: $EMPTY_SHA256"     -X PUT "$endpoint/$VERSIONED_BUCKET") || true
  [ "$code" = 200 ] || fail "$dir" "cannot create bucket $VERSIONED_BUCKET (HTTP $code)"
  local versioning='<VersioningConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Status>Enabled</Status></VersioningConfiguration>'
  code=$(printf '%s' "$versioning" | curl -s --noproxy "*" -o /dev/null -w '%{http_code}' --max-time 20     --aws-sigv4 "aws:amz:us-east-1:s3" --user "$access:$secret"     -H "x-amz-content-sha256: $(printf '%s' "$versioning" | sha256sum | cut -d' ' -f1)"     -X PUT --data-binary @- "$endpoint/$VERSIONED_BUCKET?versioning=") || true
  [ "$code" = 200 ] || fail "$dir" "cannot enable versioning on $VERSIONED_BUCKET (HTTP $code)"
  phase user+buckets

  cat >"$dir/rgw.env.tmp" <<EOF
STRATA_S3_ENDPOINT=$endpoint
STRATA_S3_BUCKET=$BUCKET
STRATA_S3_VERSIONED_BUCKET=$VERSIONED_BUCKET
AWS_ACCESS_KEY_ID=$access
AWS_SECRET_ACCESS_KEY=$secret
AWS_REGION=us-east-1
EOF
  mv "$dir/rgw.env.tmp" "$dir/rgw.env"
  local ms=$(( ($(now_us) - ${t0/[.,]/}) / 1000 ))
  echo "rgw.sh: mon $(cat "$dir/run/mon.pid"), osd $(cat "$dir/run/osd.pid"), radosgw $(cat "$dir/run/rgw.pid"); ready in $ms ms ($phases), state in $dir" >&2
  echo "$endpoint"
}

cmd_env() {
  [ -f "$1/rgw.env" ] || die "no server running for $1 (no $1/rgw.env)"
  cat "$1/rgw.env"
}

usage() { sed -n '10,19p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

# curl 7.88 signs the payload's SHA-256 without sending it, and does not canonicalise the
# query: the hash goes as a header, and queries are written sorted, with "=" everywhere.
cmd_unfinished_upload() {
  local envfile=$1 bucket=$2 key=$3 bytes=$4 tmp body id code
  # shellcheck disable=SC1090 # written by cmd_start
  set -a; source "$envfile"; set +a
  tmp=$(mktemp -d)
  body=$(curl -s --noproxy "*" --max-time 30 --aws-sigv4 "aws:amz:$AWS_REGION:s3" \
    --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" -H "x-amz-content-sha256: $EMPTY_SHA256" \
    -X POST "$STRATA_S3_ENDPOINT/$bucket/$key?uploads=") || { rm -rf "$tmp"; die "POST ?uploads failed"; }
  id=$(sed -n 's:.*<UploadId>\([^<]*\)</UploadId>.*:\1:p' <<<"$body")
  [ -n "$id" ] || { rm -rf "$tmp"; die "no upload id in: $body"; }
  head -c "$bytes" /dev/urandom >"$tmp/part"
  code=$(curl -s --noproxy "*" --max-time 60 -o /dev/null -w '%{http_code}' --aws-sigv4 "aws:amz:$AWS_REGION:s3" \
    --user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
    -H "x-amz-content-sha256: $(sha256sum "$tmp/part" | cut -d' ' -f1)" --data-binary @"$tmp/part" \
    -X PUT "$STRATA_S3_ENDPOINT/$bucket/$key?partNumber=1&uploadId=$id") || true
  rm -rf "$tmp"
  [ "$code" = 200 ] || die "upload of part 1 failed (HTTP $code)"
  echo "$id"
}

case "${1:-}" in
  install) cmd_install ;;
  start) [ $# -eq 2 ] || usage; cmd_start "$2" ;;
  stop) [ $# -eq 2 ] || usage; [ -d "$2" ] || exit 0; cmd_stop "$(cd "$2" && pwd)" ;;
  env) [ $# -eq 2 ] || usage; cmd_env "$2" ;;
  unfinished-upload) [ $# -eq 5 ] || usage; cmd_unfinished_upload "$2" "$3" "$4" "$5" ;;
  *) usage ;;
esac
