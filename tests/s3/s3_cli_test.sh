#!/usr/bin/env bash
# S3 faults as a user meets them through `strata`: one clear line on stderr, the right exit
# code, no secret printed, no half-written object. Every server is on 127.0.0.1 and is
# stopped by PID on exit.
#
# Usage: s3_cli_test.sh /path/to/strata CASE
#   messages       wrong keys and a missing bucket, as ls/stat/cat/cp report them (shared s3rver)
#   killed-upload  s3rver killed mid-upload, then the same copy against a live server (own s3rver)
#   multipart-cp   a 100 MiB copy to the shared s3rver is a multipart upload and round-trips;
#                  a name another client takes while the parts go up is not replaced
#   nbd-image      a 40 MiB disk image served by nbdkit goes to S3 (multipart, and as .zst) and
#                  back into another nbdkit export, byte-identical (shared s3rver, own nbdkit)
#   hostile-keys   a bucket (s3_stub.js store: keys kept exactly as given) holding "dst/..",
#                  "logs//b", "..", "a/./b": sync --delete, rm -r, ls, cp both ways act only
#                  inside what was named, warn about each such key once and always end
set -u
STRATA=$(readlink -f "$1")
CASE=$2
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
S3RVER_SH=$HERE/../servers/s3rver.sh
NBDKIT_SH=$HERE/../servers/nbdkit.sh
export QT_QPA_PLATFORM=offscreen
work=$(mktemp -d /tmp/strata-s3cli-XXXXXX)
export STRATA_STATE_DIR="$work/.state" # transfer journals of this run only
stub_pid=""
own_server=""
cleanup() {
  [ -n "$stub_pid" ] && kill "$stub_pid" 2>/dev/null
  [ -n "$own_server" ] && bash "$S3RVER_SH" stop "$own_server"
  [ -d "$work/nbd" ] && bash "$NBDKIT_SH" stopall "$work/nbd"
  rm -rf "$work"
}
trap cleanup EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
since() { # seconds since an $EPOCHREALTIME, with milliseconds
  local us=$(( ${EPOCHREALTIME/[.,]/} - ${1/[.,]/} ))
  printf '%d.%03d' $((us / 1000000)) $((us / 1000 % 1000))
}
# one_error WHAT STDERR: one error line, besides the summary cp prints after failed files.
one_error() {
  one_line "$1" "$(grep -v -e '^strata: [0-9]* of [0-9]* files failed' -e '^strata: [0-9]* of [0-9]* entries were left alone' <<<"$2")"
}

# The shared s3rver of the CTest fixture (strata_with_s3).
use_fixture() {
  [ -f "${STRATA_S3_ENVFILE:-}" ] || { echo "FAIL: no s3rver env file (run through CTest, fixture s3rver)"; exit 1; }
  set -a; source "$STRATA_S3_ENVFILE"; set +a
  case "$STRATA_S3_ENDPOINT" in http://127.0.0.1:[0-9]*) ;; *) echo "FAIL: $STRATA_S3_ENDPOINT is not on 127.0.0.1"; exit 1 ;; esac
}

# start_stub MODE [TARGET]: runs s3_stub.js; sets $stub_port and $stub_log.
start_stub() {
  stub_log=$work/stub-$1.jsonl
  node "$HERE/s3_stub.js" "$1" "$stub_log" "${2:-}" >"$work/stub.port" 2>"$work/stub.err" &
  stub_pid=$!
  stub_port=$(first_line "$work/stub.port") && return 0
  echo "FAIL: s3_stub.js $1 did not start: $(cat "$work/stub.err")"; exit 1
}

# multipart_requests: counts, in the proxy's log, the uploads initiated, distinct parts
# sent and uploads completed; sets $initiated, $parts and $completed.
multipart_requests() {
  initiated=$(jq -r 'select(.method=="POST" and (.url|endswith("?uploads="))) | .url' "$stub_log" | wc -l)
  parts=$(jq -r 'select(.method=="PUT" and (.url|contains("partNumber="))) | .url' "$stub_log" | sort -u | wc -l)
  completed=$(jq -r 'select(.method=="POST" and (.url|contains("?uploadId="))) | .url' "$stub_log" | wc -l)
}

