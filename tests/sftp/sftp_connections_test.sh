#!/usr/bin/env bash
# How many files a copy from an SFTP server keeps in flight far away (issue 43), on the sshd
# fixture behind tests/perf/delay_proxy.js, which counts the connections open at once.
# 80 ms away (40 ms each way), 64 small files come down over 16 connections, as they go up,
# not the engine's 8: each file costs a connection some seven round trips (open, stat,
# read, close...), so a download of many files took 1.4x its upload (2 000 x 4 KiB: 107 s
# down against 76 s up). They arrive byte for byte. Nearby (no delay) a download keeps the
# engine's 8.
# Usage: sftp_connections_test.sh STRATA
set -uo pipefail
strata=$1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/checks.sh
source "$here/../lib/checks.sh"
fixture_env STRATA_SFTP_ENVFILE sshd
work=$(mktemp -d)
run=connections-$$-$RANDOM # a folder of this run's own: the server may hold others'
server_root=$STRATA_SFTP_ROOT/upload/$run
proxy_pid='' pport='' most=0 made=0
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
  rm -rf "$work" "$server_root"
}
trap cleanup EXIT
export HOME=$work/home STRATA_STATE_DIR=$work/state
unset SSH_AUTH_SOCK STRATA_SFTP_PASSWORD
mkdir -p "$HOME" "$server_root/files"
for i in $(seq 1 64); do head -c $((1000 + i * 37)) /dev/urandom >"$server_root/files/f$i"; done
hostkey=$(dirname "$STRATA_SFTP_KEY")/host_ed25519.pub

# down HALF_RTT_MS DEST: the files copied down through a proxy HALF_RTT_MS each way.
down() {
  proxied "$STRATA_SFTP_PORT" "$1" || finish
  echo "[127.0.0.1]:$pport $(cut -d' ' -f1-2 "$hostkey")" >"$work/known"
  expect 0 "64 files down from a server $(($1 * 2)) ms away" -- "$strata" cp -r \
    "sftp://$STRATA_SFTP_USER@127.0.0.1:$pport/upload/$run/files?identity=$STRATA_SFTP_KEY&known-hosts=$work/known" "$2"
  unproxied
  if diff -r "$server_root/files" "$2" >/dev/null; then pass; else fail "the files came down different"; fi
}

down 40 "$work/far"
within 16 18 "80 ms away" # one more may stand: the plan's own
down 0 "$work/near"
within 1 9 "nearby"
finish
