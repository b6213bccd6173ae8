#!/usr/bin/env bash
# An FTP server that lies (issue 28): its listings hold names that are paths
# (../../etc/passwd, a/b, /etc/shadow, "..", "sub/..", ../escape.txt). No real server sends
# them, so ftp_stub.js does, on 127.0.0.1, in MLSD form and again with LIST only. `strata`
# lists, copies and removes the folder inside a bubblewrap sandbox whose file system is
# read-only but for a scratch folder: the names are shown as skipped, never followed, and
# every command the server got names a path inside the folder asked for.
#
# Usage: ftp_hostile_test.sh /path/to/strata
set -u
STRATA=$(readlink -f "$1")
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v bwrap >/dev/null || { echo "FAIL: bwrap is missing (scripts/bootstrap test installs bubblewrap)"; exit 1; }
command -v node >/dev/null || { echo "FAIL: node is missing (scripts/bootstrap test installs nodejs)"; exit 1; }
command -v jq >/dev/null || { echo "FAIL: jq is missing (scripts/bootstrap test installs jq)"; exit 1; }
work=$(mktemp -d /tmp/strata-ftp-hostile-XXXXXX)
stub_pid=""
cleanup() {
  [ -n "$stub_pid" ] && kill "$stub_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
source "$HERE/../lib/checks.sh"

s=$work/scratch
mkdir -p "$s"
# sandboxed CMD...: the whole file system read-only but $s; loopback networking kept (the
# stub listens on the host's 127.0.0.1).
sandboxed() {
  bwrap --ro-bind / / --dev /dev --proc /proc --bind "$s" "$s" \
    --unshare-all --share-net --die-with-parent --setenv STRATA_STATE_DIR "$s/state" "$@"
}
if sandboxed sh -c 'touch /strata-sandbox-probe' 2>/dev/null || sandboxed touch "$work/probe" 2>/dev/null; then
  echo "FAIL: the sandbox's / is writable; not running the commands"; exit 1
fi
export STRATA_FTP_HOST=127.0.0.1 STRATA_FTP_PASSWORD=stub-password

start_stub() { # start_stub [list]
  [ -n "$stub_pid" ] && kill "$stub_pid" 2>/dev/null
  : >"$work/stub.port"
  node "$HERE/ftp_stub.js" "$work/stub.log" "$@" >"$work/stub.port" 2>"$work/stub.err" &
  stub_pid=$!
  port=$(first_line "$work/stub.port") || { echo "FAIL: the stub did not start: $(cat "$work/stub.err")"; exit 1; }
  uri="ftp://strata@127.0.0.1:$port"
}

# commands_outside: the commands the stub got that name a path (an argument starting with
# '/') other than /dir, /dir/good.txt, /dir/sub and /dir/sub/ok.txt; a listing of / (the
# parent, to stat /dir where there is no MLST) aside.
commands_outside() {
  jq -r . "$work/stub.log" | awk '$2 ~ /^\// { p = $2; sub(/\/$/, "", p);
    if ($1 == "LIST" && p == "") next;
    if (p != "/dir" && p != "/dir/good.txt" && p != "/dir/sub" && p != "/dir/sub/ok.txt") print }'
}

for mode in mlsd list; do
  if [ "$mode" = list ]; then start_stub list; else start_stub; fi
  expect 0 "$mode: ls" -- sandboxed "$STRATA" ls "$uri/dir"
  contains "$mode: ls shows the file" "$out" "good.txt"
  contains "$mode: ls shows the folder" "$out" "sub/"
  for name in passwd shadow "a/b" escape; do lacks "$mode: ls hides $name" "$out" "$name"; done
  contains "$mode: ls says what it skipped" "$err" "skipped '../../etc/passwd'"
  contains "$mode: ls says what it skipped" "$err" "skipped '/etc/shadow'"
  lacks "$mode: the password is not printed" "$out$err" "stub-password"

  rm -rf "${s:?}/copy"
  # Exit 1: the copy is not whole, and says so; a second run would not change that.
  expect 1 "$mode: cp -r" -- sandboxed "$STRATA" cp -r "$uri/dir" "$s/copy"
  contains "$mode: cp -r says what it skipped" "$err" "skipped '../escape.txt'"
  contains "$mode: cp -r says the skipped names stay" "$err" "5 of 7 entries were left alone"
  lacks "$mode: cp -r does not ask for a retry" "$err" "Run the same command again"
  [ "$(cat "$s/copy/good.txt" 2>/dev/null)" = goodbye ] && pass || fail "$mode: good.txt was not copied"
  [ "$(cat "$s/copy/sub/ok.txt" 2>/dev/null)" = 'ok!' ] && pass || fail "$mode: sub/ok.txt was not copied"
  got=$(cd "$s/copy" && find . -mindepth 1 | sort | tr '\n' ' ')
  [ "$got" = "./good.txt ./sub ./sub/ok.txt " ] && pass || fail "$mode: the copy holds more than the real files: $got"
  # Nothing anywhere else in the scratch folder (the sandbox stops writes outside it).
  others=$(cd "$s" && find . -mindepth 1 -maxdepth 1 ! -name copy ! -name state | tr '\n' ' ')
  [ -z "$others" ] && pass || fail "$mode: cp -r wrote beside the copy: $others"

  expect 0 "$mode: rm -r" -- sandboxed "$STRATA" rm -r "$uri/dir"
  removals=$(jq -r . "$work/stub.log" | grep -E '^(DELE|RMD|RNFR|RNTO|STOR|APPE|MKD) ' | sort | tr '\n' ',')
  [ "$removals" = "DELE /dir/good.txt,DELE /dir/sub/ok.txt,RMD /dir,RMD /dir/sub," ] && pass \
    || fail "$mode: rm -r sent other changes than the real names': $removals"
  outside=$(commands_outside)
  [ -z "$outside" ] && pass || fail "$mode: commands named paths outside the folder: $outside"
  grep -q '\.\.' "$work/stub.log" && fail "$mode: a command held '..': $(grep '\.\.' "$work/stub.log" | head -3)" || pass
done

finish
