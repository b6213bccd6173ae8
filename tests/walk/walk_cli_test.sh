#!/usr/bin/env bash
# strata walk / strata du against find on generated trees: the same entries, the same
# counts and sizes (hard links once); --follow terminates on loops and links back into the
# tree and walks each directory once; excludes prune; an unreadable directory is reported
# and the walk completes; the same tree walked on S3 (the shared s3rver) and memory.
#
# Usage: walk_cli_test.sh /path/to/strata [s3]
set -u
STRATA=$(readlink -f "$1")
WITH_S3=${2:-}
export QT_QPA_PLATFORM=offscreen
work=$(mktemp -d /tmp/strata-walk-XXXXXX)
chmod 755 "$work"
export STRATA_STATE_DIR="$work/.state"
cleanup() {
  chmod -R u+rwx "$work" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"
same() { # same WHAT EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then pass; else fail "$1: wanted '$2', got '$3'"; fi
}
same_lines() { # same_lines WHAT FILE-A FILE-B (sorted comparisons)
  if diff -q <(sort "$2") <(sort "$3") >/dev/null; then pass; else
    fail "$1: listings differ"; diff <(sort "$2") <(sort "$3") | head -10
  fi
}

# --- a generated tree: 120 directories up to 5 deep, 1 500 files of assorted sizes and
# names (spaces, unicode, leading dots, '*.o', node_modules), a few empty directories.
t=$work/tree
mkdir -p "$t"
dirs=("$t")
for ((i = 0; i < 120; i++)); do
  parent=${dirs[$(( (i * 7919) % ${#dirs[@]} ))]}
  case $((i % 10)) in
    3) name="node_modules" ;;
    5) name="dir with space $i" ;;
    7) name=".hidden$i" ;;
    9) name="ünïcødé-$i" ;;
    *) name="d$i" ;;
  esac
  mkdir -p "$parent/$name"
  dirs+=("$parent/$name")
done
for ((i = 0; i < 1500; i++)); do
  d=${dirs[$(( (i * 104729) % ${#dirs[@]} ))]}
  case $((i % 6)) in
    0) f="f$i.c" ;; 1) f="f$i.o" ;; 2) f="file $i.txt" ;; 3) f=".f$i" ;; 4) f="ß$i" ;; *) f="f$i" ;;
  esac
  head -c $(( (i * 37) % 9000 )) /dev/zero | tr '\0' 'x' >"$d/$f"
done
ln -s "f0.c" "$t/link-to-file" 2>/dev/null || true
ln "$t/f0.c" "$t/hard-link-of-f0" 2>/dev/null || ln "$(find "$t" -type f | head -1)" "$t/hard-link"
mkfifo "$t/a-fifo"

# walk = find -mindepth 1
"$STRATA" walk "$t" >"$work/walk.txt" 2>"$work/walk.err"; rc=$?
same "walk exit" 0 "$rc"
find "$t" -mindepth 1 >"$work/find.txt"
same_lines "walk lists what find lists" "$work/find.txt" "$work/walk.txt"
same "walk entry count" "$(wc -l <"$work/find.txt")" "$(wc -l <"$work/walk.txt")"

"$STRATA" walk --threads 1 "$t" >"$work/walk1.txt"
same_lines "one thread lists the same" "$work/find.txt" "$work/walk1.txt"

"$STRATA" walk --max-depth 2 "$t" >"$work/walk-d2.txt"
find "$t" -mindepth 1 -maxdepth 2 >"$work/find-d2.txt"
same_lines "--max-depth 2 = find -maxdepth 2" "$work/find-d2.txt" "$work/walk-d2.txt"

"$STRATA" walk --exclude '*.o' --exclude node_modules "$t" >"$work/walk-ex.txt"
find "$t" -mindepth 1 \( -name node_modules -prune \) -o \( -name '*.o' \) -o -print >"$work/find-ex.txt"
same_lines "excludes prune like find -prune" "$work/find-ex.txt" "$work/walk-ex.txt"
grep -q node_modules "$work/walk-ex.txt" && fail "excluded node_modules still listed" || pass

# --json: one object per entry, file sizes as find reports them
"$STRATA" walk --json "$t" >"$work/walk.json"
same "json lines" "$(wc -l <"$work/find.txt")" "$(wc -l <"$work/walk.json")"
want=$(find "$t" -mindepth 1 -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}')
got=$(jq -s '[.[] | select(.kind=="file") | .size] | add' "$work/walk.json")
same "json file sizes add up" "$want" "$got"
same "json kinds" "$(find "$t" -mindepth 1 -type d | wc -l)" "$(jq -s '[.[] | select(.kind=="dir")] | length' "$work/walk.json")"

