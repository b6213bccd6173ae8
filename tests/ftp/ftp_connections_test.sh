#!/usr/bin/env bash
# How many FTP connections a copy uses (issue 43), on real Pure-FTPd servers, counted by
# tests/perf/delay_proxy.js in front of them:
# 1. A server 20 ms away (the pureftpd fixture behind a 10 ms each way proxy): a copy of many
#    small files goes over 16 control connections, not 8; `?connections=4` keeps to 4.
# 2. Large files to a server 20 ms away: bytes, times and modes arrive (the checks and the
#    time and mode on side connections), nothing temporary is left, a name taken meanwhile
#    is refused.
# 3. 300 small files up and down nearby, without a wait after each passive reply.
# 4. Modes without a SITE CHMOD per file: a file whose mode is the one the server gives a
#    new file anyway (learned per folder from an MLST of the first upload there) gets none;
#    every other one does, and every mode arrives.
# 5. A server that allows 3 connections from one address (its own Pure-FTPd, -C 3): the 5
#    refused with 421 lower the pool's limit and are not tried again; the copy succeeds up
#    and down, byte for byte.
# Usage: ftp_connections_test.sh STRATA
set -uo pipefail
strata=$1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/checks.sh
source "$here/../lib/checks.sh"
fixture_env STRATA_FTP_ENVFILE pureftpd
password=$STRATA_FTP_PASSWORD user=$STRATA_FTP_USER
work=$(mktemp -d)
run=run-$$-$RANDOM # a folder of this run's own on the shared fixture
server_root=$STRATA_FTP_ROOT/upload/$run
proxy_pid= own= pport= most=0 made=0
cleanup() {
  [ -n "$proxy_pid" ] && kill "$proxy_pid" 2>/dev/null
  [ -n "$own" ] && "$here/../servers/pureftpd.sh" stop "$own" >/dev/null 2>&1
  rm -rf "$work" "$server_root"
}
trap cleanup EXIT
export HOME=$work/home
mkdir -p "$HOME" "$server_root" "$work/src"
chown nobody:nogroup "$server_root" 2>/dev/null || true # the server writes as nobody
for i in $(seq 1 64); do head -c $((1000 + i * 37)) /dev/urandom >"$work/src/f$i"; done

# 1. 20 ms away: 16 connections at once (the backend's first among them); 4 when the URI
# says so.
for want in 16 4; do
  query=$([ "$want" = 4 ] && echo "?connections=4")
  proxied "$STRATA_FTP_PORT" 10 --ftp || break
  STRATA_FTP_HOST=127.0.0.1 STRATA_FTP_PASSWORD=$password expect 0 "64 files to a server 20 ms away$query" \
    -- "$strata" cp -r "$work/src" "ftp://$user@127.0.0.1:$pport/upload/$run/c$want$query"
  unproxied
  if diff -r "$work/src" "$server_root/c$want" >/dev/null; then pass; else fail "c$want: the copy differs"; fi
  if [ "$most" -ge $((want - 1)) ] && [ "$most" -le $((want + 1)) ]; then pass; else
    fail "20 ms away$query: $most connections at once, wanted $want"
  fi
done

# 2. Large files (streamed) to a server 20 ms away: the name and folder are checked, and
# the time and mode given, on side connections while the bytes flow (the stream's own RNFRs
# after its 226). Every byte, the times, the modes (0640 given while the bytes flow, 0444
# only at the end: an APPE onto a kept part must still work) and the folder's 0750 (set
# beside the files) arrive, and no temporary file is left. A name taken meanwhile is
# refused and the other file kept.
mkdir -p "$work/big/sub"
head -c $((3 << 20)) /dev/urandom >"$work/big/a.bin"
head -c $((2 << 20)) /dev/urandom >"$work/big/sub/b.bin"
touch -d '2020-01-02 03:04:05' "$work/big/a.bin" "$work/big/sub/b.bin"
chmod 640 "$work/big/a.bin"
chmod 444 "$work/big/sub/b.bin"
chmod 750 "$work/big/sub"
if proxied "$STRATA_FTP_PORT" 10 --ftp; then
  far=ftp://$user@127.0.0.1:$pport/upload/$run
  export STRATA_FTP_HOST=127.0.0.1 STRATA_FTP_PASSWORD=$password
  expect 0 "large files to a server 20 ms away" -- "$strata" cp -r "$work/big" "$far/big"
  if diff -r "$work/big" "$server_root/big" >/dev/null; then pass; else fail "large files: the copy differs"; fi
  for f in a.bin sub/b.bin; do
    [ "$(stat -c %Y "$server_root/big/$f")" = "$(stat -c %Y "$work/big/$f")" ] && pass ||
      fail "$f: modified $(stat -c %y "$server_root/big/$f"), wanted $(stat -c %y "$work/big/$f")"
  done
  [ "$(stat -c %a "$server_root/big/a.bin")" = 640 ] && pass || fail "a.bin: mode $(stat -c %a "$server_root/big/a.bin")"
  [ "$(stat -c %a "$server_root/big/sub/b.bin")" = 444 ] && pass || fail "b.bin: mode $(stat -c %a "$server_root/big/sub/b.bin")"
  [ "$(stat -c %a "$server_root/big/sub")" = 750 ] && pass || fail "sub: mode $(stat -c %a "$server_root/big/sub")"
  lacks "no temporary file left (large)" "$(find "$server_root/big" -name '.strata-*')" ".strata-"
  head -c $((8 << 20)) /dev/urandom >"$work/taken.bin"
  name_taken_meanwhile "far" "$server_root" taken.bin "$strata" cp --bwlimit 4M "$work/taken.bin" "$far/taken.bin"
  unproxied
  lacks "no temporary file left (taken)" "$(ls -a "$server_root")" ".strata-"
