#!/usr/bin/env bash
# Nothing destroyed or exposed that was not asked for (issue 23), through `strata` on local
# folders: copies keep permission bits as cp does, mv never replaces unless asked, journals
# are private, names with control characters never reach the terminal raw.
# Usage: safety_test.sh /path/to/strata
set -u
STRATA=$(readlink -f "$1")
work=$(mktemp -d /tmp/strata-safety-XXXXXX)
export STRATA_STATE_DIR="$work/.state"
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"

mode_of() { stat -c %a "$1"; }
modes() { # modes DIR: "relative-path mode" lines, sorted
  (cd "$1" && find . -mindepth 1 -printf '%P %m\n' | sort)
}
same_modes() { # same_modes WHAT EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then pass; else fail "$1: modes differ"; diff <(echo "$2") <(echo "$3") | head -20; fi
}

# A tree with private, executable, read-only and set-uid entries; big.bin goes in parts
# through the resumable .part path.
src=$work/src
mkdir -p "$src/sub" "$src/ro"
printf key >"$src/id_key"; chmod 0600 "$src/id_key"
printf '#!/bin/sh\necho hi\n' >"$src/run.sh"; chmod 0755 "$src/run.sh"
printf pub >"$src/pub.txt"; chmod 0644 "$src/pub.txt"
printf grp >"$src/group.txt"; chmod 0664 "$src/group.txt"
printf suid >"$src/suid"; chmod 04755 "$src/suid"
head -c 3145728 /dev/urandom >"$src/sub/big.bin"; chmod 0640 "$src/sub/big.bin"
printf r >"$src/ro/f"; chmod 0444 "$src/ro/f"
chmod 0500 "$src/ro"; chmod 0750 "$src/sub"; chmod 0700 "$src"

# cp -r: the source's bits without set-ID, masked by the umask, like cp -r.
for mask in 022 077; do
  rm -rf "$work/cp$mask" "$work/gnu$mask"
  expect 0 "cp -r (umask $mask)" -- sh -c "umask $mask && exec \"$STRATA\" cp -r --part-size 1M \"$src\" \"$work/cp$mask\""
  (umask $mask && cp -r "$src" "$work/gnu$mask")
  same_modes "cp -r like GNU cp -r (umask $mask)" "$(modes "$work/gnu$mask")" "$(modes "$work/cp$mask")"
  [ "$(mode_of "$work/cp$mask")" = "$(mode_of "$work/gnu$mask")" ] && pass \
    || fail "the top folder is $(mode_of "$work/cp$mask"), GNU cp made $(mode_of "$work/gnu$mask")"
  cmp -s "$src/sub/big.bin" "$work/cp$mask/sub/big.bin" && pass || fail "big.bin differs (umask $mask)"
done
echo "modes kept on a copy (umask 022):"; modes "$work/cp022" | sed 's/^/  /'

# --preserve=mode: exactly the source's bits, set-uid included, whatever the umask.
expect 0 "cp -r --preserve=mode" -- sh -c "umask 077 && exec \"$STRATA\" cp -r --preserve=mode --part-size 1M \"$src\" \"$work/exact\""
rm -rf "$work/gnu-p"; cp -r --preserve=mode "$src" "$work/gnu-p"
same_modes "--preserve=mode like cp --preserve=mode" "$(modes "$work/gnu-p")" "$(modes "$work/exact")"
expect 2 "--preserve=owner is refused" -- "$STRATA" cp -r --preserve=owner "$src" "$work/nope"
[ ! -e "$work/nope" ] && pass || fail "a refused command wrote $work/nope"

# Replacing a file keeps the replaced file's bits (cp does too).
printf old >"$work/kept"; chmod 0600 "$work/kept"
expect 0 "cp --overwrite onto a private file" -- "$STRATA" cp --overwrite "$src/pub.txt" "$work/kept"
[ "$(mode_of "$work/kept")" = 600 ] && [ "$(cat "$work/kept")" = pub ] && pass || fail "overwrite gave $(mode_of "$work/kept")"

# mv never replaces unless asked, on one file system as across backends.
printf A >"$work/a"; printf B >"$work/b"
expect 1 "mv onto an existing file" -- "$STRATA" mv "$work/a" "$work/b"
contains "mv says how" "$err" "--overwrite"
[ "$(cat "$work/a")" = A ] && [ "$(cat "$work/b")" = B ] && pass || fail "a refused mv changed a or b"
expect 1 "mv -n onto an existing file" -- "$STRATA" mv -n "$work/a" "$work/b"
[ "$(cat "$work/b")" = B ] && pass || fail "mv -n replaced b"
# A folder moved into a folder that already holds one of its name: refused, both kept.
mkdir -p "$work/d1/x" "$work/d2/d1"
expect 1 "mv of a folder onto an existing folder" -- "$STRATA" mv "$work/d1" "$work/d2"
[ -d "$work/d1/x" ] && [ -d "$work/d2/d1" ] && pass || fail "a refused folder mv changed something"
expect 0 "mv --overwrite" -- "$STRATA" mv --overwrite "$work/a" "$work/b"
[ ! -e "$work/a" ] && [ "$(cat "$work/b")" = A ] && pass || fail "mv --overwrite did not replace b"

