#!/usr/bin/env bash
# strata find against GNU find on the same tree: names (globs, case, dots, brackets, spaces,
# UTF-8), sizes at every unit's edges (find rounds up), dates, kinds, depths; then the same
# tree on S3 (the s3rver fixture) must give the same answers for what S3 keeps (names and
# sizes). Bad arguments get a usage error naming the form.
#
# Usage: find_test.sh /path/to/strata   (STRATA_S3_ENVFILE: the s3rver fixture's env file)
set -u
STRATA=$(readlink -f "$1")
work=$(mktemp -d /tmp/strata-find-XXXXXX)
export STRATA_STATE_DIR="$work/.state" QT_QPA_PLATFORM=offscreen
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"

t=$work/tree
mkdir -p "$t/docs/deep/er/est" "$t/dir with space" "$t/Photos" "$t/.cache"
n=0
for size in 0 1 511 512 513 1023 1024 1025 1048575 1048576 1048577 3000000; do
  n=$((n + 1))
  head -c "$size" /dev/zero >"$t/docs/f$n.bin"
done
printf 'x' >"$t/a b.txt"
printf 'xy' >"$t/[x].txt"
printf 'xyz' >"$t/Photos/ünï.JPG"
printf 'hello' >"$t/Photos/cat.jpg"
printf 'deep' >"$t/docs/deep/er/est/Notes.TXT"
printf 'h' >"$t/.cache/.hidden"
printf 's' >"$t/dir with space/*star"
touch -d "2024-03-01 12:00:00" "$t/a b.txt" "$t/docs/f3.bin"
touch -d "2025-07-15 08:30:00" "$t/Photos/cat.jpg"
touch -d "2026-01-02 00:00:00" "$t/docs/deep/er/est/Notes.TXT"

# same DESCRIPTION "STRATA ARGS" "FIND ARGS": both list the same paths (order aside).
same() {
  local what=$1 ours theirs
  # shellcheck disable=SC2086
  ours=$(eval "\"$STRATA\" find \"$t\" $2" 2>"$work/err" | LC_ALL=C sort)
  local rc=${PIPESTATUS[0]}
  theirs=$(eval "find \"$t\" $3" | LC_ALL=C sort)
  if [ "$ours" = "$theirs" ] && [ -z "$(cat "$work/err")" ]; then
    pass
  else
    fail "$what: strata find $2 differs from find $3 (rc $rc, stderr $(cat "$work/err"))"
    diff <(echo "$ours") <(echo "$theirs") | head -8
  fi
}

check_local() {
  same "everything" "" ""
  same "name glob" "--name '*.jpg'" "-name '*.jpg'"
  same "name is the whole base name" "--name 'cat'" "-name 'cat'"
  same "iname" "--name '*.jpg' --iname" "-iname '*.jpg'"
  same "iname UTF-8 base name" "--name 'ÜNÏ.*' --iname" "-iname 'ünï.*'"
  same "dot files match a star" "--name '*hidden'" "-name '*hidden'"
  same "brackets" "--name '\[x\]*'" "-name '\[x\]*'"
  same "a star in a name" "--name '\**'" "-name '\**'"
  same "question mark" "--name 'f?.bin'" "-name 'f?.bin'"
  for s in +0 -1 1 -2 +1 2 1c 512c -513c +512c -1k 1k +1k 2k -1M 1M +1M 2M +2M -1G 1G 3b; do
    same "size $s" "--size $s" "-size $s"
    same "files of size $s" "--size $s --type f" "-size $s -type f"
  done
  same "type d" "--type d" "-type d"
  same "type l" "--type l" "-type l"
  same "newer date" "--newer 2025-01-01" "-newermt 2025-01-01"
  same "newer date and time" "--newer '2025-07-15 08:30'" "-newermt '2025-07-15 08:30'"
  same "newer UTC" "--newer 2025-07-15T08:29:00Z" "-newermt '2025-07-15 08:29:00 UTC'"
  same "older" "--older 2025-12-31" "! -newermt 2025-12-31"
  same "between" "--newer 2024-06-01 --older 2026-01-01" "-newermt 2024-06-01 ! -newermt 2026-01-01"
  same "newer than an age" "--newer 1h" "-mmin -60"
  same "max depth" "--max-depth 1" "-maxdepth 1"
  same "min depth" "--min-depth 3" "-mindepth 3"
  same "depth zero" "--max-depth 0" "-maxdepth 0"
  same "root matches its name" "--name tree" "-name tree"
  same "all together" "--name '*.bin' --size +1k --type f --max-depth 2" "-maxdepth 2 -name '*.bin' -size +1k -type f"
  same "exclude" "--exclude docs" "-name docs -prune -o -print"
}

