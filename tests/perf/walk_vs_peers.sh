#!/usr/bin/env bash
# strata walk / strata du against find, fdfind -u, du -s and gdu -n (issue #6), warm cache:
#   workspace   ~1 000 directories / 25 000 files, shaped like a source tree (depth ~7)
#   large       ~20 000 directories / 200 000 files
# Each tool runs RUNS times per tree (the order rotates); prints every run, then medians,
# peak memory and the ratios strata walk / fdfind and strata du / du -s.
# Goals: walk <= 0.85x fdfind -u; du <= 0.5x du -s; peak memory <= 50 MiB.
#
# Usage: tests/perf/walk_vs_peers.sh [RUNS=5]
# Env:   PERF_DIR (/var/tmp; the trees are kept there between runs), STRATA, STRATA_SKIP_BUILD=1
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-5}
perf_setup
root=${PERF_DIR:-/var/tmp}/strata-walk-trees
mkdir -p "$root"

# make_tree DIR DIRS FILES DEPTH: deterministic (the same tree on every machine and run).
make_tree() {
  local dir=$1 ndirs=$2 nfiles=$3 depth=$4
  [ -f "$dir/.complete" ] && return 0
  rm -rf "$dir"; mkdir -p "$dir"
  python3 - "$dir" "$ndirs" "$nfiles" "$depth" <<'EOF'
import os, random, sys
root, ndirs, nfiles, depth = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(20261130)
names = ["src", "pkg", "internal", "cmd", "api", "util", "test", "vendor", "lib", "core", "io", "net", "fs"]
dirs = [(root, 0)]
while len(dirs) < ndirs:
    parent, d = dirs[rnd.randrange(len(dirs))]
    if d >= depth:
        continue
    path = os.path.join(parent, "%s%d" % (rnd.choice(names), len(dirs)))
    os.mkdir(path)
    dirs.append((path, d + 1))
exts = [".go", ".c", ".h", ".py", ".md", ".json", "_test.go", ".o"]
for i in range(nfiles):
    parent, _ = dirs[rnd.randrange(len(dirs))]
    with open(os.path.join(parent, "f%d%s" % (i, rnd.choice(exts))), "wb") as f:
        f.write(b"x" * rnd.choice([0, 120, 900, 4000, 12000]))
EOF
  touch "$dir/.complete"
}
make_tree "$root/workspace" 1000 25000 7
make_tree "$root/large" 20000 200000 6

echo "strata: $STRATA ($("$STRATA" --version 2>&1 | head -1)); $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "find $(find --version | head -1 | grep -oE '[0-9.]+$'), fdfind $(fdfind --version | cut -d' ' -f2), du $(du --version | head -1 | grep -oE '[0-9.]+$'), gdu $(gdu --version 2>&1 | grep -oE 'v?[0-9]+\.[0-9.]+' | head -1)"

export STRATA
declare -A tool_cmd=(
  [strata-walk]='"$STRATA" walk "$tree"'
  [find]='find "$tree" -mindepth 1'
  [fdfind]='fdfind -u . "$tree"'
  [strata-du]='"$STRATA" du --depth 0 "$tree"'
  [du]='du -s "$tree"'
  [gdu]='gdu -n "$tree"'
)
tools=(strata-walk find fdfind strata-du du gdu)
declare -A wall rss
for name in workspace large; do
  export tree=$root/$name
  entries=$(find "$tree" -mindepth 1 | wc -l)
  # The same entries: strata walk lists exactly what find lists.
  diff -q <("$STRATA" walk "$tree" | sort) <(find "$tree" -mindepth 1 | sort) >/dev/null \
    || { echo "strata walk and find disagree on $tree" >&2; exit 1; }
  echo "tree $name: $entries entries (strata walk = find: checked)"
  for tool in "${tools[@]}"; do bash -c "${tool_cmd[$tool]}" >/dev/null 2>&1; done # warm the cache
  for ((i = 0; i < runs; i++)); do
    order=("${tools[@]:$((i % ${#tools[@]}))}" "${tools[@]:0:$((i % ${#tools[@]}))}")
    for tool in "${order[@]}"; do
      # Wall time from the shell's microsecond clock (time's own is 10 ms coarse), peak RSS
      # from time; both include the same fork and exec of a small shell for every tool.
      t0=$EPOCHREALTIME
      m=$( { /usr/bin/time -f '%M' bash -c "exec ${tool_cmd[$tool]} >/dev/null 2>&1" ; } 2>&1 | tail -1)
      t1=$EPOCHREALTIME
      us=$(( ${t1/[.,]/} - ${t0/[.,]/} ))
      wall["$name,$tool"]+="$(printf '%d.%06d' $((us / 1000000)) $((us % 1000000))) "
      rss["$name,$tool"]+="$m "
    done
  done
done

med() { printf '%s\n' ${wall["$1"]} | median; }
peak() { printf '%s\n' ${rss["$1"]} | sort -n | tail -1; }
echo
echo "== medians over $runs runs (seconds, warm cache; peak RSS in MiB)"
printf '%-10s %-12s %8s %9s\n' tree tool wall "peak MiB"
for name in workspace large; do
  for tool in "${tools[@]}"; do
    printf '%-10s %-12s %8.3f %9.1f\n' "$name" "$tool" "$(med "$name,$tool")" "$(echo "$(peak "$name,$tool") / 1024" | bc -l)"
  done
done
echo
echo "== ratios (lower is better)"
for name in workspace large; do
  w=$(ratio "$(med "$name,strata-walk")" "$(med "$name,fdfind")")
  wf=$(ratio "$(med "$name,strata-walk")" "$(med "$name,find")")
  d=$(ratio "$(med "$name,strata-du")" "$(med "$name,du")")
  dg=$(ratio "$(med "$name,strata-du")" "$(med "$name,gdu")")
  mem=$(echo "$(peak "$name,strata-du") / 1024" | bc -l | xargs printf '%.1f')
  printf '%-10s walk/fdfind %s (goal <= 0.85)  walk/find %s  du/du-s %s (goal <= 0.50)  du/gdu %s  strata peak %s MiB (goal <= 50)\n' \
    "$name" "$w" "$wf" "$d" "$dg" "$mem"
done
