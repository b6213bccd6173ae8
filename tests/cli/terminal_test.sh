#!/usr/bin/env bash
# Terminals get escaped text everywhere (issue 42, item 11): names holding ESC sequences or
# bidirectional controls (U+202E shows "exe.txt" as "txt.exe") are escaped in ls, cp's and
# rm's errors and -v lines, while --json keeps them exact; a -v run against a WebDAV server
# whose redirect carries terminal escapes never writes a raw ESC, C1 or U+202E to stderr;
# a state folder others can write to is refused, naming it, and nothing is copied.
#
# Usage: terminal_test.sh /path/to/strata
set -u
STRATA=$(readlink -f "$1")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d /tmp/strata-terminal-XXXXXX)
export STRATA_STATE_DIR="$work/.state" QT_QPA_PLATFORM=offscreen
stub_pid=
trap '[ -n "$stub_pid" ] && kill "$stub_pid" 2>/dev/null; rm -rf "$work"' EXIT
source "$HERE/../lib/checks.sh"

esc=$'\e'
rlo=$'\xe2\x80\xae'     # U+202E RIGHT-TO-LEFT OVERRIDE
lri=$'\xe2\x81\xa6'     # U+2066 LEFT-TO-RIGHT ISOLATE
csi=$'\xc2\x9b'         # U+009B, the C1 CSI
# raw_free WHAT TEXT: none of the bytes that drive or disguise a terminal is in TEXT.
raw_free() {
  local what=$1 text=$2 bad
  for bad in "$esc" "$rlo" "$lri" "$csi" $'\a'; do
    if [[ "$text" == *"$bad"* ]]; then
      fail "$what: a raw $(printf '%s' "$bad" | od -An -tx1 | tr -d ' ') reached the terminal: $(printf '%q' "$text")"
      return
    fi
  done
  pass
}

mkdir "$work/dir"
evil="invoice${rlo}fdp.exe"
ansi="${esc}[2J${esc}]0;owned${esc}\\name"
isolate="a${lri}b"
for n in "$evil" "$ansi" "$isolate"; do printf 'x' >"$work/dir/$n"; done

expect 0 "ls" -- "$STRATA" ls "$work/dir"
raw_free "ls" "$out"
contains "ls shows U+202E escaped" "$out" 'invoice\u202efdp.exe'
contains "ls shows U+2066 escaped" "$out" 'a\u2066b'
contains "ls shows ESC escaped" "$out" '\x1b[2J\x1b]0;owned\x1b\name'
expect 0 "ls -l" -- "$STRATA" ls -l "$work/dir"
raw_free "ls -l" "$out"
expect 0 "ls --json" -- "$STRATA" ls --json "$work/dir"
[ "$(jq -r --arg n "$evil" '[.entries[] | select(.name == $n)] | length' <<<"$out")" = 1 ] && pass \
  || fail "ls --json does not keep U+202E exact"
[ "$(jq -r --arg n "$ansi" '[.entries[] | select(.name == $n)] | length' <<<"$out")" = 1 ] && pass \
  || fail "ls --json does not keep ESC exact"

# Errors that name the file: cp onto an existing file, cp and rm of a missing one.
for n in "$evil" "$ansi"; do
  printf 'y' >"$work/$n.copy"
  expect 1 "cp onto an existing file" -- "$STRATA" cp "$work/dir/$n" "$work/$n.copy"
  raw_free "cp onto an existing file" "$err"
  expect 1 "cp of a missing name" -- "$STRATA" cp "$work/dir/missing-$n" "$work/elsewhere"
  raw_free "cp of a missing name" "$err"
  expect 1 "rm of a missing name" -- "$STRATA" -v rm "$work/dir/missing-$n"
  raw_free "rm -v of a missing name" "$err"
done
contains "rm's error shows the name encoded" "$err" 'missing-%1B%5B2J%1B%5D0;owned'
# -v lines name the file too.
expect 0 "-v stat" -- "$STRATA" -v stat "$work/dir/$evil"
raw_free "-v stat" "$err$out"
contains "-v line shows U+202E escaped" "$err" 'invoice\u202efdp.exe'

