#!/usr/bin/env bash
# Strata's transfer engine against cp and rclone on the same local data (issue #3):
#   1. one large file (default 2 GiB)       goal: within 1.05x of cp
#   2. a sparse file (4 GiB, 10 % data)     goal: faster than cp, as sparse
#   3. a tree (20 000 files of 1-64 KiB in 2 000 directories)
#                                            goal: faster than cp -r and rclone; peak RSS < 64 MiB
# Prints every run, medians and ratios. Usage: tests/perf/copy_vs_peers.sh [RUNS=5]
# Env: BIG_MIB (2048), SPARSE_MIB (4096), TREE_FILES (20000), PERF_DIR (/var/tmp).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-5}
big_mib=${BIG_MIB:-2048}
sparse_mib=${SPARSE_MIB:-4096}
tree_files=${TREE_FILES:-20000}
perf_setup
work=$(mktemp -d "${PERF_DIR:-/var/tmp}/strata-perf-XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "strata: $STRATA"
echo "data in $work ($(df -T "$work" | awk 'NR==2 {print $2}')), page cache: $PERF_CACHE, $runs runs each"

# --- data
head -c "$((big_mib << 20))" /dev/urandom >"$work/big.bin"
truncate -s "$((sparse_mib << 20))" "$work/sparse.img"
regions=40 region_mib=$(( sparse_mib / 10 / 40 ))
for i in $(seq 0 $((regions - 1))); do
  dd if=/dev/urandom of="$work/sparse.img" bs=1M count="$region_mib" seek=$(( i * sparse_mib / regions )) conv=notrunc status=none
done
mkdir -p "$work/tree"
dirs=$(( tree_files / 10 ))
awk -v files="$tree_files" -v dirs="$dirs" -v root="$work/tree" 'BEGIN {
  srand(42);
  for (d = 0; d < dirs; d++) system("mkdir -p " root "/d" int(d / 50) "/s" d);
  for (f = 0; f < files; f++) {
    d = f % dirs; size = 1024 + int(rand() * 63 * 1024);
    printf "%s/d%d/s%d/f%05d %d\n", root, int(d / 50), d, f, size;
  }
}' | while read -r path size; do head -c "$size" /dev/urandom >"$path"; done
echo "tree: $(find "$work/tree" -type f | wc -l) files, $(find "$work/tree" -mindepth 1 -type d | wc -l) dirs, $(du -sh "$work/tree" | cut -f1)"
sync

declare -A results

# rclone copies a directory's contents: give it single files through a one-file dir.
mkdir -p "$work/one" "$work/sparse-one"
ln "$work/big.bin" "$work/one/big.bin"
ln "$work/sparse.img" "$work/sparse-one/sparse.img"
rclone_file() { local src_dir=$1 dst=$2; rclone --config /dev/null copy "$src_dir" "$dst.d" && mv "$dst.d"/* "$dst" && rmdir "$dst.d"; }

run_file_case() {
  local name=$1 src=$2 src_dir=$3 dst=$4
  for i in $(seq "$runs"); do
    for tool in cp strata rclone; do
      rm -rf "$dst" "$dst.d"; drop_caches
      case $tool in
        cp)     t=$(time_cmd cp "$src" "$dst") ;;
        strata) t=$(time_cmd "$STRATA" cp "$src" "$dst") ;;
        rclone) t=$(time_cmd rclone_file "$src_dir" "$dst") ;;
      esac
      cmp -s "$src" "$dst" || { echo "$tool produced a different $name" >&2; exit 1; }
      alloc=$(du -k "$dst" | cut -f1)
      results["$name,$tool"]+="$t "
      results["$name,$tool,alloc"]="$alloc"
      printf '%-8s run %d %-7s %7.3f s  (%d MiB allocated)\n' "$name" "$i" "$tool" "$t" $((alloc / 1024))
    done
  done
}

run_file_case big "$work/big.bin" "$work/one" "$work/big.out"
run_file_case sparse "$work/sparse.img" "$work/sparse-one" "$work/sparse.out"

for i in $(seq "$runs"); do
  for tool in cp-r strata rclone; do
    rm -rf "$work/tree.out"; drop_caches
    case $tool in
      cp-r)   t=$(time_cmd cp -r "$work/tree" "$work/tree.out") ;;
      strata) t=$(time_cmd "$STRATA" cp -r "$work/tree" "$work/tree.out") ;;
      rclone) t=$(time_cmd rclone --config /dev/null copy "$work/tree" "$work/tree.out") ;;
    esac
    diff -rq "$work/tree" "$work/tree.out" >/dev/null || { echo "$tool copied the tree wrong" >&2; exit 1; }
    results["tree,$tool"]+="$t "
    printf '%-8s run %d %-7s %7.3f s\n' tree "$i" "$tool" "$t"
  done
done
rm -rf "$work/tree.out"; drop_caches
rss=$(peak_rss_kib "$STRATA" cp -r "$work/tree" "$work/tree.out")

med() { printf '%s\n' ${results["$1"]} | median; }
echo
echo "== medians over $runs runs (lower is better)"
printf '%-28s %10s %10s %10s   %s\n' case cp strata rclone "strata/cp  strata/rclone"
for name in big sparse; do
  c=$(med "$name,cp"); s=$(med "$name,strata"); r=$(med "$name,rclone")
  printf '%-28s %9.3fs %9.3fs %9.3fs   %8s %14s\n' "$name" "$c" "$s" "$r" "$(ratio "$s" "$c")" "$(ratio "$s" "$r")"
done
c=$(med "tree,cp-r"); s=$(med "tree,strata"); r=$(med "tree,rclone")
printf '%-28s %9.3fs %9.3fs %9.3fs   %8s %14s\n' "tree (cp -r)" "$c" "$s" "$r" "$(ratio "$s" "$c")" "$(ratio "$s" "$r")"
echo
echo "sparse destination allocated: cp $((${results[sparse,cp,alloc]} / 1024)) MiB, strata $((${results[sparse,strata,alloc]} / 1024)) MiB, rclone $((${results[sparse,rclone,alloc]} / 1024)) MiB (data: $((sparse_mib / 10)) MiB)"
echo "strata cp -r tree: peak RSS $((rss / 1024)) MiB (goal < 64 MiB)"