# du: files and bytes of each inode once (the hard link counts once), directories
"$STRATA" du --json "$t" >"$work/du.json"; rc=$?
same "du exit" 0 "$rc"
want_files=$(find "$t" -type f -printf '%i\n' | sort -u | wc -l)
want_bytes=$(find "$t" -type f -printf '%i %s\n' | sort -u | awk '{s+=$2} END {print s+0}')
want_dirs=$(find "$t" -mindepth 1 -type d | wc -l)
same "du files (hard links once)" "$want_files" "$(jq .files "$work/du.json")"
same "du bytes (hard links once)" "$want_bytes" "$(jq .bytes "$work/du.json")"
same "du directories" "$want_dirs" "$(jq .dirs "$work/du.json")"
same "du hard links" 1 "$(jq .hardLinks "$work/du.json")"
want_alloc=$(find "$t" \( -type f -o -type d \) -printf '%i %b\n' | sort -u | awk '{s+=$2*512} END {print s+0}')
same "du allocated = du's blocks" "$want_alloc" "$(jq .allocated "$work/du.json")"
# A subdirectory's line holds everything below it.
sub=$(jq -r '.directories[1].path' "$work/du.json")
sub_files=$(find "$sub" -type f -printf '%i\n' | sort -u | wc -l)
same "du per-directory totals" "$sub_files" "$(jq '.directories[1].files' "$work/du.json")"
"$STRATA" du --depth 1 --top 3 "$t" >"$work/du.txt"
top_want=$(( $(find "$t" -mindepth 1 -maxdepth 1 -type d | wc -l) + 1 )); (( top_want > 3 )) && top_want=3
same "du --top 3 lines (+ total line)" $((top_want + 1)) "$(wc -l <"$work/du.txt")"

# --- --follow: data -> src (a link back into the tree), a self loop, a link to a parent
f=$work/follow
mkdir -p "$f/src/pkg/a" "$f/src/pkg/b" "$f/src/cmd"
for d in pkg/a pkg/b cmd; do for i in 1 2 3; do echo "$d $i" >"$f/src/$d/x$i.go"; done; done
ln -s src "$f/data"
ln -s . "$f/src/pkg/self"
ln -s ../.. "$f/src/pkg/a/up"
expect 0 "walk --follow terminates" -- timeout 20 "$STRATA" walk --follow "$f"
printf '%s\n' "$out" >"$work/follow.txt"
# Each real directory once: under src/ or data/, never both, never through self or up.
real_dirs=$(find "$f" -mindepth 1 -type d | wc -l)
listed_dirs=$(jq -s 'length' <<<"$(timeout 20 "$STRATA" walk --follow --json "$f" | jq -c 'select(.kind=="dir")')")
same "--follow: each directory once" "$real_dirs" "$listed_dirs"
expect 0 "du --follow terminates" -- timeout 20 "$STRATA" du --follow --json "$f"
same "du --follow files once" 9 "$(jq .files <<<"$out")"
[ "$(jq .revisits <<<"$out")" -ge 2 ] && pass || fail "du --follow revisits: $(jq .revisits <<<"$out")"
expect 0 "walk without --follow" -- "$STRATA" walk "$f"
same "links reported, not followed" "$(find "$f" -mindepth 1 | wc -l)" "$(printf '%s\n' "$out" | wc -l)"

# --- an unreadable directory: reported, the rest still walked, exit 1
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"; }
  u=$work/unreadable
  mkdir -p "$u/open/deep" "$u/closed/inside"
  touch "$u/open/deep/a" "$u/closed/inside/b" "$u/top"
  chmod -R a+rX "$u"; chmod 000 "$u/closed"
  expect 1 "unreadable directory" -- as_nobody "$STRATA" walk "$u"
  contains "error names the directory" "$err" "closed"
  contains "error says why" "$err" "permission denied"
  contains "the rest is walked" "$out" "$u/open/deep/a"
  contains "the rest is walked" "$out" "$u/top"
  chmod 755 "$u/closed"
else
  skip "the unreadable-directory case needs root and setpriv"
fi

# --- bad input
expect 1 "missing root" -- "$STRATA" walk "$work/nope" && contains "missing root" "$err" "does not exist"
expect 2 "bad --max-depth" -- "$STRATA" walk --max-depth 0 "$t"
expect 2 "bad --threads" -- "$STRATA" walk --threads x "$t"

# --- memory: the demo store, walked by listing
expect 0 "walk memory demo" -- "$STRATA" walk memory://demo/
contains "memory walk" "$out" "/data/logs/server.log"
contains "memory walk dirs" "$out" "/docs"

# --- S3: the tree uploaded, then walked with the flat listing; same relative paths
if [ "$WITH_S3" = s3 ]; then
  [ -f "${STRATA_S3_ENVFILE:-}" ] || { echo "FAIL: no s3rver env file (run through CTest, fixture s3rver)"; exit 1; }
  set -a; source "$STRATA_S3_ENVFILE"; set +a
  prefix=walk-$RANDOM$RANDOM
  s3="s3://$STRATA_S3_BUCKET/$prefix/?endpoint=$STRATA_S3_ENDPOINT"
  rm -f "$t/a-fifo" "$t/link-to-file"
  expect 0 "upload the tree" -- "$STRATA" cp -r "$t" "$s3" # lands under $prefix/tree/
  s3="s3://$STRATA_S3_BUCKET/$prefix/tree/?endpoint=$STRATA_S3_ENDPOINT"
  expect 0 "walk s3" -- "$STRATA" walk "$s3"
  printf '%s\n' "$out" | sed "s|^/$prefix/tree/||" >"$work/s3.txt"
  (cd "$t" && find . -mindepth 1 | sed 's|^\./||') >"$work/local.txt"
  same_lines "s3 walk = local tree" "$work/local.txt" "$work/s3.txt"
  expect 0 "du s3" -- "$STRATA" du --json "$s3"
  same "s3 du files" "$(find "$t" -type f | wc -l)" "$(jq .files <<<"$out")"
  same "s3 du bytes" "$(find "$t" -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}')" "$(jq .bytes <<<"$out")"
  "$STRATA" rm -r "s3://$STRATA_S3_BUCKET/$prefix/?endpoint=$STRATA_S3_ENDPOINT" >/dev/null 2>&1
fi

finish
