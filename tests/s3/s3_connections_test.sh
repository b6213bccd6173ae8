#!/usr/bin/env bash
# How many files a copy to S3 keeps in flight (issue 43), on the s3rver fixture behind
# tests/perf/delay_proxy.js, which counts the connections open at once:
# 1. 20 ms away (10 ms each way): 64 small files go up over 16 connections, not the
#    engine's 8 (each small file is a round trip or two: more in flight fill the link);
# 2. on loopback (the proxy without delay): the engine's 8 (up to three tries: a busy
#    shared s3rver may look distant for a moment);
# and each copy comes back down byte for byte through the same proxy: 20 ms away over 16
# connections too. (On loopback the download's count is not asked: it is decided on the
# time to the first byte of a listing, and s3rver may take 8 ms to list.)
# Usage: s3_connections_test.sh STRATA
set -uo pipefail
strata=$1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/checks.sh
source "$here/../lib/checks.sh"
fixture_env STRATA_S3_ENVFILE s3rver
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION
work=$(mktemp -d)
run=connections-$$-$RANDOM # this run's own prefix in the shared bucket
proxy_pid= pport= most=0 made=0
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
  "$strata" rm -r "s3://$STRATA_S3_BUCKET/$run?endpoint=$STRATA_S3_ENDPOINT" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
export HOME=$work/home
mkdir -p "$HOME" "$work/src"
for i in $(seq 1 64); do head -c $((1000 + i * 37)) /dev/urandom >"$work/src/f$i"; done

for delay in 10 0; do
  want=$([ "$delay" = 10 ] && echo 16 || echo 8)
  # Nearby is decided on the quickest answer: s3rver, single-threaded and shared with the
  # suite's other tests, may answer a busy moment's requests in 8 ms or more and look
  # distant. Up to three copies (into the emptied prefix); the first with the right count
  # passes. Far away, one copy.
  tries=$([ "$delay" = 0 ] && echo 3 || echo 1)
  for try in $(seq 1 "$tries"); do
    # A try's files go (directly, not through the counting proxy) before the next.
    "$strata" rm -r "s3://$STRATA_S3_BUCKET/$run/d$delay?endpoint=$STRATA_S3_ENDPOINT" >/dev/null 2>&1
    proxied "${STRATA_S3_ENDPOINT##*:}" "$delay" || break 2
    at="s3://$STRATA_S3_BUCKET/$run/d$delay?endpoint=http://127.0.0.1:$pport"
    expect 0 "64 files to a server $((delay * 2)) ms away (try $try)" -- "$strata" cp -r "$work/src" "$at"
    unproxied
    # One connection more may stand: the plan's own, before the files.
    [ "$most" -ge "$want" ] && [ "$most" -le $((want + 2)) ] && break
  done
  if [ "$most" -ge "$want" ] && [ "$most" -le $((want + 2)) ]; then pass; else
    fail "$((delay * 2)) ms away: $most connections at once, wanted $want ($tries tries)"
  fi
  proxied "${STRATA_S3_ENDPOINT##*:}" "$delay" || break
  expect 0 "the files back down" -- "$strata" cp -r "s3://$STRATA_S3_BUCKET/$run/d$delay?endpoint=http://127.0.0.1:$pport" "$work/down$delay"
  unproxied
  if [ "$delay" = 0 ] || { [ "$most" -ge "$want" ] && [ "$most" -le $((want + 2)) ]; }; then pass; else
    fail "$((delay * 2)) ms away, down: $most connections at once, wanted $want"
  fi
  if diff -r "$work/src" "$work/down$delay" >/dev/null; then pass; else
    fail "$((delay * 2)) ms away: the copy differs"
  fi
done
finish