case_messages() {
  use_fixture
  local at="?endpoint=$STRATA_S3_ENDPOINT" secret="Zq7-wrong-SECRET-do-not-print-4f1e"
  # Wrong keys: refused, said so in one line, and the secret never printed (-v logs included).
  local wrong=(env AWS_ACCESS_KEY_ID=WRONG AWS_SECRET_ACCESS_KEY="$secret" "$STRATA")
  expect 1 "wrong keys" -- "${wrong[@]}" ls "s3://strata-test/$at"
  contains "wrong keys" "$err" "credentials"
  lacks "wrong keys secret" "$err$out" "$secret"
  one_line "wrong keys" "$err"
  expect 1 "wrong keys, cat" -- "${wrong[@]}" cat "s3://strata-test/file.txt$at"
  contains "wrong keys, cat" "$err" "check the credentials"
  lacks "wrong keys, cat secret" "$err$out" "$secret"
  expect 1 "wrong keys, -v log" -- "${wrong[@]}" -v ls "s3://strata-test/$at"
  lacks "wrong keys, -v log secret" "$err$out" "$secret"

  # A missing bucket is named, whatever the command.
  local bucket="s3://no-such-bucket-xyz" sentence="the bucket 'no-such-bucket-xyz' does not exist"
  printf 'data' >"$work/small.txt"
  local what
  for what in "ls $bucket/$at" "stat $bucket/dir/file.txt$at" "cat $bucket/file.txt$at" \
    "cp $work/small.txt $bucket/file.txt$at"; do
    # shellcheck disable=SC2086 # the words are the command line
    expect 1 "${what%% *} in a missing bucket" -- "$STRATA" $what || continue
    contains "${what%% *} in a missing bucket" "$err" "$sentence"
    one_error "${what%% *} in a missing bucket" "$err"
  done
}

case_killed_upload() {
  # Our own s3rver: this one gets killed, the shared fixture must not.
  own_server=$work/s3rver
  local endpoint pid data
  endpoint=$(bash "$S3RVER_SH" start "$own_server") || { echo "FAIL: cannot start s3rver"; exit 1; }
  set -a; source "$own_server/s3rver.env"; set +a # its keys
  pid=$(cat "$own_server/s3rver.pid")
  data=$(cat "$own_server/s3rver.datadir")
  head -c 64M /dev/urandom >"$work/big.bin"
  # 64 MiB at 16 MB/s: ~4 s. The first 16 MiB are held for a single PUT, then 8 MiB
  # parts go out; the server dies after ~2 s, parts in flight.
  local key=killed/big.bin
  timeout 40 "$STRATA" cp --bwlimit 16M "$work/big.bin" "s3://strata-test/$key?endpoint=$endpoint" \
    >"$work/cp.out" 2>"$work/cp.err" &
  local cp_pid=$! t0=$EPOCHREALTIME
  # Killed once a part has arrived (the upload is open on the server), not after a guess.
  for ((i = 0; i < 400; i++)); do
    [ -n "$(find "$data/strata-test/._S3rver_uploads" -type f -regex '.*/[0-9]+' 2>/dev/null | head -1)" ] && break
    sleep 0.05
  done
  kill -0 "$cp_pid" 2>/dev/null && pass || fail "the copy ended before the server could be killed"
  kill -KILL "$pid"
  wait "$cp_pid"
  local rc=$?
  echo "killed-upload: strata exited $rc $(since "$t0") s after the copy began: $(cat "$work/cp.err")"
  [ "$rc" -ne 0 ] && pass || fail "strata cp succeeded although the server was killed"
  err=$(cat "$work/cp.err")
  contains "killed server" "$err" "cannot write"
  contains "killed server kind" "$err" "a network error occurred"
  contains "killed server names the host" "$err" "${endpoint#http://}"
  one_error "killed server" "$err"
  # s3rver cannot restart on the same data (s3rver.sh starts fresh), so the store is
  # inspected on disk now: s3rver writes the object file only at CompleteMultipartUpload,
  # and the parts it had received wait in ._S3rver_uploads. The parts prove the kill came
  # mid-upload; the missing object file proves nothing half-written appeared.
  local parts
  parts=$(find "$data/strata-test/._S3rver_uploads" -type f -regex '.*/[0-9]+' 2>/dev/null | wc -l)
  [ "$parts" -ge 1 ] && pass || fail "no part reached the server before the kill: not a mid-upload kill"
  [ -z "$(find "$data" -name "big.bin._S3rver_object*")" ] && pass \
    || fail "an object appeared under $key although the upload never completed"

  # The same copy against a live server (a fresh one: a new port) completes, byte-identical.
  endpoint=$(bash "$S3RVER_SH" start "$own_server") || { echo "FAIL: cannot restart s3rver"; exit 1; }
  expect 0 "copy after restart" -- "$STRATA" cp --bwlimit 16M "$work/big.bin" "s3://strata-test/$key?endpoint=$endpoint"
  expect 0 "copy back" -- "$STRATA" cp "s3://strata-test/$key?endpoint=$endpoint" "$work/back.bin"
  cmp -s "$work/big.bin" "$work/back.bin" && pass || fail "the object is not byte-identical after the restart"
}

