#!/usr/bin/env bash
# WebDAV as a user meets it through `strata`: ls, cp (both ways, -r), mv, rm, mkdir and cat on
# webdav:// URIs; faults as one clear line on stderr with the right exit code, no secret
# printed, nothing half-written. Every server is on 127.0.0.1 and is stopped by PID on exit.
#
# Usage: webdav_cli_test.sh /path/to/strata CASE
#   commands       the commands on the shared lighttpd (Basic-auth area), byte-identical round trips
#   messages       wrong password, password in the URI, no credentials (shared lighttpd)
#   killed-upload  lighttpd killed mid-upload, then the same copy against a live server (own lighttpd)
#   killed-before-move  strata killed between an upload's PUT and its MOVE (a proxy holds the
#                  MOVE), then the same copy again: done, and the temporary file is gone
#   lost-put       an upload's answer lost and the server down for a while: the copy completes
#                  when it is back, and no temporary upload is left on it
#   multistatus    mv and rm answered by a 207 Multi-Status holding a failure (webdav_stub.js):
#                  exit 1 naming the member and its status
set -u
STRATA=$(readlink -f "$1")
CASE=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
LIGHTTPD_SH=$HERE/../servers/lighttpd.sh
export QT_QPA_PLATFORM=offscreen
work=$(mktemp -d /tmp/strata-webdavcli-XXXXXX)
export STRATA_STATE_DIR="$work/.state" # transfer journals of this run only
own_server=""
cleanup() {
  [ -n "$own_server" ] && bash "$LIGHTTPD_SH" stop "$own_server"
  rm -rf "$work"
}
trap cleanup EXIT
source "$HERE/../lib/checks.sh"
# one_error WHAT STDERR: one error line, besides the summary cp prints after failed files.
one_error() {
  one_line "$1" "$(grep -v -e '^strata: [0-9]* of [0-9]* files failed' -e '^strata: [0-9]* of [0-9]* entries were left alone' <<<"$2")"
}

