#!/usr/bin/env bash
# strata diff: every kind of difference between two local folders with diff's exit codes,
# --checksum catching what sizes and times hide, --json, bad input; then a folder against
# its copy on S3 (the s3rver fixture): alike after the upload although S3 stamps its own
# times, and each later change on either side reported.
#
# Usage: diff_test.sh /path/to/strata   (STRATA_S3_ENVFILE: the s3rver fixture's env file)
set -u
STRATA=$(readlink -f "$1")
work=$(mktemp -d /tmp/strata-diff-XXXXXX)
export STRATA_STATE_DIR="$work/.state" QT_QPA_PLATFORM=offscreen
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"

a=$work/a b=$work/b
mkdir -p "$a/sub/deep" "$a/only dir" "$b/sub" "$b/kind"
echo same >"$a/same.txt" && cp -p "$a/same.txt" "$b/same.txt"
echo aaa >"$a/size.txt" && echo bb >"$b/size.txt"
echo 1234 >"$a/newer-a.txt" && echo 5678 >"$b/newer-a.txt" && touch -d "2025-01-01" "$b/newer-a.txt"
echo 1234 >"$a/newer-b.txt" && echo 5678 >"$b/newer-b.txt" && touch -d "2025-01-01" "$a/newer-b.txt"
echo x >"$a/only-a.txt" && echo y >"$b/only-b.txt"
echo z >"$a/only dir/in.txt" && echo s >"$a/sub/deep/x"
echo k >"$a/kind" && echo q >"$b/kind/f"
# Same size, same time, other bytes: only --checksum sees it.
echo AAAA >"$a/hidden.txt" && echo BBBB >"$b/hidden.txt" && touch -r "$a/hidden.txt" "$b/hidden.txt"

expect 1 "diff finds differences" -- "$STRATA" diff "$a" "$b"
contains "only in A" "$out" "only in A   only-a.txt"
contains "only in B" "$out" "only in B   only-b.txt"
contains "a folder only in A, once" "$out" "only in A   only dir/"
lacks "nothing below it" "$out" "only dir/in.txt"
contains "sub/deep" "$out" "only in A   sub/deep/"
contains "newer in A" "$out" "newer in A  newer-a.txt"
contains "newer in B" "$out" "newer in B  newer-b.txt"
contains "different size" "$out" "different   size.txt  (A: 4 bytes"
contains "file against folder" "$out" "not alike   kind  (A: 2 bytes"
lacks "kind's contents not listed" "$out" "kind/f"
lacks "same file not listed" "$out" "same.txt"
lacks "hidden by size and time" "$out" "hidden.txt"
contains "summary" "$out" "2 files alike, 8 differences"
expect 1 "diff --checksum" -- "$STRATA" diff --checksum "$a" "$b"
contains "content differs" "$out" "hidden.txt"
contains "by content" "$out" "1 file alike (by content), 9 differences"

# --json: every difference with both sides' facts.
expect 1 "diff --json" -- "$STRATA" diff --json "$a" "$b"
[ "$(jq -r '.differences[] | select(.path=="newer-b.txt") | .change' <<<"$out")" = newer-b ] && pass || fail "json change"
[ "$(jq -r '.differences[] | select(.path=="size.txt") | .a.size' <<<"$out")" = 4 ] && pass || fail "json a.size"
[ "$(jq -r '.differences[] | select(.path=="only-b.txt") | has("a")' <<<"$out")" = false ] && pass || fail "json only-b has no a"
[ "$(jq -r '.same' <<<"$out")" = 2 ] && pass || fail "json same"
[ "$(jq -r '[.differences[].path] | join(",")' <<<"$out")" = "kind,newer-a.txt,newer-b.txt,only dir,only-a.txt,only-b.txt,size.txt,sub/deep" ] \
  && pass || fail "json paths in order: $(jq -c '[.differences[].path]' <<<"$out")"
# --exclude leaves names out on both sides.
expect 1 "diff --exclude" -- "$STRATA" diff --exclude 'only*' --exclude kind --exclude sub "$a" "$b"
contains "excluded" "$out" "2 files alike, 3 differences"

# Alike folders: exit 0. Trouble: exit 2, one line.
cp -a "$a" "$work/a2"
expect 0 "alike" -- "$STRATA" diff "$a" "$work/a2" && contains "alike" "$out" "0 differences"
expect 2 "missing folder" -- "$STRATA" diff "$a" "$work/none" && contains "missing" "$err" "does not exist"
expect 2 "a file is no folder" -- "$STRATA" diff "$a" "$a/same.txt" && contains "not a folder" "$err" "is not a folder"
expect 2 "one argument" -- "$STRATA" diff "$a"

# A folder and its copy on S3.
if [ -f "${STRATA_S3_ENVFILE:-}" ]; then
  set -a; source "$STRATA_S3_ENVFILE"; set +a
  uri="s3://$STRATA_S3_BUCKET/diff-$$?endpoint=$STRATA_S3_ENDPOINT"
  obj() { echo "s3://$STRATA_S3_BUCKET/diff-$$/$1?endpoint=$STRATA_S3_ENDPOINT"; }
  "$STRATA" cp -r "$a/." "$uri" >/dev/null 2>"$work/err" && pass || fail "upload: $(cat "$work/err")"
  expect 0 "alike on S3" -- "$STRATA" diff "$a" "$uri"
  contains "all alike" "$out" "0 differences"
  expect 0 "alike on S3 by content" -- "$STRATA" diff --checksum "$a" "$uri"
  # A local edit is newer in A; an object added is only in B; a changed object differs.
  sleep 1.1
  echo changed >"$a/same.txt"
  printf 'new\n' >"$work/extra"
  "$STRATA" cp "$work/extra" "$(obj extra.txt)" >/dev/null 2>&1 && pass || fail "cp extra.txt"
  expect 1 "changes on both sides" -- "$STRATA" diff "$a" "$uri"
  contains "local edit" "$out" "same.txt"
  contains "object added" "$out" "only in B   extra.txt"
  lacks "no secret" "$out$err" "$AWS_SECRET_ACCESS_KEY"
  "$STRATA" rm -r "$uri" >/dev/null 2>&1
else
  fail "no STRATA_S3_ENVFILE: run through CTest (fixture s3rver)"
fi
finish