case_multipart_cp() {
  use_fixture
  # Through a recording proxy to the shared s3rver: its log shows the requests (s3rver gives
  # multipart objects a plain MD5 ETag, so the object itself does not tell).
  start_stub proxy "$STRATA_S3_ENDPOINT"
  local key="s3-multipart-$$-$RANDOM/big.bin"
  head -c 100M /dev/urandom >"$work/big.bin"
  local t0=$EPOCHREALTIME
  # Under strace, counting the threads started: parts go out on a bounded pool (4), not a
  # thread each; a one-PUT copy shows what the rest of a copy starts.
  command -v strace >/dev/null || { echo "FAIL: strace is missing (scripts/bootstrap test installs it)"; exit 1; }
  expect 0 "cp 100 MiB" -- strace -f -qq -e trace=clone,clone3 -o "$work/clones.big" \
    "$STRATA" cp "$work/big.bin" "s3://strata-test/$key?endpoint=http://127.0.0.1:$stub_port"
  echo "multipart-cp: 100 MiB up in $(since "$t0") s (under strace)"
  head -c 1M /dev/urandom >"$work/small.bin"
  expect 0 "cp 1 MiB" -- strace -f -qq -e trace=clone,clone3 -o "$work/clones.small" \
    "$STRATA" cp "$work/small.bin" "s3://strata-test/$key.small?endpoint=$STRATA_S3_ENDPOINT"
  local big small
  big=$(grep -c clone "$work/clones.big"); small=$(grep -c clone "$work/clones.small")
  echo "multipart-cp: threads started: $big for 13 parts, $small for one PUT"
  [ "$big" -le $((small + 4)) ] && pass || fail "13 parts started $big threads (one PUT: $small): not a pool of 4"
  multipart_requests
  # 8 MiB parts: 12 full ones and a 4 MiB tail.
  [ "$initiated" -eq 1 ] && [ "$parts" -eq 13 ] && [ "$completed" -eq 1 ] && pass \
    || fail "not one multipart upload of 13 parts: $initiated initiated, $parts parts, $completed completed"
  # The copy's plan found nothing at the name (a HEAD): the upload starts without a second
  # look, and looks again only beside its last parts.
  local heads
  heads=$(jq -r 'select(.url|contains("big.bin")) | .method' "$stub_log" | sed '/^POST$/q' | grep -c '^HEAD$')
  [ "$heads" -eq 1 ] && pass || fail "$heads HEADs of the name before the upload began, not the plan's one"
  expect 0 "cp back" -- "$STRATA" cp "s3://strata-test/$key?endpoint=$STRATA_S3_ENDPOINT" "$work/back.bin"
  cmp -s "$work/big.bin" "$work/back.bin" && pass || fail "the 100 MiB object is not byte-identical"
  expect 0 "rm" -- "$STRATA" rm "s3://strata-test/$key?endpoint=$STRATA_S3_ENDPOINT" "s3://strata-test/$key.small?endpoint=$STRATA_S3_ENDPOINT"

  # The name taken by another client while the parts go up (under a new prefix, where the
  # upload began without a look): the upload fails and says so, theirs is kept, and the
  # unfinished upload is aborted.
  local taken="s3-taken-$$-$RANDOM/new/taken.bin" at="?endpoint=http://127.0.0.1:$stub_port"
  head -c 24M /dev/urandom >"$work/taken.bin"
  "$STRATA" cp --bwlimit 16M "$work/taken.bin" "s3://strata-test/$taken$at" >"$work/taken.out" 2>"$work/taken.err" &
  local cp_pid=$! i rc
  for ((i = 0; i < 200; i++)); do
    jq -e --arg k "$taken" 'select(.method=="PUT" and (.url|contains($k)) and (.url|contains("partNumber=")))' \
      "$stub_log" >/dev/null 2>&1 && break
    sleep 0.05
  done
  printf theirs >"$work/theirs.txt"
  expect 0 "another client takes the name" -- "$STRATA" cp "$work/theirs.txt" "s3://strata-test/$taken?endpoint=$STRATA_S3_ENDPOINT"
  wait "$cp_pid" && rc=0 || rc=$?
  [ "$rc" -eq 1 ] && pass || fail "an upload whose name was taken meanwhile ended with $rc: $(cat "$work/taken.err")"
  contains "taken meanwhile: said" "$(cat "$work/taken.err")" "something has that name"
  expect 0 "theirs" -- "$STRATA" cat "s3://strata-test/$taken?endpoint=$STRATA_S3_ENDPOINT"
  [ "$out" = theirs ] && pass || fail "the object that took the name was replaced: $(head -c 40 <<<"$out")"
  jq -e --arg k "$taken" 'select(.method=="DELETE" and (.url|contains($k)) and (.url|contains("uploadId=")))' \
    "$stub_log" >/dev/null && pass || fail "the unfinished upload was not aborted"
  expect 0 "rm theirs" -- "$STRATA" rm "s3://strata-test/$taken?endpoint=$STRATA_S3_ENDPOINT"
}

