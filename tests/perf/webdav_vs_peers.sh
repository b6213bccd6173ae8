#!/usr/bin/env bash
# Strata's WebDAV backend against rclone (webdav remote) and curl on the same lighttpd
# (issue #10), with the data sets of s3_vs_peers.sh:
#   small   200 x 4 KiB    upload, download
#   medium   20 x 4 MiB    upload, download
#   large     4 x 16 MiB   upload, download
# Every run goes into a fresh collection / a fresh local directory; each download is
# compared with its source (diff -r). Tools take turns: the order rotates every round.
# curl is the floor of one connection doing one file after another: one curl process per
# set and direction (-T {files} up, --remote-name-all down), its connection kept alive.
# Prints every run, then medians and the ratios strata/rclone and strata/curl. Goal: strata
# fastest everywhere.
#
# Usage: tests/perf/webdav_vs_peers.sh [RUNS=5]
# Env:   PERF_DIR (/var/tmp), STRATA (the release binary), STRATA_SKIP_BUILD=1,
#        STRATA_JOBS (strata's --jobs; unset: its default), SETS ("small medium large").
#
# All traffic stays on 127.0.0.1: the server is our own lighttpd (its open area, no
# credentials), every tool gets the URL explicitly, proxies are off, rclone reads no config
# of the user's, and one traced run per tool fails the script if it reached for any other
# address.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-5}
[ -n "${STRATA_STATE_DIR:-}" ] && own_state=0 || own_state=1
perf_setup
"$perf_root/tests/servers/lighttpd.sh" check
perf_workdir davperf # HOME in it: no ~/.netrc, ~/.curlrc or rclone config of the user's

# --- only 127.0.0.1, and none of the user's settings
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy=127.0.0.1,localhost NO_PROXY=127.0.0.1,localhost
unset STRATA_WEBDAV_USER STRATA_WEBDAV_PASSWORD

perf_server_start lighttpd "$work/server"
[[ $endpoint =~ ^http://127\.0\.0\.1:[0-9]+$ ]] || { echo "unexpected endpoint '$endpoint'" >&2; exit 1; }
peers_webdav

echo "strata: $STRATA ($("$STRATA" --version 2>&1 | head -1))"
echo "rclone: $(rcl version 2>/dev/null | head -1) (default --transfers 4, --checkers 8)"
echo "curl:   $(curl --version | head -1 | cut -d' ' -f1-2) (one process per set and direction, one connection)"
echo "lighttpd: $endpoint ($(/usr/sbin/lighttpd -v 2>&1 | head -1)), data in $work (page cache: $PERF_CACHE), $runs runs each"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

# --- data (random bytes) on local disk
declare -A set_files=([small]=200 [medium]=20 [large]=4) set_kib=([small]=4 [medium]=4096 [large]=16384)
read -ra sets <<<"${SETS-small medium large}"
make_set_data small medium large # all three: the loopback check uses the small one

warm() { drop_caches; curl --version >/dev/null; }

tools=(strata rclone curl)
declare -A results

purge() { rcl purge "dav:$1"; }

# --- no tool talks to anything but 127.0.0.1: one traced upload and download each
check_tools_loopback

# --- upload and download of each set
time_transfer_sets "$runs" "${sets[@]}"

# --- table
med() { printf '%s\n' ${results["$1"]} | median; }
echo
echo "== medians over $runs runs (seconds, lower is better)"
printf '%-16s %9s %9s %9s   %13s %11s   %s\n' case strata rclone curl strata/rclone strata/curl "fastest"
for row in $(for set in "${sets[@]}"; do echo "$set-up $set-down"; done); do
  s=$(med "$row,strata"); r=$(med "$row,rclone"); c=$(med "$row,curl")
  best=$(printf '%s %s\n' "$s" strata "$r" rclone "$c" curl | sort -g | head -1 | cut -d' ' -f2)
  printf '%-16s %9.3f %9.3f %9.3f   %13s %11s   %s\n' "$row" "$s" "$r" "$c" "$(ratio "$s" "$r")" "$(ratio "$s" "$c")" "$best"
done
echo
echo "sets: small = 200 x 4 KiB, medium = 20 x 4 MiB, large = 4 x 16 MiB; goal (issue #10): strata fastest"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