check_local
# Links: reported, never followed.
ln -s docs "$t/link-to-docs"
ln -s "Photos/cat.jpg" "$t/cat-link.jpg"
same "links by name" "--name '*link*'" "-name '*link*'"
same "links not followed" "--name 'f1*'" "-name 'f1*'"
same "type l with links" "--type l" "-type l"
same "link sizes" "--size -1k --type l" "-size -1k -type l"

# --json: one object per line with the entry's facts.
json=$("$STRATA" find "$t" --name cat.jpg --json)
[ "$(jq -r .path <<<"$json")" = "$t/Photos/cat.jpg" ] && pass || fail "json path: $json"
[ "$(jq -r .size <<<"$json")" = 5 ] && pass || fail "json size: $json"
[ "$(jq -r .kind <<<"$json")" = file ] && pass || fail "json kind: $json"
[ "$(jq -r .modified <<<"$json")" = "$(date -u -d '2025-07-15 08:30:00' +%Y-%m-%dT%H:%M:%S).000000000Z" ] && pass \
  || fail "json modified: $json"

# Bad input: usage errors that say what is wanted; missing roots fail.
expect 2 "bad size" -- "$STRATA" find "$t" --size 10X && contains "size form" "$err" "[+-]N[cwbkMG]"
expect 2 "bad date" -- "$STRATA" find "$t" --newer yesterday && contains "date form" "$err" "2026-12-03"
expect 2 "bad type" -- "$STRATA" find "$t" --type x && contains "type form" "$err" "f (files)"
expect 2 "empty name" -- "$STRATA" find "$t" --name "" && contains "name form" "$err" "glob"
expect 1 "missing root" -- "$STRATA" find "$work/nothing-here" && contains "missing root" "$err" "does not exist"
# A name a terminal would obey is printed harmless.
touch "$t/esc$(printf '\033')[31mred"
out=$("$STRATA" find "$t" --name 'esc*')
lacks "no escape on the terminal" "$out" "$(printf '\033')"

# The same tree on S3: names and sizes answer as find's do on the local copy.
if [ -f "${STRATA_S3_ENVFILE:-}" ]; then
  set -a; source "$STRATA_S3_ENVFILE"; set +a
  rm -rf "$work/s3tree" && mkdir -p "$work/s3tree"
  cp -r "$t/docs" "$t/Photos" "$t/dir with space" "$t/.cache" "$t/a b.txt" "$t/[x].txt" "$work/s3tree/"
  prefix="find-$$"
  uri="s3://$STRATA_S3_BUCKET/$prefix?endpoint=$STRATA_S3_ENDPOINT"
  "$STRATA" cp -r "$work/s3tree/." "$uri" >/dev/null 2>"$work/err" && pass || fail "upload: $(cat "$work/err")"
  s3same() {
    local what=$1 ours theirs
    ours=$(eval "\"$STRATA\" find \"$uri\" $2" 2>"$work/err" | sed "s|^/$prefix|S|" | LC_ALL=C sort)
    theirs=$(eval "find \"$work/s3tree\" $3" | sed "s|^$work/s3tree|S|" | LC_ALL=C sort)
    if [ "$ours" = "$theirs" ]; then pass; else
      fail "$what on S3: strata find $2 differs from find $3 ($(cat "$work/err"))"
      diff <(echo "$ours") <(echo "$theirs") | head -8
    fi
  }
  s3same "files" "--type f" "-type f"
  s3same "folders" "--type d --min-depth 1" "-type d -mindepth 1"
  s3same "name" "--name '*.jpg' --iname" "-iname '*.jpg'"
  s3same "size" "--size +1k --type f" "-size +1k -type f"
  s3same "size edges" "--size -2 --type f" "-size -2 -type f"
  s3same "depth" "--max-depth 1 --min-depth 1" "-maxdepth 1 -mindepth 1"
  lacks "no secret on S3" "$(cat "$work/err")" "$AWS_SECRET_ACCESS_KEY"
  "$STRATA" rm -r "$uri" >/dev/null 2>&1
else
  fail "no STRATA_S3_ENVFILE: run through CTest (fixture s3rver)"
fi

# memory://demo: the demo store's one PNG.
expect 0 "memory" -- "$STRATA" find memory://demo/ --name '*.png'
[ "$out" = "/images/strata.png" ] && pass || fail "memory find: $out"
finish