# A server's words: a redirect whose Location and reason hold escapes, with -v.
if command -v node >/dev/null; then
  node "$HERE/../webdav/webdav_stub.js" escape "$work/stub.log" >"$work/stub.port" 2>"$work/stub.err" &
  stub_pid=$!
  port=$(first_line "$work/stub.port") || { fail "the WebDAV stub did not start: $(cat "$work/stub.err")"; port=1; }
  for cmd in ls stat; do
    "$STRATA" -v "$cmd" "webdav://127.0.0.1:$port/dir/" >"$work/.out" 2>"$work/.err"
    rc=$?
    [ "$rc" -eq 1 ] && pass || fail "-v $cmd of a redirecting server: exit $rc"
    raw_free "-v $cmd of a redirecting server (stderr)" "$(cat "$work/.err")"
    raw_free "-v $cmd of a redirecting server (stdout)" "$(cat "$work/.out")"
    contains "-v $cmd: the -v line names the redirect" "$(cat "$work/.err")" 'x\x1b[2J'
    grep -q '^strata: stat ' "$work/.err" && pass || fail "-v $cmd wrote no -v line: $(cat "$work/.err")"
  done
else
  fail "node is missing (scripts/bootstrap test installs nodejs)"
fi

# A state folder others can write to, or another user's, is refused before anything is done.
printf 'data' >"$work/src"
for mode in 777 770 757; do
  state="$work/state-$mode"
  mkdir -p "$state" && chmod "$mode" "$state"
  expect 1 "cp with a $mode state folder" -- \
    env STRATA_STATE_DIR="$state" "$STRATA" cp "$work/src" "$work/dst-$mode"
  contains "state $mode: names the folder" "$err" "$state"
  contains "state $mode: says why" "$err" "others can write to it (mode 0$mode)"
  contains "state $mode: says what to do" "$err" "chmod 700"
  [ ! -e "$work/dst-$mode" ] && pass || fail "state $mode: the copy ran anyway"
  [ ! -e "$state/transfers" ] && pass || fail "state $mode: a journal folder was made in it"
done
# Its transfers folder, the same.
mkdir -p "$work/state-ok/transfers" && chmod 700 "$work/state-ok" && chmod 777 "$work/state-ok/transfers"
expect 1 "cp with a 0777 transfers folder" -- env STRATA_STATE_DIR="$work/state-ok" "$STRATA" cp "$work/src" "$work/dst-t"
contains "transfers 0777: names it" "$err" "$work/state-ok/transfers"
[ ! -e "$work/dst-t" ] && pass || fail "transfers 0777: the copy ran anyway"
# After chmod as told, it works.
chmod 700 "$work/state-ok/transfers"
expect 0 "cp once the folder is private" -- env STRATA_STATE_DIR="$work/state-ok" "$STRATA" cp "$work/src" "$work/dst-t"
# A missing state folder is made private.
expect 0 "cp with a new state folder" -- env STRATA_STATE_DIR="$work/new-state" "$STRATA" cp "$work/src" "$work/dst-n"
[ "$(stat -c %a "$work/new-state")" = 700 ] && pass || fail "a new state folder is $(stat -c %a "$work/new-state")"
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$work/theirs" && chown 65534 "$work/theirs" && chmod 755 "$work/theirs"
  expect 1 "cp with another user's state folder" -- env STRATA_STATE_DIR="$work/theirs" "$STRATA" cp "$work/src" "$work/dst-o"
  contains "another user's: says why" "$err" "belongs to another user"
fi
# The benchmark history: not kept in a folder others can write to, and said so.
mkdir -p "$work/data/strata/bench" && chmod 777 "$work/data/strata"
expect 0 "bench with a 0777 history folder" -- env XDG_DATA_HOME="$work/data" "$STRATA" bench memory://bench/ \
  --ops write --sizes 4KiB --count 1 --benchtime 10ms
contains "bench: says the run is not kept" "$err" "not kept in the history"
contains "bench: names the folder" "$err" "$work/data/strata"
[ -z "$(ls -A "$work/data/strata/bench")" ] && pass || fail "bench wrote into a 0777 history folder"
finish