case_nbd_image() {
  use_fixture
  command -v nbdkit >/dev/null || { echo "FAIL: nbdkit is not installed (scripts/bootstrap test installs it)"; exit 1; }
  start_stub proxy "$STRATA_S3_ENDPOINT"
  local at="?endpoint=http://127.0.0.1:$stub_port" key="nbd-image-$$-$RANDOM/disk.img" src dst
  # 40 MiB: four 3 MiB runs of data, holes between them.
  truncate -s 40M "$work/in.img"
  for mib in 0 9 17 30; do head -c 3M /dev/urandom | dd of="$work/in.img" bs=1M seek=$mib conv=notrunc status=none; done
  src=$(bash "$NBDKIT_SH" start "$work/nbd" src memory 40M 2>"$work/nbd.log") \
    && dst=$(bash "$NBDKIT_SH" start "$work/nbd" dst memory 40M 2>>"$work/nbd.log") \
    || { echo "FAIL: nbdkit did not start: $(cat "$work/nbd.log")"; exit 1; }
  expect 0 "file -> NBD" -- "$STRATA" cp --overwrite "$work/in.img" "$src"

  expect 0 "NBD -> S3" -- "$STRATA" cp "$src" "s3://strata-test/$key$at"
  multipart_requests
  # 8 MiB parts: five of them.
  [ "$initiated" -eq 1 ] && [ "$parts" -eq 5 ] && [ "$completed" -eq 1 ] && pass \
    || fail "NBD -> S3 is not one multipart upload of 5 parts: $initiated initiated, $parts parts, $completed completed"
  expect 0 "stat of the object" -- "$STRATA" stat --json "s3://strata-test/$key$at"
  [ "$(jq -r .size <<<"$out")" = 41943040 ] && pass || fail "the object has $(jq -r .size <<<"$out") bytes, not 41943040"

  expect 0 "S3 -> NBD" -- "$STRATA" cp --overwrite "s3://strata-test/$key$at" "$dst"
  expect 0 "NBD -> file" -- "$STRATA" cp "$dst" "$work/back.img"
  cmp -s "$work/in.img" "$work/back.img" && pass || fail "NBD -> S3 -> NBD changed the image"

  # Compressed on the way up, decompressed on the way down; the holes cost nothing to send.
  expect 0 "NBD -> S3 .zst" -- "$STRATA" cp "$src" "s3://strata-test/$key.zst$at"
  expect 0 "stat of the .zst" -- "$STRATA" stat --json "s3://strata-test/$key.zst$at"
  local zsize
  zsize=$(jq -r .size <<<"$out")
  [ "$zsize" -gt $((12 << 20)) ] && [ "$zsize" -lt $((13 << 20)) ] && pass \
    || fail "the .zst of 12 MiB of random data and 28 MiB of holes has $zsize bytes"
  expect 0 "S3 .zst -> NBD" -- "$STRATA" cp --overwrite "s3://strata-test/$key.zst$at" "$dst"
  expect 0 "NBD -> file again" -- "$STRATA" cp --overwrite "$dst" "$work/back.img"
  cmp -s "$work/in.img" "$work/back.img" && pass || fail "NBD -> S3 .zst -> NBD changed the image"
  expect 0 "rm" -- "$STRATA" rm "s3://strata-test/$key$at" "s3://strata-test/$key.zst$at"
}

