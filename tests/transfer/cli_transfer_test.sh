#!/usr/bin/env bash
# `strata cp`, `mv` and `sync` end to end on real files: trees, --json reports, kill -9
# and Ctrl-C followed by a rerun that resumes, dry runs, moves across backends, --verify
# and .zst round trips. Nothing may be left behind: no temporary file, no journal.
# Usage: cli_transfer_test.sh /path/to/strata
set -u
STRATA=$(readlink -f "$1")
export QT_QPA_PLATFORM=offscreen
work=$(mktemp -d /tmp/strata-cli-transfer-XXXXXX)
export STRATA_STATE_DIR="$work/.state" # this run's journals only
journals="$STRATA_STATE_DIR/transfers"
background=""
cleanup() {
  [ -n "$background" ] && kill -9 "$background" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
failures=0
checks=0

ok() { checks=$((checks + 1)); }
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { # check DESCRIPTION COMMAND...: passes when the command succeeds
  local what=$1; shift
  if "$@"; then ok; else bad "$what"; fi
}
# run WANT DESCRIPTION COMMAND...: keeps stdout in $out, stderr in $err.
run() {
  local want=$1 what=$2; shift 2
  "$@" >"$work/.out" 2>"$work/.err"
  local rc=$?
  out=$(cat "$work/.out"); err=$(cat "$work/.err")
  if [ "$rc" -ne "$want" ]; then
    bad "$what: exit $rc, wanted $want"; printf '  stdout: %s\n  stderr: %s\n' "$(head -c 600 <<<"$out")" "$(head -c 600 <<<"$err")"
    return 1
  fi
  ok
}
field() { jq -r "$1" <<<"$out"; } # a field of the last --json report
no_leftovers() { # no_leftovers DIR: no temporary or partial file of ours in DIR
  local left
  left=$(find "$1" -name '.strata*' 2>/dev/null)
  if [ -z "$left" ]; then ok; else bad "temporary files left in $1: $left"; fi
}
no_journal() {
  local left
  left=$(ls -A "$journals" 2>/dev/null)
  if [ -z "$left" ]; then ok; else bad "$1: journals left: $left"; fi
}
# wait_for_part: until a running copy has logged a finished part in its journal (10 s).
wait_for_part() {
  for _ in $(seq 200); do
    grep -qs '^P ' "$journals"/*.transfer.log && return 0
    sleep 0.05
  done
  return 1
}

# --- a tree: 60 files of 0–64 KiB in nested directories, some names with spaces
mkdir -p "$work/src/tree"
for d in 0 1 2 "three and a half"; do
  mkdir -p "$work/src/tree/$d/deeper"
  for f in $(seq 0 6); do
    head -c $(( (RANDOM * 7 + f) % 65537 )) /dev/urandom >"$work/src/tree/$d/file $f.bin"
    head -c $(( RANDOM % 4096 )) /dev/urandom >"$work/src/tree/$d/deeper/f$f"
  done
done
: >"$work/src/tree/empty"
files=$(find "$work/src/tree" -type f | wc -l)
dirs=$(find "$work/src/tree" -type d | wc -l)
bytes=$(find "$work/src/tree" -type f -printf '%s\n' | awk '{s += $1} END {print s}')

mkdir -p "$work/dst"
run 0 "cp -r" "$STRATA" cp -r "$work/src/tree" "$work/dst/" && check "cp -r copies the tree exactly" diff -r "$work/src/tree" "$work/dst/tree"
[ -z "$out" ] && ok || bad "cp prints nothing on success without --json: $out"

run 0 "cp -r --json" "$STRATA" cp -r --json "$work/src/tree" "file://$work/dst2"
check "json state" [ "$(field .state)" = completed ]
check "json files_copied" [ "$(field .files_copied)" = "$files" ]
check "json files_failed" [ "$(field .files_failed)" = 0 ]
check "json bytes_total" [ "$(field .bytes_total)" = "$bytes" ]
check "json bytes_copied" [ "$(field '.bytes_copied + .bytes_resumed')" = "$bytes" ]
check "json dirs_created" [ "$(field .dirs_created)" = "$dirs" ]
check "json failures" [ "$(field '.failures | length')" = 0 ]
check "json job id" [ -n "$(field .job)" ]
check "cp -r to a new name" diff -r "$work/src/tree" "$work/dst2"

# "dir/." is the directory's contents (cp's rule): into an existing directory, a new one,
# and from "." itself; a file with "/." is refused.
mkdir -p "$work/contents"
run 0 "cp -r dir/. dst/" "$STRATA" cp -r "$work/src/tree/." "$work/contents/" \
  && check "dir/. copies the contents, not the directory" diff -r "$work/src/tree" "$work/contents"
check "no tree/ level created" [ ! -e "$work/contents/tree" ]
run 0 "cp -r dir/. new" "$STRATA" cp -r "$work/src/tree/." "$work/contents-new" \
  && check "dir/. into a new name" diff -r "$work/src/tree" "$work/contents-new"
mkdir -p "$work/contents-dot"
run 0 "cp -r . dst/" bash -c 'cd "$1" && "$2" cp -r . "$3/"' _ "$work/src/tree" "$STRATA" "$work/contents-dot" \
  && check "'.' copies the current directory's contents" diff -r "$work/src/tree" "$work/contents-dot"
run 1 "cp file/." "$STRATA" cp -r "$work/src/tree/empty/." "$work/nowhere"
check "file/. refused, nothing written" [ ! -e "$work/nowhere" ]

run 0 "cp -r --verify" "$STRATA" cp -r --verify --json "$work/src/tree" "$work/dst3"
check "every file verified" [ "$(field .files_verified)" = "$files" ]
check "verified copy is exact" diff -r "$work/src/tree" "$work/dst3"

run 1 "cp onto an existing tree" "$STRATA" cp -r --json "$work/src/tree" "$work/dst/"
check "existing files fail one by one" [ "$(field .files_failed)" = "$files" ]
check "each failure says already exists" [ "$(field '[.failures[] | select(.kind == "already-exists")] | length')" = "$files" ]
run 0 "cp -r --skip-existing" "$STRATA" cp -r -n --json "$work/src/tree" "$work/dst/"
check "skip-existing skips all" [ "$(field .files_skipped)" = "$files" ]
no_leftovers "$work/dst"
no_journal "after the trees"

# --- kill -9 in the middle of a large copy, then the same command again resumes it
head -c 300M /dev/urandom >"$work/src/big.bin"
mkdir -p "$work/out"
big_cp=("$STRATA" cp --bwlimit 60M --part-size 8M --json "$work/src/big.bin" "$work/out/big.bin")
"${big_cp[@]}" >/dev/null 2>&1 &
background=$!
if wait_for_part; then ok; else bad "no part of the large copy finished within 10 s"; fi
kill -9 "$background"; wait "$background" 2>/dev/null; background=""
check "killed: nothing under the final name" [ ! -e "$work/out/big.bin" ]
check "killed: the journal stays" [ -n "$(ls -A "$journals" 2>/dev/null)" ]
check "killed: the partial file stays for the resume" [ -n "$(find "$work/out" -name '.strata-resume-*')" ]
run 0 "rerun after kill -9" "${big_cp[@]}"
contains_resuming() { [[ "$err" == *resuming* ]]; }
check "rerun says it resumes" contains_resuming
resumed=$(field .bytes_resumed)
check "rerun resumed bytes ($resumed)" [ "${resumed:-0}" -gt 0 ]
check "rerun did not copy everything again" [ "$(field .bytes_copied)" -lt $((300 << 20)) ]
check "resumed copy is exact" cmp -s "$work/src/big.bin" "$work/out/big.bin"
no_leftovers "$work/out"
no_journal "after the resumed copy"

# --- a tree copied to a new name, killed once the new folder exists: the rerun copies into
# the same place (as the new name, not into it as a subfolder, though it exists now)
mkdir -p "$work/src/slow"
for i in $(seq 1 40); do head -c 100000 /dev/urandom >"$work/src/slow/f$i"; done
tree_cp=("$STRATA" cp -r --jobs 1 --bwlimit 1M --json "$work/src/slow" "$work/out/slow-copy")
"${tree_cp[@]}" >/dev/null 2>&1 &
background=$!
for _ in $(seq 1 200); do [ -n "$(ls -A "$work/out/slow-copy" 2>/dev/null)" ] && break; sleep 0.05; done
sleep 0.5
kill -9 "$background"; wait "$background" 2>/dev/null; background=""
check "killed tree copy: some files arrived" [ -n "$(ls -A "$work/out/slow-copy" 2>/dev/null)" ]
check "killed tree copy: not all of them" [ "$(ls "$work/out/slow-copy" | wc -l)" -lt 40 ]
run 0 "tree rerun after kill -9" "${tree_cp[@]/1M/1G}"
check "tree rerun says it resumes" contains_resuming
check "tree rerun lands in the same place" diff -r "$work/src/slow" "$work/out/slow-copy"
check "tree rerun made no nested copy" [ ! -e "$work/out/slow-copy/slow" ]
no_leftovers "$work/out"
no_journal "after the resumed tree"

# --- names that differ only in case, to a destination that ignores case (--ignore-case;
# found out by itself on FAT, exFAT, NTFS, SMB and casefold folders): folders merge under
# the first spelling, colliding files after the first are refused, each in one sentence
mkdir -p "$work/src/cased/Docs/Sub" "$work/src/cased/docs/sub"
echo upper >"$work/src/cased/README"; echo lower >"$work/src/cased/readme"
echo c >"$work/src/cased/Docs/x"; echo d >"$work/src/cased/docs/x"; echo e >"$work/src/cased/docs/y"
echo f >"$work/src/cased/docs/sub/z"
run 1 "cp -r --ignore-case with colliding names" "$STRATA" cp -r --ignore-case --json "$work/src/cased" "$work/out/cased"
check "two files refused" [ "$(field .files_failed)" = 2 ]
check "four files copied" [ "$(field .files_copied)" = 4 ]
check "each refusal names both files" [ "$(field '[.failures[] | select(.message | test("readme: .*ignores the case.*README$") or test("docs/x: .*ignores the case.*Docs/x$"))] | length')" = 2 ]
check "folders merged under the first spelling" [ "$(cd "$work/out/cased" && find . | sort | tr '\n' ' ')" = ". ./Docs ./Docs/Sub ./Docs/Sub/z ./Docs/x ./Docs/y ./README " ]
check "the first of each collision won" [ "$(cat "$work/out/cased/README" "$work/out/cased/Docs/x")" = "$(printf 'upper\nc')" ]
no_leftovers "$work/out"
rm -rf "$STRATA_STATE_DIR/transfers" # the failed job's journal: not resumed here
run 0 "cp -r of the same names to a case-sensitive folder" "$STRATA" cp -r --json "$work/src/cased" "$work/out/cased-exact"
check "every file copied where case matters" diff -r "$work/src/cased" "$work/out/cased-exact"
check "the journal folder is made again" [ -d "$journals" ]
check "... with no warning (it can resume)" [ "$(field '.warnings | length')" = 0 ]

# --- Ctrl-C pauses (exit 130, journal kept); the same command again completes it
head -c 100M "$work/src/big.bin" >"$work/src/mid.bin"
mid_cp=("$STRATA" cp --bwlimit 60M --part-size 8M "$work/src/mid.bin" "$work/out/mid.bin")
"${mid_cp[@]}" >"$work/.out" 2>"$work/.err" &
background=$!
if wait_for_part; then ok; else bad "no part of the interrupted copy finished within 10 s"; fi
kill -INT "$background"
wait "$background"; rc=$?; background=""
check "Ctrl-C exits 130 (got $rc)" [ "$rc" -eq 130 ]
err=$(cat "$work/.err")
check "Ctrl-C says how to resume" [ -n "$(grep -i 'run the same command again' <<<"$err")" ]
check "Ctrl-C: nothing under the final name" [ ! -e "$work/out/mid.bin" ]
run 0 "rerun after Ctrl-C" "${mid_cp[@]}" && check "rerun after Ctrl-C says it resumes" contains_resuming
check "interrupted copy is exact" cmp -s "$work/src/mid.bin" "$work/out/mid.bin"
no_leftovers "$work/out"
no_journal "after the interrupted copy"

# --- sync: --dry-run changes nothing and says what it would do; then the real thing
mkdir -p "$work/src/site/sub"
for f in a b c sub/d; do head -c 3000 /dev/urandom >"$work/src/site/$f"; done
run 0 "first sync" "$STRATA" sync "$work/src/site" "$work/mirror" && check "sync mirrors" diff -r "$work/src/site" "$work/mirror"
run 0 "second sync" "$STRATA" sync --json "$work/src/site" "$work/mirror"
check "second sync copies nothing" [ "$(field .files_copied)" = 0 ]
head -c 5000 /dev/urandom >"$work/src/site/b"
head -c 10 /dev/urandom >"$work/src/site/sub/new"
echo extra >"$work/mirror/extra"
before=$(cd "$work/mirror" && find . -printf '%p %s %T@\n' | sort)
run 0 "sync --dry-run" "$STRATA" sync --dry-run --delete "$work/src/site" "$work/mirror"
after=$(cd "$work/mirror" && find . -printf '%p %s %T@\n' | sort)
check "dry run changes nothing" [ "$before" = "$after" ]
check "dry run lists the changed file" grep -q "^copy .*/site/b " <<<"$out"
check "dry run lists the new file" grep -q "^copy .*/site/sub/new " <<<"$out"
check "dry run lists the extra" grep -q "^delete .*/mirror/extra" <<<"$out"
check "dry run lists nothing else" [ "$(wc -l <<<"$out")" -eq 3 ]
run 0 "sync --delete" "$STRATA" sync --delete --json "$work/src/site" "$work/mirror"
check "sync copies only the two changes" [ "$(field .files_copied)" = 2 ]
check "sync deletes the extra" [ "$(field .files_deleted)" = 1 ]
check "synced" diff -r "$work/src/site" "$work/mirror"
no_journal "after sync"

# --- mv across backends: copied, then the sources and their emptied directories go
cp -r "$work/src/tree" "$work/moving"
run 0 "mv to memory" "$STRATA" mv --json "$work/moving" memory://scratch/
check "mv moved every file" [ "$(field .files_deleted)" = "$files" ]
check "mv removed the source tree" [ ! -e "$work/moving" ]
run 0 "mv from memory" "$STRATA" mv memory://demo/README.txt "$work/readme.txt"
check "moved file arrived" grep -q Welcome "$work/readme.txt"

# --- .zst: compressed on the way out, a valid zstd file, decompressed back exactly
for i in $(seq 1 40000); do echo "line $i: the quick brown fox jumps over the lazy dog"; done >"$work/src/log.txt"
run 0 "cp to .zst" "$STRATA" cp --verify "$work/src/log.txt" "$work/out/log.txt.zst"
check ".zst is smaller" [ "$(stat -c %s "$work/out/log.txt.zst")" -lt $(( $(stat -c %s "$work/src/log.txt") / 4 )) ]
check ".zst magic" [ "$(head -c 4 "$work/out/log.txt.zst" | od -An -tx1 | tr -d ' \n')" = 28b52ffd ]
if command -v zstd >/dev/null; then
  check "zstd -t accepts it" zstd -q -t "$work/out/log.txt.zst"
  check "zstd -d gives the original" cmp -s <(zstd -q -dc "$work/out/log.txt.zst") "$work/src/log.txt"
else
  bad "the zstd tool is not installed (scripts/bootstrap test installs it)"
fi
run 0 "cp from .zst" "$STRATA" cp --verify "$work/out/log.txt.zst" "$work/out/log.back.txt"
check ".zst round trip is exact" cmp -s "$work/src/log.txt" "$work/out/log.back.txt"
rm -rf "$STRATA_STATE_DIR/transfers" # the failed jobs' journals: not resumed here
no_leftovers "$work/out"
no_journal "at the end"

echo "$checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
