#!/usr/bin/env bash
# How many connections a copy to and from WebDAV keeps busy far away (issue 43), on the
# lighttpd fixture behind tests/perf/delay_proxy.js, which counts the connections open
# at once. 20 ms away (10 ms each way):
# 1. 64 small files go up over 16 connections, not the engine's 8;
# 2. they come back down over 16 too, byte for byte;
# 3. one 24 MiB file comes down in ranges read side by side (more than 2 connections: it
#    used to come in the 32 MiB part size's one stream).
# The distance is the quickest answer's wait. libcurl 7.88 times a request with a body
# (every PROPFIND, every PUT) as answered when its body starts out, so WebDAV servers
# all looked nearby and got none of this (the fix: the client times the status line).
# Usage: webdav_connections_test.sh STRATA
set -uo pipefail
strata=$1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/checks.sh
source "$here/../lib/checks.sh"
fixture_env STRATA_WEBDAV_ENVFILE lighttpd
work=$(mktemp -d)
run=connections-$$-$RANDOM # this run's own folder in the shared open area
proxy_pid='' pport='' most=0 made=0
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
  "$strata" rm -r "webdav://${STRATA_WEBDAV_HOST}/open/$run" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
export HOME=$work/home STRATA_STATE_DIR=$work/state
mkdir -p "$HOME" "$work/src" "$work/big"
for i in $(seq 1 64); do head -c $((1000 + i * 37)) /dev/urandom >"$work/src/f$i"; done
head -c $((24 << 20)) /dev/urandom >"$work/big/large.bin"
port=${STRATA_WEBDAV_HOST##*:}

proxied "$port" 10 || finish
at="webdav://127.0.0.1:$pport/open/$run"
expect 0 "64 files up to a server 20 ms away" -- "$strata" cp -r "$work/src" "$at/up"
unproxied
within 16 18 "20 ms away, up" # one more may stand: the plan's own

proxied "$port" 10 || finish
at="webdav://127.0.0.1:$pport/open/$run"
expect 0 "the files back down" -- "$strata" cp -r "$at/up" "$work/down"
unproxied
within 16 18 "20 ms away, down"
if diff -r "$work/src" "$work/down" >/dev/null; then pass; else fail "the files came back different"; fi

expect 0 "one 24 MiB file up" -- "$strata" cp -r "$work/big" "webdav://${STRATA_WEBDAV_HOST}/open/$run/"
proxied "$port" 10 || finish
at="webdav://127.0.0.1:$pport/open/$run"
expect 0 "the 24 MiB file down from 20 ms away" -- "$strata" cp "$at/big/large.bin" "$work/large.bin"
unproxied
within 4 18 "20 ms away, one large file down in ranges side by side"
if cmp -s "$work/big/large.bin" "$work/large.bin"; then pass; else fail "the large file came back different"; fi
finish
