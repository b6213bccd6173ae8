#!/usr/bin/env bash
# The real S3 server of the tests: s3rver 3.7.1 (npm), installed under build/npm (no global
# state), run on 127.0.0.1 only with a port the kernel picks, a fresh data directory and a
# bucket named strata-test; stopped by PID.
#
# Usage: s3rver.sh install      install s3rver into build/npm unless it is already there
#        s3rver.sh start DIR    start a server; state in DIR (s3rver.pid, .port, .env, .log)
#        s3rver.sh stop DIR     stop it (TERM, KILL after 5 s) and remove its data; safe twice
#        s3rver.sh env DIR      print DIR/s3rver.env (shell lines: endpoint, bucket, keys)
#        s3rver.sh crash DIR    kill -9 the server, keeping its port and data (fault tests)
#        s3rver.sh revive DIR   start a crashed server again on the same port and data
#
# s3rver accepts any well-formed SigV4 header with access key S3RVER (the signature itself is
# not checked), and anonymous requests.
set -euo pipefail
FIXTURE=s3rver USAGE_LINES=6,11
# shellcheck source=fixture.sh
source "$(dirname "${BASH_SOURCE[0]}")/fixture.sh"

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VERSION=3.7.1
PREFIX=$ROOT/build/npm
BIN=$PREFIX/node_modules/.bin/s3rver
BUCKET=strata-test
START_TIMEOUT=20 # seconds

die() { echo "s3rver.sh: $*" >&2; exit 1; }

installed() {
  [ -x "$BIN" ] && grep -q "\"version\": \"$VERSION\"" "$PREFIX/node_modules/s3rver/package.json" 2>/dev/null
}

cmd_install() {
  installed && return 0
  command -v node >/dev/null || die "node is not installed (scripts/bootstrap test installs Debian's nodejs and npm)"
  command -v npm >/dev/null || die "npm is not installed (scripts/bootstrap test installs Debian's nodejs and npm)"
  echo "s3rver.sh: installing s3rver@$VERSION into $PREFIX" >&2
  mkdir -p "$PREFIX"
  npm install --prefix "$PREFIX" "s3rver@$VERSION" --no-audit --no-fund --loglevel=error >&2 \
    || die "npm install s3rver@$VERSION failed"
  installed || die "npm install finished but $BIN is missing"
}

# is_ours PID: the process exists and is an s3rver (guards against a reused PID).
is_ours() {
  local pid=$1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q s3rver
}

cmd_stop() {
  local dir=$1 pid=""
  [ -f "$dir/s3rver.pid" ] && pid=$(cat "$dir/s3rver.pid")
  if [ -n "$pid" ] && is_ours "$pid"; then
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$(( ${EPOCHREALTIME/[.,]/} + 5000000 ))
    while is_ours "$pid" && (( ${EPOCHREALTIME/[.,]/} < deadline )); do sleep 0.1; done
    if is_ours "$pid"; then
      echo "s3rver.sh: pid $pid ignored TERM for 5 s, killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
    fi
  fi
  if [ -f "$dir/s3rver.datadir" ]; then
    local data
    data=$(cat "$dir/s3rver.datadir")
    case "$data" in "$dir"/data.*) rm -rf "$data" ;; esac
  fi
  rm -f "$dir/s3rver.pid" "$dir/s3rver.port" "$dir/s3rver.env" "$dir/s3rver.datadir"
}

