#!/usr/bin/env bash
# End-to-end checks of `strata` commands: output, exit codes, errors, nothing left behind.
# Usage: cli_test.sh /path/to/strata
set -u
STRATA=$(readlink -f "$1")
export QT_QPA_PLATFORM=offscreen
work=$(mktemp -d /tmp/strata-cli-XXXXXX)
chmod 755 "$work"
export STRATA_STATE_DIR="$work/.state" # transfer journals of this run only
mounted=""
cleanup() {
  [ -n "$mounted" ] && umount "$mounted" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"

# --- basics
expect 0 "version" -- "$STRATA" --version && contains "version" "$out" "strata "
expect 0 "help" -- "$STRATA" --help && contains "help lists cp" "$out" "cp "
expect 0 "ls --help" -- "$STRATA" ls --help && contains "ls help" "$out" "--json"
# `strata open --help` answers without opening a window (no display needed, returns at once).
expect 0 "open --help" -- env -u DISPLAY -u WAYLAND_DISPLAY QT_QPA_PLATFORM=xcb timeout 10 "$STRATA" open --help && contains "open help" "$out" "--benchmarks"

# --- ls / stat / cat on the demo store
expect 0 "ls demo" -- "$STRATA" ls memory://demo/ && contains "ls demo" "$out" "README.txt" && contains "dirs marked" "$out" "docs/"
expect 0 "ls -l demo" -- "$STRATA" ls -l memory://demo/ && contains "ls -l" "$out" "67108864" && contains "ls -l mode" "$out" "drwxr-xr-x"
expect 0 "ls -R demo" -- "$STRATA" ls -R memory://demo/ && contains "ls -R" "$out" "data/logs/server.log"
expect 0 "cat demo" -- "$STRATA" cat memory://demo/README.txt && contains "cat" "$out" "Welcome to Strata"
expect 0 "cat range" -- "$STRATA" cat --offset 11 --length 6 memory://demo/README.txt && [ "$out" = "Strata" ] && pass || fail "cat range gave '$out'"

# --- ls --json on a local directory
mkdir -p "$work/dir/sub"
printf 'alpha' >"$work/dir/a.txt"
printf 'bravo!' >"$work/dir/b c.txt"
expect 0 "ls --json" -- "$STRATA" ls --json "file://$work/dir"
names=$(printf '%s' "$out" | jq -r '.entries[].name' | tr '\n' '|')
[ "$names" = "a.txt|b c.txt|sub|" ] && pass || fail "ls --json names: $names"
size=$(printf '%s' "$out" | jq -r '.entries[] | select(.name=="b c.txt") | .size')
[ "$size" = "6" ] && pass || fail "ls --json size: $size"
kind=$(printf '%s' "$out" | jq -r '.entries[] | select(.name=="sub") | .kind')
[ "$kind" = "dir" ] && pass || fail "ls --json kind: $kind"
expect 0 "stat --json" -- "$STRATA" stat --json "$work/dir/a.txt"
[ "$(printf '%s' "$out" | jq -r .size)" = "5" ] && pass || fail "stat --json size"
# A relative path names a file of the working directory (not in a subshell: a failure
# there would not reach this script's count).
cd "$work/dir" && expect 0 "relative path" -- "$STRATA" stat a.txt
[ "$(jq -r .size <<<"$("$STRATA" stat --json a.txt)")" = 5 ] && pass || fail "a relative path stats another file"
cd - >/dev/null

# --- cp: local to local, byte-exact; across backends
head -c 5000000 /dev/urandom >"$work/big.bin"
expect 0 "cp file->file" -- "$STRATA" cp "file://$work/big.bin" "file://$work/big.copy"
cmp -s "$work/big.bin" "$work/big.copy" && pass || fail "cp file->file is not byte-exact"
expect 0 "cp memory->file" -- "$STRATA" cp memory://demo/images/strata.png "file://$work/x.png"
[ "$(head -c 8 "$work/x.png" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] && pass || fail "png signature"
expect 0 "cp into dir" -- "$STRATA" cp memory://demo/README.txt "$work/dir/"
[ -f "$work/dir/README.txt" ] && pass || fail "cp into a directory"
expect 0 "cp sparse image" -- "$STRATA" cp memory://demo/disk.img "$work/disk.img"
[ "$(stat -c %s "$work/disk.img")" = 67108864 ] && pass || fail "disk.img size"
[ "$(du -k "$work/disk.img" | cut -f1)" -lt 4096 ] && pass || fail "disk.img is not sparse: $(du -k "$work/disk.img")"
expect 1 "cp onto existing" -- "$STRATA" cp memory://demo/README.txt "$work/dir/a.txt" && contains "existing" "$err" "already exists" && contains "hint" "$err" "--overwrite"
expect 0 "cp -n skips existing" -- "$STRATA" cp -n memory://demo/README.txt "$work/dir/a.txt"
[ "$(cat "$work/dir/a.txt")" = alpha ] && pass || fail "an existing file was replaced"
expect 0 "cp --overwrite" -- "$STRATA" cp --overwrite memory://demo/README.txt "$work/dir/b c.txt"
contains "overwrite" "$(cat "$work/dir/b c.txt")" "Welcome"

# --- mv, rm, mkdir
expect 0 "mkdir -p" -- "$STRATA" mkdir -p "$work/m/n/o" && [ -d "$work/m/n/o" ] && pass
expect 1 "mkdir existing" -- "$STRATA" mkdir "$work/m" && contains "mkdir existing" "$err" "already exists"
expect 0 "mv rename" -- "$STRATA" mv "$work/big.copy" "$work/m/moved.bin"
[ ! -e "$work/big.copy" ] && cmp -s "$work/big.bin" "$work/m/moved.bin" && pass || fail "mv within file"
expect 0 "mv across backends" -- "$STRATA" mv "$work/m/moved.bin" memory://scratch/moved.bin
[ ! -e "$work/m/moved.bin" ] && pass || fail "mv across backends left the source"
expect 1 "rm dir without -r" -- "$STRATA" rm "$work/m" && contains "rm dir" "$err" "-r"
expect 0 "rm -r" -- "$STRATA" rm -r "$work/m" && [ ! -e "$work/m" ] && pass
expect 1 "rm missing" -- "$STRATA" rm "$work/nothing-here" && contains "rm missing" "$err" "does not exist"
expect 0 "rm -f missing" -- "$STRATA" rm -f "$work/nothing-here"

# --- bad input: each one clear sentence, right exit code, nothing left behind
expect 1 "unknown scheme" -- "$STRATA" ls foo://bar/ && contains "unknown scheme" "$err" "unknown scheme 'foo'" && one_line "unknown scheme" "$err"
expect 1 "malformed port" -- "$STRATA" ls "memory://demo:99x/" && contains "malformed" "$err" "port"
expect 1 "bad escape in a host" -- "$STRATA" ls "memory://de%zzmo/" && contains "bad escape" "$err" "percent escape"
# In a path, a '%' that starts no escape is part of the name (issue 27; tests/cli/names_test.sh).
expect 1 "literal percent" -- "$STRATA" ls "memory://demo/%zz" && contains "literal percent" "$err" "memory://demo/%25zz: it does not exist"
expect 1 "remote file host" -- "$STRATA" ls "file://elsewhere/etc" && contains "file host" "$err" "local paths"
expect 1 "escape root" -- "$STRATA" cat "memory://demo/../../etc/passwd" && contains "escape" "$err" "above the root"
expect 1 "missing file" -- "$STRATA" cat "$work/missing.txt" && contains "missing" "$err" "does not exist" && contains "missing names uri" "$err" "file://$work/missing.txt" && one_line "missing" "$err"
expect 1 "cat a directory" -- "$STRATA" cat "$work/dir" && contains "cat dir" "$err" "is a directory"
expect 1 "cp a directory" -- "$STRATA" cp memory://demo/docs "$work/docs" && contains "cp dir" "$err" "directory"
mkdir -p "$work/dst/README.txt"
expect 1 "destination is a directory" -- "$STRATA" cp memory://demo/README.txt "$work/dst/" && contains "dest dir" "$err" "is a directory"
expect 1 "missing destination dir" -- "$STRATA" cp memory://demo/README.txt "$work/nope/x.txt" && contains "missing parent" "$err" "does not exist"
[ ! -e "$work/nope" ] && pass || fail "missing parent was created"
expect 1 "userinfo is never printed" -- "$STRATA" ls "memory://someone:S3cretPassw0rd@demo/"
lacks "secret in error" "$err" "S3cretPassw0rd"
expect 0 "verbose log" -- "$STRATA" -v stat memory://demo/README.txt && contains "verbose" "$err" "stat memory://demo/README.txt ok"

# --- usage errors exit 2
expect 2 "no such command" -- "$STRATA" frobnicate
expect 2 "missing argument" -- "$STRATA" cp memory://demo/README.txt
expect 2 "unknown option" -- "$STRATA" ls --frob memory://demo/
expect 2 "bad number" -- "$STRATA" cat --offset abc memory://demo/README.txt

# --- permission denied, as an unprivileged user (tests run as root: drop privileges)
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
  # nobody must be able to run strata at all (a clone below a 0700 folder, as mktemp -d
  # makes, is closed to it): else the denials below would be setpriv's, not strata's.
  as_nobody "$STRATA" --version >/dev/null 2>&1 ||
    fail "nobody cannot run $STRATA (a folder on its path is closed to other users)"
  printf 'top secret' >"$work/secret.txt"; chmod 600 "$work/secret.txt"
  mkdir -p "$work/locked"; chmod 755 "$work/locked"
  expect 1 "read denied" -- as_nobody "$STRATA" cat "$work/secret.txt" && contains "read denied" "$err" "strata: cannot read"
  lacks "no content leaked" "$out" "top secret"
  # nobody keeps its journals in a state folder of its own: root's is refused to it.
  mkdir -p "$work/nobody-state" && chown nobody "$work/nobody-state" && chmod 700 "$work/nobody-state"
  expect 1 "write denied" -- as_nobody env STRATA_STATE_DIR="$work/nobody-state" "$STRATA" cp memory://demo/README.txt \
    "$work/locked/r.txt" && contains "write denied" "$err" "permission denied"
  [ -z "$(ls -A "$work/locked")" ] && pass || fail "a denied write left: $(ls -A "$work/locked")"
else
  skip "permission tests need root and setpriv to drop privileges to nobody"
fi

# --- disk full: a 1 MiB tmpfs, else a 1 MiB file size limit
mkdir -p "$work/full"
if mount -t tmpfs -o size=1m tmpfs "$work/full" 2>/dev/null; then
  mounted="$work/full"; how="1 MiB tmpfs"
  full_cmd() { "$STRATA" "$@"; }
else
  how="RLIMIT_FSIZE 1 MiB (no tmpfs mount allowed here)"
  full_cmd() { ( ulimit -f 1024; "$STRATA" "$@" ); }
fi
echo "disk full via: $how"
expect 1 "disk full" -- full_cmd cp "file://$work/big.bin" "file://$work/full/big.bin" && contains "disk full" "$err" "no space"
[ -z "$(ls -A "$work/full")" ] && pass || fail "disk full left: $(ls -A "$work/full")"

# Finished and failed-at-once transfers leave no journal behind.
left=$(ls -A "$STRATA_STATE_DIR/transfers" 2>/dev/null)
[ -z "$left" ] && pass || fail "transfer journals left behind: $left"

finish
