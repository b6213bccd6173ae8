#!/usr/bin/env bash
# Commands that would destroy what was not asked for, run where a regression cannot hurt:
# a bubblewrap sandbox whose whole file system is read-only (a scratch folder aside), with
# no network. `strata rm -r` of the root, however spelled, refuses before any request.
#
# Usage: destructive_test.sh /path/to/strata
set -u
STRATA=$(readlink -f "$1")
command -v bwrap >/dev/null || { echo "FAIL: bwrap is missing (scripts/bootstrap test installs bubblewrap)"; exit 1; }
work=$(mktemp -d /tmp/strata-destructive-XXXXXX)
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"

# sandboxed CMD...: runs CMD with the whole file system read-only (the build tree included,
# wherever it is) but $work/scratch, at its own path.
mkdir -p "$work/scratch"
s=$work/scratch
sandboxed() {
  bwrap --ro-bind / / --dev /dev --proc /proc --bind "$s" "$s" \
    --unshare-all --die-with-parent --setenv STRATA_STATE_DIR "$s/state" "$@"
}
# The sandbox must hold: a write outside the scratch folder fails there.
if sandboxed sh -c 'touch /strata-sandbox-probe' 2>/dev/null || sandboxed touch "$work/probe" 2>/dev/null; then
  echo "FAIL: the sandbox's / is writable; not running destructive commands"; exit 1
fi

for root in file:/// / file:///usr/.. /usr/../ "file:///tmp/../." ; do
  expect 1 "rm -r $root" -- sandboxed "$STRATA" -v rm -r "$root"
  contains "rm -r $root says why" "$err" "root of the file system"
  contains "rm -r $root says how" "$err" "--no-preserve-root"
  # -v logs every storage request: none may be a removal (nor a listing: nothing was tried).
  lacks "rm -r $root removed nothing" "$err" "strata: remove "
  lacks "rm -r $root listed nothing" "$err" "strata: list "
done
expect 1 "rm -r -f /" -- sandboxed "$STRATA" rm -r -f /
contains "rm -r -f / refuses too" "$err" "--no-preserve-root"
# Not recursive: the root is not a file to remove either.
expect 1 "rm /" -- sandboxed "$STRATA" rm /

# sync --delete, mv and mv --overwrite with the root: refused as rm -r is, before anything
# is listed, copied or removed (issue 42).
mkdir -p "$s/empty" "$s/movable"
echo moved >"$s/movable/file"
# refused WHAT CMD...: exit 1 with rm -r's reasons, and no listing or removal in the -v log.
refused() {
  local what=$1; shift
  expect 1 "$what" -- sandboxed "$STRATA" -v "$@"
  contains "$what says why" "$err" "root of the file system"
  contains "$what says how" "$err" "--no-preserve-root"
  lacks "$what removed nothing" "$err" "strata: remove "
  lacks "$what listed nothing" "$err" "strata: list "
  lacks "$what renamed nothing" "$err" "strata: rename "
}
for root in file:/// / file:///usr/.. /usr/../ // "file:///tmp/../." ; do
  refused "sync --delete EMPTY $root" sync --delete "$s/empty" "$root"
  refused "sync --delete --dry-run EMPTY $root" sync --delete --dry-run "$s/empty" "$root"
  refused "mv $root" mv "$root" "$s/moved"
  refused "mv --overwrite into $root" mv --overwrite "$s/movable" "$root"
done
refused "mv of the root among other sources" mv "$s/movable" / "$s/empty/"
refused "mv of the root to another storage" mv / memory://elsewhere/
refused "mv --overwrite into the root, from another storage" mv --overwrite memory://demo/ /
[ "$(cat "$s/movable/file")" = moved ] && pass || fail "a refused mv moved its source"
# The guard is about the root only: sync --delete into a folder deletes what the source lacks.
mkdir -p "$s/mirror" && touch "$s/mirror/extra"
expect 0 "sync --delete into a folder" -- sandboxed "$STRATA" sync --delete "$s/empty" "$s/mirror"
[ ! -e "$s/mirror/extra" ] && pass || fail "sync --delete into a folder left what the source lacks"

# A symlink to the root is removed as a link; nothing it points to is touched.
mkdir -p "$work/scratch/keep"
echo precious >"$work/scratch/keep/file"
ln -s / "$work/scratch/to-root"
ln -s "$s/keep" "$work/scratch/to-keep"
expect 0 "rm -r of a symlink to /" -- sandboxed "$STRATA" rm -r "$s/to-root"
expect 0 "rm -r of a symlink to a folder" -- sandboxed "$STRATA" rm -r "$s/to-keep"
[ ! -L "$work/scratch/to-root" ] && [ ! -L "$work/scratch/to-keep" ] && pass || fail "the links are still there"
[ "$(cat "$work/scratch/keep/file")" = precious ] && pass || fail "rm -r followed a symlink"

# --dry-run lists and removes nothing.
mkdir -p "$work/scratch/tree/sub"
touch "$work/scratch/tree/a" "$work/scratch/tree/sub/b"
expect 0 "rm -r --dry-run" -- sandboxed "$STRATA" rm -r --dry-run "$s/tree"
contains "dry run names a file" "$out" "would remove file://$s/tree/sub/b"
contains "dry run names the folder" "$out" "would remove file://$s/tree/"
[ -f "$work/scratch/tree/sub/b" ] && pass || fail "rm -r --dry-run removed something"
expect 0 "rm -r" -- sandboxed "$STRATA" rm -r "$s/tree"
[ ! -e "$work/scratch/tree" ] && pass || fail "rm -r left the tree"

echo "$checks checks passed, $failures failed"
[ "$failures" -eq 0 ]
