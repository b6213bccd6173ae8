#!/usr/bin/env bash
# The Usage page's memory on a large tree (issue 26: a 1 000 000-entry scan stays under
# 300 MiB in the GUI). Makes a tree of FILES sparse files (1 000 per folder, sizes spread
# over four decades, on tmpfs so the disk is not what is measured), then runs the real
# application, `strata open --usage DIR`, on the offscreen platform and watches it: the
# scan is over once the process has used no CPU for 3 s. Prints the peak resident memory
# (VmHWM), the time to the end of the scan, and the same for the empty window as a
# baseline. Compare with `du -s` and `ncdu -0o-` (if installed) on the same tree.
#
# Usage: tests/perf/usage_memory.sh [FILES=1000000] [BUILD_DIR=build/release]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
files=${1:-1000000}
build=${2:-$root/build/release}
strata=$build/app/strata
if [ ! -x "$strata" ]; then
  cmake --preset release -S "$root" >/dev/null && cmake --build --preset release >/dev/null
fi
base=${TMPDIR_FOR_TREE:-/dev/shm}
tree=$(mktemp -d "$base/strata-usage-XXXXXX")
state=$(mktemp -d /tmp/strata-usage-state-XXXXXX)
trap 'rm -rf "$tree" "$state"' EXIT
echo "making $files files in $tree …"
python3 - "$tree" "$files" <<'EOF'
import os, sys, random
root, n = sys.argv[1], int(sys.argv[2])
random.seed(26)
exts = ["txt", "jpg", "mkv", "flac", "zip", "cpp", "qcow2", "dat", "pdf", "png"]
for i in range(n):
    d = os.path.join(root, "g%02d" % (i // 100000), "d%04d" % (i // 1000))
    if i % 1000 == 0:
        os.makedirs(d, exist_ok=True)
    fd = os.open(os.path.join(d, "file-%07d.%s" % (i, exts[i % len(exts)])), os.O_CREAT | os.O_WRONLY, 0o644)
    os.ftruncate(fd, int(10 ** random.uniform(2, 6)))  # sparse: no memory on tmpfs
    os.close(fd)
EOF

# run_app ARGS…: "peak_kib seconds" of strata open ARGS until it has been idle for 3 s.
run_app() {
  local start pid last=-1 idle=0 ticks end
  start=$(date +%s.%N)
  XDG_CONFIG_HOME=$state/config XDG_DATA_HOME=$state/data QT_QPA_PLATFORM=offscreen \
    "$strata" open "$@" >/dev/null 2>&1 &
  pid=$!
  end=$start
  while kill -0 "$pid" 2>/dev/null; do
    sleep 0.25
    ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo "$last")
    if [ "$ticks" = "$last" ]; then
      idle=$((idle + 1))
      [ $idle -ge 12 ] && break
    else
      idle=0
      last=$ticks
      end=$(date +%s.%N)
    fi
  done
  local peak
  peak=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  printf '%s %.2f\n' "$peak" "$(echo "$end - $start" | bc -l)"
}

read -r empty_kib empty_s < <(run_app)
read -r scan_kib scan_s < <(run_app --usage "$tree")
entries=$(find "$tree" | wc -l)
printf '%-34s %10s %9s\n' "" "peak RSS" "seconds"
printf '%-34s %7d MiB %9s\n' "window alone" $((empty_kib / 1024)) "$empty_s"
printf '%-34s %7d MiB %9s\n' "Usage page, $entries entries" $((scan_kib / 1024)) "$scan_s"
printf 'per entry above the window: %d bytes\n' $(((scan_kib - empty_kib) * 1024 / entries))
if command -v ncdu >/dev/null; then
  printf 'ncdu -0o-: %d MiB\n' $(($(/usr/bin/time -f %M ncdu -0o- "$tree" 2>&1 >/dev/null | tail -1) / 1024))
fi
printf 'du -s: %d MiB\n' $(($(/usr/bin/time -f %M du -s "$tree" 2>&1 >/dev/null | tail -1) / 1024))
[ $((scan_kib / 1024)) -lt 300 ] && echo "goal (< 300 MiB): met" || echo "goal (< 300 MiB): NOT met"