# keys: the stub's keys now, one per line (it writes them on every change).
keys() { jq -r '.[]' "$work/bucket.json.keys"; }
has_key() { # has_key WHAT KEY
  if keys | grep -qxF -- "$2"; then pass; else fail "$1: the key '$2' is gone; the bucket holds: $(keys | tr '\n' ' ')"; fi
}
lacks_key() {
  if keys | grep -qxF -- "$2"; then fail "$1: the key '$2' is still there"; else pass; fi
}
# deletes_outside WHAT PREFIX: fails when the stub saw a DELETE of a key not below PREFIX
# (DeleteObjects bodies are read back from the store's key list instead: see has_key).
deletes_outside() {
  local bad
  bad=$(jq -r 'select(.method=="DELETE") | .url' "$stub_log" | grep -v "^/b/$2" || true)
  if [ -z "$bad" ]; then pass; else fail "$1: DELETE outside $2: $bad"; fi
}

case_hostile_keys() {
  export AWS_ACCESS_KEY_ID=STUB AWS_SECRET_ACCESS_KEY=STUB AWS_REGION=us-east-1
  jq -n '{bucket: "b", objects: {
    "dst/..": "dot-dot", "dst/old.txt": "extra", "dst/keep/../x": "climbs", "dst/same.txt": "same",
    "other/keep.txt": "keep", "top.txt": "top", "..": "root-dotdot",
    "logs//b": "double", "logs/a.txt": "a", "logs/sub/c.txt": "c", "logs/./d": "dot",
    "liar/huge.bin": "small"}, listedSizes: {"liar/huge.bin": 4611686018427387904}}' >"$work/bucket.json"
  start_stub store "$work/bucket.json"
  local at="?endpoint=http://127.0.0.1:$stub_port"
  mkdir -p "$work/site"
  printf same >"$work/site/same.txt"
  printf new >"$work/site/new.txt"

  # ls: each such key named once as a warning, never listed as another path.
  expect 0 "ls of the root" -- timeout 20 "$STRATA" ls "s3://b/$at"
  contains "ls warns about '..'" "$err" "skipped '..'"
  lacks "ls shows no '..'" "$out" ".."
  expect 0 "ls of dst" -- timeout 20 "$STRATA" ls "s3://b/dst$at"
  contains "ls dst warns about dst/.." "$err" "skipped 'dst/..'"
  [ "$(grep -c "skipped 'dst/..'" <<<"$err")" -eq 1 ] && pass || fail "dst/.. warned about more than once: $err"

  # sync --delete removes the extra inside dst and nothing outside it.
  : >"$stub_log"
  # The extra folder "keep" holds only "dst/keep/../x": it cannot be removed (its key is
  # no path), and that is said; the rest of the sync is done.
  expect 1 "sync --delete" -- timeout 30 "$STRATA" sync --delete "$work/site" "s3://b/dst$at"
  contains "sync warns about dst/.." "$err" "skipped 'dst/..'"
  contains "sync says why keep stays" "$err" "it still holds 'dst/keep/../'"
  lacks_key "sync --delete" "dst/old.txt"
  has_key "sync --delete" "dst/new.txt"
  for k in "dst/.." "dst/keep/../x" "other/keep.txt" "top.txt" ".." "logs/a.txt" "logs//b"; do
    has_key "sync --delete kept" "$k"
  done
  deletes_outside "sync --delete" "dst/"

  # rm -r of a prefix holding "logs//b" and "logs/./d": ends, removes what it can name,
  # leaves those two and says why.
  : >"$stub_log"
  expect 1 "rm -r logs" -- timeout 30 "$STRATA" rm -r "s3://b/logs$at"
  contains "rm -r names the prefix of logs//b" "$err" "skipped 'logs//'"
  contains "rm -r names the prefix of logs/./d" "$err" "skipped 'logs/./'"
  lacks_key "rm -r logs" "logs/a.txt"
  lacks_key "rm -r logs" "logs/sub/c.txt"
  for k in "logs//b" "logs/./d" "dst/.." "other/keep.txt" "top.txt" ".."; do
    has_key "rm -r logs kept" "$k"
  done
  deletes_outside "rm -r logs" "logs/"

  # rm -r --dry-run of the bucket names what would go and removes nothing.
  local before
  before=$(keys)
  expect 0 "rm -r --dry-run" -- timeout 30 "$STRATA" rm -r --dry-run "s3://b/$at"
  contains "dry run names other/keep.txt" "$out" "would remove s3://b/other/keep.txt"
  lacks "dry run names no dot key" "$out" "/.."
  [ "$(keys)" = "$before" ] && pass || fail "rm -r --dry-run changed the bucket"

  # cp -r both ways: nothing lands outside the local destination, the odd keys are refused.
  expect 1 "cp -r s3 -> file" -- timeout 30 "$STRATA" cp -r "s3://b/dst$at" "$work/down"
  contains "cp -r refuses dst/.." "$err" "dst/.."
  [ -f "$work/down/same.txt" ] && [ -f "$work/down/new.txt" ] && pass || fail "cp -r did not copy the plain keys"
  [ "$(find "$work/down" -type f | wc -l)" -eq 2 ] && pass || fail "cp -r wrote: $(find "$work/down" -type f)"
  # A listing that says 4 EiB for a 5-byte object: a clear failure in bounded memory (2 GiB
  # of address space here), nothing at the final name.
  expect 1 "cp -r of a 4 EiB liar" -- sh -c 'ulimit -v 2097152; exec timeout 30 "$@"' sh "$STRATA" cp -r "s3://b/liar$at" "$work/liar"
  lacks "the liar's copy did not crash" "$err" "bad_alloc"
  contains "the liar's copy says why" "$err" "huge.bin"
  [ ! -e "$work/liar/huge.bin" ] && pass || fail "a copy of the liar left $work/liar/huge.bin"
  expect 0 "cp -r file -> s3" -- timeout 30 "$STRATA" cp -r "$work/site" "s3://b/up$at"
  has_key "cp -r file -> s3" "up/new.txt"
  has_key "cp -r file -> s3 kept" "dst/.."
}

case "$CASE" in
  hostile-keys) case_hostile_keys ;;
  messages) case_messages ;;
  killed-upload) case_killed_upload ;;
  multipart-cp) case_multipart_cp ;;
  nbd-image) case_nbd_image ;;
  *) echo "usage: s3_cli_test.sh STRATA messages|killed-upload|multipart-cp|nbd-image|hostile-keys" >&2; exit 2 ;;
esac

echo "$checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