# Journals and the state folder are private.
mkdir -p "$work/slow"
head -c 8388608 /dev/urandom >"$work/slow/f"
rm -rf "$STRATA_STATE_DIR"
"$STRATA" cp --bwlimit 1M "$work/slow/f" "$work/slow-copy" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do ls "$STRATA_STATE_DIR/transfers/"*.transfer.log >/dev/null 2>&1 && break; sleep 0.05; done
journal=$(ls "$STRATA_STATE_DIR/transfers/"*.transfer.log 2>/dev/null | head -1)
kill -INT "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
if [ -n "$journal" ]; then
  [ "$(mode_of "$journal")" = 600 ] && pass || fail "the journal is $(mode_of "$journal"), not 600"
  [ "$(mode_of "$STRATA_STATE_DIR/transfers")" = 700 ] && pass || fail "the journal folder is $(mode_of "$STRATA_STATE_DIR/transfers")"
  [ "$(mode_of "$STRATA_STATE_DIR")" = 700 ] && pass || fail "the state folder is $(mode_of "$STRATA_STATE_DIR")"
else
  fail "no journal appeared for a 8 MiB copy at 1 MiB/s"
fi

# Sources swapped for symlinks while a copy runs are not followed: what was listed as a file
# and is a link now (to a secret) fails, and the secret is nowhere in the copy.
mkdir -p "$work/swap/src"
printf 'TOP-SECRET-7f3a' >"$work/secret"; chmod 600 "$work/secret"
for i in 0 1 2 3 4 5 6 7 8 9; do head -c 524288 /dev/urandom >"$work/swap/src/f$i"; done
"$STRATA" cp -r --jobs 1 --bwlimit 1M "$work/swap/src" "$work/swap/dst" >"$work/swap.out" 2>"$work/swap.err" &
pid=$!
# Swapped once the copy has listed its sources and started on them (the first file is
# arriving): before the listing, a link would be a different case.
for _ in $(seq 400); do compgen -G "$work/swap/dst/*" >/dev/null || compgen -G "$work/swap/dst/.strata*" >/dev/null && break; sleep 0.02; done
for i in 0 1 2 3 4 5 6 7 8 9; do ln -sf "$work/secret" "$work/swap/src/f$i"; done
wait "$pid"; rc=$?
[ "$rc" -eq 1 ] && pass || fail "a copy whose sources became links ended with $rc: $(cat "$work/swap.err")"
contains "a swapped source is named" "$(cat "$work/swap.err")" "symbolic link now"
if grep -rl "TOP-SECRET-7f3a" "$work/swap/dst" >/dev/null 2>&1; then fail "the secret was copied through a swapped link"; else pass; fi

# A destination folder swapped for a symlink while a copy runs is not written through.
mkdir -p "$work/plant/src/sub" "$work/plant/elsewhere"
for i in 0 1 2 3 4 5 6 7 8 9; do head -c 524288 /dev/urandom >"$work/plant/src/sub/f$i"; done
"$STRATA" cp -r --jobs 1 --bwlimit 1M "$work/plant/src" "$work/plant/dst" >"$work/plant.out" 2>"$work/plant.err" &
pid=$!
for _ in $(seq 100); do [ -d "$work/plant/dst/sub" ] && break; sleep 0.02; done
sleep 0.5
mv "$work/plant/dst/sub" "$work/plant/dst/sub.moved" && ln -s "$work/plant/elsewhere" "$work/plant/dst/sub"
wait "$pid"; rc=$?
[ "$rc" -eq 1 ] && pass || fail "a copy into a planted link ended with $rc: $(cat "$work/plant.err")"
contains "the planted link is named" "$(cat "$work/plant.err")" "symbolic link"
[ -z "$(ls -A "$work/plant/elsewhere")" ] && pass || fail "files were written through the planted link: $(ls "$work/plant/elsewhere")"

# Names with control characters are escaped in human output, kept exact in JSON.
mkdir -p "$work/names"
evil=$'evil\e[2J\rname\n'
printf x >"$work/names/$evil"
expect 0 "ls of a control-character name" -- "$STRATA" ls "$work/names"
lacks "ls prints no escape byte" "$out" $'\e'
lacks "ls prints no carriage return" "$out" $'\r'
contains "ls shows it escaped" "$out" 'evil\x1b[2J\rname\n'
expect 0 "ls --json of it" -- "$STRATA" ls --json "$work/names"
[ "$(jq -c '.entries[0].name' <<<"$out")" = '"evil\u001b[2J\rname\n"' ] && pass \
  || fail "ls --json changed the name: $(jq -c '.entries[0].name' <<<"$out")"
expect 1 "an error naming it" -- "$STRATA" cp "$work/names/$evil" "$work/names/$evil"
lacks "errors print no escape byte" "$err" $'\e'
for cmd in walk du stat; do
  target=$work/names; [ "$cmd" = stat ] && target=$work/names/$evil
  expect 0 "$cmd of a control-character name" -- "$STRATA" "$cmd" "$target"
  lacks "$cmd prints no escape byte" "$out" $'\e'
  lacks "$cmd prints no carriage return" "$out" $'\r'
done

echo "$checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