fi

# 3. Nearby (no proxy), 300 small files up then down pass without a wait: libcurl 7.88 names
# no socket to wait on right after a passive reply, and a loop that waited on it anyway
# slept 250 ms for one file in three (about 3 s here, 8 side by side; 0.2 s without).
mkdir -p "$work/many"
for i in $(seq 1 300); do head -c 1024 /dev/urandom >"$work/many/f$i"; done
near=ftp://$user@127.0.0.1:$STRATA_FTP_PORT/upload/$run
for way in up down; do
  started=$(date +%s%N)
  if [ $way = up ]; then
    STRATA_FTP_PASSWORD=$password expect 0 "300 small files up" -- "$strata" cp -r "$work/many" "$near/many"
    mine=$server_root/many
  else
    STRATA_FTP_PASSWORD=$password expect 0 "300 small files down" -- "$strata" cp -r "$near/many" "$work/back"
    mine=$work/back
  fi
  took=$((($(date +%s%N) - started) / 1000000))
  if diff -r "$work/many" "$mine" >/dev/null; then pass; else fail "300 small files $way: the copy differs"; fi
  [ "$took" -lt 1500 ] && pass || fail "300 small files $way took $took ms (a wait after each passive reply?)"
done

# 4. 240 files in two folders, 216 of the server's usual 0644 and 24 of other modes:
# each of those 24 gets its SITE CHMOD, the others only until the folder's usual mode
# is known (at most one per connection and folder, 8 here), and every mode arrives.
mkdir -p "$work/modes/sub"
for i in $(seq 1 200); do head -c 700 /dev/urandom >"$work/modes/f$i"; done
for i in $(seq 1 40); do head -c 700 /dev/urandom >"$work/modes/sub/g$i"; done
chmod 644 "$work/modes"/f* "$work/modes/sub"/g*
chmod 640 "$work/modes"/f{3,50,99,150,199} "$work/modes/sub"/g{2,20,39}
chmod 600 "$work/modes"/f{4,60,120,180,200} "$work/modes/sub"/g{7,30}
chmod 604 "$work/modes"/f{1,70,140,160} "$work/modes/sub"/g{1,10,25,33,40}
: >"$work/commands"
if proxied "$STRATA_FTP_PORT" 0 --ftp --commands "$work/commands"; then
  STRATA_FTP_HOST=127.0.0.1 STRATA_FTP_PASSWORD=$password expect 0 "240 files of several modes" \
    -- "$strata" cp -r "$work/modes" "ftp://$user@127.0.0.1:$pport/upload/$run/modes"
  unproxied
  if diff -r "$work/modes" "$server_root/modes" >/dev/null; then pass; else fail "modes: the copy differs"; fi
  wrong=$(cd "$work/modes" && find . -type f -printf '%P %m\n' | while read -r f m; do
    got=$(stat -c %a "$server_root/modes/$f"); [ "$got" = "$m" ] || echo "$f:$got!=$m"; done)
  [ -z "$wrong" ] && pass || fail "modes that did not arrive: $wrong"
  chmods=$(grep -c '^SITE CHMOD$' "$work/commands")
  stores=$(grep -c '^STOR$' "$work/commands")
  [ "$stores" -ge 240 ] && pass || fail "only $stores STORs were seen (the proxy's command log?)"
  if [ "$chmods" -ge 24 ] && [ "$chmods" -le $((24 + 2 * 8)) ]; then pass; else
    fail "$chmods SITE CHMODs for 240 files, 24 of them not 0644: wanted 24-40"
  fi
fi

# 5. A server that takes 3 connections from us, 8 wanted: the 5 refused (421) are not tried
# again (24 connections were made before: each retry tried a new one), and the copy
# succeeds both ways.
own=$work/own
if ! PUREFTPD_PER_IP=3 "$here/../servers/pureftpd.sh" start "$own" >"$work/own.out" 2>&1; then
  fail "could not start a Pure-FTPd with -C 3: $(cat "$work/own.out")"
  own=
elif proxied "$(sed -n 's/^STRATA_FTP_PORT=//p' "$own/pureftpd.env")" 0 --ftp; then
  # shellcheck disable=SC1091
  source "$own/pureftpd.env"
  export STRATA_FTP_HOST STRATA_FTP_PASSWORD
  limited=ftp://$STRATA_FTP_USER@127.0.0.1:$pport/upload
  expect 0 "64 files up to a server allowing 3 connections" -- "$strata" cp -r "$work/src" "$limited/up"
  unproxied
  if diff -r "$work/src" "$STRATA_FTP_ROOT/upload/up" >/dev/null; then pass; else fail "limited upload differs"; fi
  if [ "$made" -le 10 ]; then pass; else fail "a server allowing 3: $made connections made, wanted 8 (3 + 5 refused)"; fi
  lacks "no partial file left" "$(ls -a "$STRATA_FTP_ROOT/upload/up")" ".part"
  expect 0 "64 files down from it" -- "$strata" cp -r "ftp://$STRATA_FTP_USER@127.0.0.1:$STRATA_FTP_PORT/upload/up" "$work/down"
  if diff -r "$work/src" "$work/down" >/dev/null; then pass; else fail "limited download differs"; fi
fi
finish