# The shared lighttpd of the CTest fixture (strata_with_webdav); $base: a fresh place in /auth.
use_fixture() {
  [ -f "${STRATA_WEBDAV_ENVFILE:-}" ] || { echo "FAIL: no lighttpd env file (run through CTest, fixture lighttpd)"; exit 1; }
  set -a; source "$STRATA_WEBDAV_ENVFILE"; set +a
  case "$STRATA_WEBDAV_ENDPOINT" in http://127.0.0.1:[0-9]*) ;; *) echo "FAIL: $STRATA_WEBDAV_ENDPOINT is not on 127.0.0.1"; exit 1 ;; esac
  host=${STRATA_WEBDAV_ENDPOINT#http://}
  base="webdav://$host/auth/cli-$$-$RANDOM"
}

case_commands() {
  use_fixture
  expect 0 "mkdir" -- "$STRATA" mkdir "$base"
  # A file across and back: byte-identical, small (one PUT) and large (a streamed PUT).
  head -c 300000 /dev/urandom >"$work/small.bin"
  head -c 40M /dev/urandom >"$work/large.bin"
  local f
  for f in small large; do
    expect 0 "cp $f up" -- "$STRATA" cp "$work/$f.bin" "$base/$f.bin"
    expect 0 "cp $f down" -- "$STRATA" cp "$base/$f.bin" "$work/$f.back"
    cmp -s "$work/$f.bin" "$work/$f.back" && pass || fail "$f.bin is not byte-identical after the round trip"
  done
  expect 0 "cat" -- "$STRATA" cat "$base/small.bin"
  [ "$(cat "$work/.out" | cksum)" = "$(cksum <"$work/small.bin")" ] && pass || fail "cat does not give the file's bytes"
  # Copying onto an existing object needs --overwrite.
  expect 1 "cp onto an existing object" -- "$STRATA" cp "$work/small.bin" "$base/small.bin"
  contains "cp onto an existing object" "$err" "already exists"

  # A tree with awkward names, up with -r and back: the same tree.
  mkdir -p "$work/tree/sub dir/ünï 日本" "$work/tree/empty"
  printf 'a' >"$work/tree/with some spaces.txt"
  printf 'b' >"$work/tree/100% done %41.txt"
  printf 'c' >"$work/tree/sub dir/issue #42.txt"
  printf 'd' >"$work/tree/sub dir/ünï 日本/a+b&c=d?.txt"
  head -c 9M /dev/urandom >"$work/tree/sub dir/big.bin"
  expect 0 "cp -r up" -- "$STRATA" cp -r "$work/tree" "$base/"
  expect 0 "ls -R" -- "$STRATA" ls -R "$base/tree/"
  local name
  for name in "with some spaces.txt" "100% done %41.txt" "sub dir/issue #42.txt" "sub dir/ünï 日本/a+b&c=d?.txt" "empty/"; do
    contains "ls -R lists '$name'" "$out" "$name"
  done
  expect 0 "cp -r down" -- "$STRATA" cp -r "$base/tree" "$work/back/"
  diff -r "$work/tree" "$work/back/tree" >/dev/null && pass || fail "the tree differs after the round trip"
  # A name with '#' in a URI is written %23.
  expect 0 "stat a name with #" -- "$STRATA" stat "$base/tree/sub%20dir/issue%20%2342.txt"

  # mv is a MOVE on the server; rm of a full directory needs -r; rm removes.
  expect 0 "mv" -- "$STRATA" mv "$base/small.bin" "$base/moved.bin"
  expect 1 "stat after mv" -- "$STRATA" stat "$base/small.bin"
  contains "stat after mv" "$err" "does not exist"
  expect 0 "stat the moved" -- "$STRATA" stat "$base/moved.bin"
  expect 1 "rm of a full directory" -- "$STRATA" rm "$base/tree"
  one_error "rm of a full directory" "$err"
  expect 0 "rm -r" -- "$STRATA" rm -r "$base"
  expect 1 "ls after rm -r" -- "$STRATA" ls "$base/"
  contains "ls after rm -r" "$err" "does not exist"
}

case_messages() {
  use_fixture
  local secret="Zq7-wrong-PASSWORD-do-not-print-4f1e"
  local wrong=(env STRATA_WEBDAV_PASSWORD="$secret" "$STRATA")
  expect 1 "wrong password" -- "${wrong[@]}" ls "webdav://$host/auth/"
  contains "wrong password" "$err" "authentication failed at $host (HTTP 401): the server refused the user name or password"
  lacks "wrong password secret" "$err$out" "$secret"
  one_line "wrong password" "$err"
  printf 'x' >"$work/x.txt"
  expect 1 "wrong password, cp" -- "${wrong[@]}" cp "$work/x.txt" "webdav://$host/digest/x.txt"
  contains "wrong password, cp" "$err" "authentication failed"
  one_error "wrong password, cp" "$err"
  expect 1 "wrong password, -v log" -- "${wrong[@]}" -v ls "webdav://$host/auth/"
  lacks "wrong password, -v log secret" "$err$out" "$secret"

  expect 1 "password in the URI" -- "$STRATA" ls "webdav://strata:$secret@$host/auth/"
  contains "password in the URI" "$err" "a password never goes in a webdav:// URI"
  lacks "password in the URI secret" "$err$out" "$secret"

  expect 1 "no credentials" -- env -u STRATA_WEBDAV_USER -u STRATA_WEBDAV_PASSWORD HOME="$work" "$STRATA" ls "webdav://$host/auth/"
  contains "no credentials" "$err" "the server wants a user name and password"

  expect 1 "nothing listening" -- "$STRATA" ls "webdav://127.0.0.1:1/"
  contains "nothing listening" "$err" "cannot connect to 127.0.0.1:1"
  one_line "nothing listening" "$err"
}

case_killed_upload() {
  # Our own lighttpd: this one gets killed, the shared fixture must not.
  own_server=$work/lighttpd
  local endpoint pid root
  endpoint=$(bash "$LIGHTTPD_SH" start "$own_server") || { echo "FAIL: cannot start lighttpd"; exit 1; }
  pid=$(cat "$own_server/lighttpd.pid")
  root=$(cat "$own_server/lighttpd.datadir")/root
  head -c 64M /dev/urandom >"$work/big.bin"
  # 64 MiB at 16 MB/s: ~4 s, streamed in one PUT; the server dies after ~2 s.
  local t0=$EPOCHREALTIME
  timeout 40 "$STRATA" cp --bwlimit 16M "$work/big.bin" "webdav://${endpoint#http://}/open/big.bin" \
    >"$work/cp.out" 2>"$work/cp.err" &
  local cp_pid=$!
  # Killed once the server is receiving the PUT (its unnamed file open in the target's
  # directory), not after a guess.
  for ((i = 0; i < 400; i++)); do
    ls -l "/proc/$pid/fd" 2>/dev/null | grep -q "$root/open/" && break
    sleep 0.05
  done
  # What the server holds mid-upload: lighttpd writes a PUT into an unnamed file (O_TMPFILE)
  # in the target's directory, linked under our temporary name only when the PUT completes.
  local during
  during=$(find "$root/open" -mindepth 1 -printf '%f %s\n'; ls -l "/proc/$pid/fd" 2>/dev/null | grep -o "$root/open/.*" || true)
  kill -KILL "$pid"
  wait "$cp_pid"
  local rc=$?
  echo "killed-upload: strata exited $rc after $(( (${EPOCHREALTIME/[.,]/} - ${t0/[.,]/}) / 1000 )) ms: $(cat "$work/cp.err")"
  echo "killed-upload: the document root held at the kill: ${during:-nothing}"
  [ "$rc" -ne 0 ] && pass || fail "strata cp succeeded although the server was killed"
  err=$(cat "$work/cp.err")
  contains "killed server" "$err" "cannot write"
  contains "killed server names the host" "$err" "${endpoint#http://}"
  one_error "killed server" "$err"
  [[ $during == "$root/open/"* ]] && pass || fail "no upload was open on the server at the kill: not a mid-upload kill"
  lacks "nothing under the final name at the kill" "$during" "big.bin "
  [ ! -e "$root/open/big.bin" ] && pass || fail "big.bin appeared although the upload never completed"

  # The same copy against a live server (a fresh one) completes, byte-identical.
  endpoint=$(bash "$LIGHTTPD_SH" start "$own_server") || { echo "FAIL: cannot restart lighttpd"; exit 1; }
  expect 0 "copy after restart" -- "$STRATA" cp --bwlimit 64M "$work/big.bin" "webdav://${endpoint#http://}/open/big.bin"
  expect 0 "copy back" -- "$STRATA" cp "webdav://${endpoint#http://}/open/big.bin" "$work/back.bin"
  cmp -s "$work/big.bin" "$work/back.bin" && pass || fail "the object is not byte-identical after the restart"
  expect 0 "nothing else left" -- "$STRATA" ls "webdav://${endpoint#http://}/open/"
  [ "$out" = big.bin ] && pass || fail "the directory holds more than big.bin: $out"
}

# Our own lighttpd (endpoint, root, port) and, by `proxy OPTIONS...`, fault_proxy.js in front
# of it (proxy_pid, proxy_port; the same port again when port= is given).
own_lighttpd() {
  command -v node >/dev/null || { echo "FAIL: node is missing (scripts/test installs it)"; exit 1; }
  own_server=$work/lighttpd
  endpoint=$(bash "$LIGHTTPD_SH" start "$own_server") || { echo "FAIL: cannot start lighttpd"; exit 1; }
  root=$(cat "$own_server/lighttpd.datadir")/root
  port=${endpoint##*:}
}
proxy() {
  rm -f "$work/proxy.out"
  node "$HERE/../faults/fault_proxy.js" "$port" "$work/proxy.log" "$@" >"$work/proxy.out" 2>&1 &
  proxy_pid=$!
  local i
  for ((i = 0; i < 250; i++)); do
    proxy_port=$(sed -n 's/^listening //p' "$work/proxy.out")
    [ -n "$proxy_port" ] && return 0
    sleep 0.02
  done
  echo "FAIL: fault_proxy.js did not start: $(cat "$work/proxy.out")"; exit 1
}

case_killed_before_move() {
  # Our own lighttpd behind fault_proxy.js, which holds every MOVE: the PUT of each file's
  # temporary copy completes, then strata waits for the MOVE that publishes it and is killed.
  local endpoint root port proxy_pid="" proxy_port
  own_lighttpd
  mkdir -p "$work/tree/d"
  local i
  for i in 1 2 3; do head -c $((i * 40000)) /dev/urandom >"$work/tree/d/f$i.bin"; done
  proxy hold=MOVE
  local dst="webdav://127.0.0.1:$proxy_port/open/up"
  "$STRATA" cp -r --jobs 2 "$work/tree/d" "$dst" >"$work/cp.out" 2>"$work/cp.err" &
  local cp_pid=$!
  for ((i = 0; i < 500; i++)); do
    [ "$(grep -c '^hold MOVE' "$work/proxy.log" 2>/dev/null)" -ge 2 ] && break
    sleep 0.02
  done
  kill -KILL "$cp_pid"; wait "$cp_pid" 2>/dev/null
  local held during
  held=$(grep -c '^hold MOVE' "$work/proxy.log")
  during=$(cd "$root/open/up" 2>/dev/null && ls -A)
  echo "killed-before-move: strata killed while $held MOVE(s) waited; the server held: $(tr '\n' ' ' <<<"$during")"
  [ "$held" -ge 2 ] && pass || fail "strata never asked to MOVE two uploads (proxy log: $(cat "$work/proxy.log"))"
  [ "$(grep -c '^\.strata-upload-' <<<"$during")" -ge 2 ] && pass \
    || fail "the killed run left no temporary uploads to clean up: $during"
  grep -qxE 'f[123]\.bin' <<<"$during" && fail "a file was published although its MOVE never reached the server" || pass

  # The same copy, through a proxy that holds nothing on the same port: the journal tells
  # the rerun what the killed run left on the server.
  kill "$proxy_pid"; wait "$proxy_pid" 2>/dev/null
  proxy "port=$proxy_port"
  expect 0 "copy again after the kill" -- "$STRATA" cp -r --jobs 2 "$work/tree/d" "$dst"
  kill "$proxy_pid"; wait "$proxy_pid" 2>/dev/null
  local after
  after=$(cd "$root/open/up" && ls -A)
  [ "$after" = $'f1.bin\nf2.bin\nf3.bin' ] && pass || fail "the destination holds more or less than the three files: $(tr '\n' ' ' <<<"$after")"
  for i in 1 2 3; do
    cmp -s "$work/tree/d/f$i.bin" "$root/open/up/f$i.bin" && pass || fail "f$i.bin is not byte-identical"
  done
  [ -z "$(find "$STRATA_STATE_DIR" -type f 2>/dev/null)" ] && pass || fail "a journal was left: $(find "$STRATA_STATE_DIR" -type f)"
}

case_lost_put() {
  # The server stores an upload's temporary copy, then its answer is lost and the server is
  # "down" for 2.5 s (fault_proxy.js lose=PUT outage=2500): the upload's own clean-up fails
  # while it is down, the copy is tried again after it, and the leftover must go then.
  local endpoint root port proxy_pid="" proxy_port
  own_lighttpd
  head -c 300000 /dev/urandom >"$work/small.bin" # one PUT
  head -c 20M /dev/urandom >"$work/large.bin"    # a streamed PUT
  local f
  for f in small large; do
    : >"$work/proxy.log"
    proxy lose=PUT outage=2500
    expect 0 "$f: cp through a lost PUT and an outage" -- "$STRATA" cp "$work/$f.bin" "webdav://127.0.0.1:$proxy_port/open/$f.bin"
    kill "$proxy_pid"; wait "$proxy_pid" 2>/dev/null
    grep -q '^lose PUT /open/\.strata-upload-' "$work/proxy.log" && pass || fail "$f: no temporary upload lost its answer: $(cat "$work/proxy.log")"
    grep -q '^down ' "$work/proxy.log" && pass || fail "$f: nothing was tried during the outage: $(cat "$work/proxy.log")"
    cmp -s "$work/$f.bin" "$root/open/$f.bin" && pass || fail "$f.bin is not byte-identical on the server"
  done
  local left
  left=$(cd "$root/open" && ls -A)
  [ "$left" = $'large.bin\nsmall.bin' ] && pass || fail "the server holds more than the two files: $(tr '\n' ' ' <<<"$left")"
}

case_multistatus() {
  local stub_pid port
  node "$HERE/webdav_stub.js" multistatus "$work/stub.log" >"$work/stub.port" &
  stub_pid=$!
  port=$(first_line "$work/stub.port") || { kill "$stub_pid"; fail "webdav_stub.js did not start"; return; }
  local at="webdav://127.0.0.1:$port"
  expect 1 "mv whose MOVE failed for a member" -- "$STRATA" mv "$at/src" "$at/dst"
  contains "mv: the member and its status" "$err" "MOVE failed for /src/f.txt with HTTP 412 (in the server's 207 Multi-Status, with 1 other failure)"
  one_error "mv multistatus" "$err"
  expect 1 "rm whose DELETE failed" -- "$STRATA" rm "$at/locked.txt"
  contains "rm: the member and its status" "$err" "DELETE failed for /locked.txt with HTTP 423"
  expect 0 "mv whose members all succeeded" -- "$STRATA" mv "$at/ok" "$at/dst-ok"
  kill "$stub_pid"; wait "$stub_pid" 2>/dev/null
}

case "$CASE" in
  multistatus) case_multistatus ;;
  lost-put) case_lost_put ;;
  commands) case_commands ;;
  messages) case_messages ;;
  killed-upload) case_killed_upload ;;
  killed-before-move) case_killed_before_move ;;
  *) echo "usage: webdav_cli_test.sh STRATA commands|messages|killed-upload|killed-before-move|lost-put|multistatus" >&2; exit 2 ;;
esac

echo "$checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