cmd_start() {
  local dir=$1
  installed || die "s3rver $VERSION is not installed: run tests/servers/s3rver.sh install (scripts/test does)"
  command -v curl >/dev/null || die "curl is not installed (scripts/bootstrap test installs it)"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  cmd_stop "$dir" # a server left over by an interrupted run of this same state dir
  local data log=$dir/s3rver.log
  data=$(mktemp -d "$dir/data.XXXXXX")
  echo "$data" >"$dir/s3rver.datadir"
  : >"$log"

  local t0=$EPOCHREALTIME
  spawn "$dir" "$data" 0 "$log"
  local pid
  pid=$(cat "$dir/s3rver.pid")
  local port="" i
  for ((i = 0; i < START_TIMEOUT * 20; i++)); do
    port=$(sed -n 's/^S3rver listening on 127\.0\.0\.1:\([0-9][0-9]*\)$/\1/p' "$log")
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; cmd_stop "$dir"; die "s3rver exited during start-up (log above)"; }
    sleep 0.05
  done
  [ -n "$port" ] || { cat "$log" >&2; cmd_stop "$dir"; die "s3rver did not listen within $START_TIMEOUT s"; }

  local endpoint=http://127.0.0.1:$port
  # It answers and the bucket exists (HEAD bucket: 200).
  local code=""
  for ((i = 0; i < 100; i++)); do
    code=$(curl -s --noproxy "*" -o /dev/null -w '%{http_code}' --max-time 2 -I "$endpoint/$BUCKET") || true
    [ "$code" != 000 ] && break # any HTTP answer: it is up
    sleep 0.1
  done
  if [ "$code" != 200 ]; then
    code=$(curl -s --noproxy "*" -o /dev/null -w '%{http_code}' --max-time 5 -X PUT "$endpoint/$BUCKET") || true
    [ "$code" = 200 ] || { cat "$log" >&2; cmd_stop "$dir"; die "bucket $BUCKET missing and cannot be created (HTTP $code)"; }
  fi

  echo "$port" >"$dir/s3rver.port"
  cat >"$dir/s3rver.env.tmp" <<EOF
STRATA_S3_ENDPOINT=$endpoint
STRATA_S3_BUCKET=$BUCKET
AWS_ACCESS_KEY_ID=S3RVER
AWS_SECRET_ACCESS_KEY=S3RVER
AWS_REGION=us-east-1
EOF
  mv "$dir/s3rver.env.tmp" "$dir/s3rver.env"
  local ms=$(( (${EPOCHREALTIME/[.,]/} - ${t0/[.,]/}) / 1000 ))
  echo "s3rver.sh: pid $pid, ready in $ms ms, data in $data" >&2
  echo "$endpoint"
}

cmd_crash() {
  local dir=$1 pid=""
  [ -f "$dir/s3rver.pid" ] && pid=$(cat "$dir/s3rver.pid")
  is_ours "$pid" || die "no server of ours running for $dir"
  kill -KILL "$pid"
  while is_ours "$pid"; do sleep 0.02; done
}

# spawn DIR DATA PORT LOG: s3rver in the background (PID in DIR/s3rver.pid); PORT 0: the
# kernel picks one. The legacy OpenSSL provider is needed by the continuation tokens of
# paged listings (DES in s3rver, refused by OpenSSL 3). setsid: the server outlives the
# script and is not in CTest's process group; all its descriptors point at the log so CTest
# does not wait for it. s3rver prints "S3rver listening on 127.0.0.1:PORT" even with --silent.
spawn() {
  local dir=$1 data=$2 port=$3 log=$4
  NODE_OPTIONS=--openssl-legacy-provider setsid "$BIN" \
    --address 127.0.0.1 --port "$port" --directory "$data" --silent \
    --configure-bucket "$BUCKET" </dev/null >>"$log" 2>&1 &
  echo "$!" >"$dir/s3rver.pid"
}

cmd_revive() {
  local dir=$1 pid="" port data log=$1/s3rver.log i
  [ -f "$dir/s3rver.port" ] && [ -f "$dir/s3rver.datadir" ] || die "no crashed server recorded in $dir"
  [ -f "$dir/s3rver.pid" ] && pid=$(cat "$dir/s3rver.pid")
  is_ours "$pid" && die "the server of $dir is still running (pid $pid)"
  port=$(cat "$dir/s3rver.port"); data=$(cat "$dir/s3rver.datadir")
  local lines
  lines=$(wc -l <"$log")
  spawn "$dir" "$data" "$port" "$log"
  pid=$(cat "$dir/s3rver.pid")
  for ((i = 0; i < START_TIMEOUT * 20; i++)); do
    tail -n +"$((lines + 1))" "$log" | grep -q "^S3rver listening on 127\.0\.0\.1:$port\$" && { echo "http://127.0.0.1:$port"; return 0; }
    kill -0 "$pid" 2>/dev/null || { tail -n +"$((lines + 1))" "$log" >&2; die "s3rver exited while reviving on port $port"; }
    sleep 0.02
  done
  die "s3rver did not listen again on port $port within $START_TIMEOUT s"
}

fixture_main "$@"
