#!/usr/bin/env bash
# Strata's FTP backend against the curl tool (libcurl, the library Strata's FTP goes
# through) and rclone (ftp remote) on the same Pure-FTPd (issue 28; the server of the
# tests, tests/servers/pureftpd.sh, chrooted, passive ports of its own):
#   large    1 x 1 GiB     upload, download
#   small 2000 x 4 KiB     upload, download
# Every run goes into a fresh folder on the server and a fresh local folder; each download
# is compared with its source (diff -r). Tools take turns: the order rotates every round.
# curl gets every file of a set in one invocation, 8 at a time (`curl -Z --parallel-max 8
# -T a url -T b url …`: one file after another, curl 7.88's easy loop sleeps 1 s at each
# file's EPSV data connection, 2 000 s for the small set); rclone its defaults
# (--transfers 4). FTPS=1 runs
# the same over explicit TLS (curl --ssl-reqd, rclone explicit_tls) with the fixture's CA.
# Prints every run, then medians, throughput and the ratios (above 1: Strata is faster).
#
# Usage: tests/perf/ftp_vs_peers.sh [RUNS=5]
# Env:   PERF_DIR (/var/tmp), STRATA (the release binary), STRATA_SKIP_BUILD=1,
#        SETS ("large small"), LARGE_MIB (1024), FTPS (0).
#
# All traffic stays on 127.0.0.1: our own Pure-FTPd, every tool gets the address
# explicitly, HOME is a scratch folder (no ~/.netrc or rclone config of the user's), and
# one traced run per tool fails the script if it reached for any other address.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-5}
[ -n "${STRATA_STATE_DIR:-}" ] && own_state=0 || own_state=1
perf_setup
start_perf_server pureftpd ftpperf
# shellcheck disable=SC1091
source "$work/server/pureftpd.env"
[ "$STRATA_FTP_HOST" = 127.0.0.1 ] || { echo "unexpected host $STRATA_FTP_HOST" >&2; exit 1; }
export STRATA_FTP_HOST STRATA_FTP_PASSWORD
port=$STRATA_FTP_PORT user=$STRATA_FTP_USER ca=$STRATA_FTP_CA
root=$STRATA_FTP_ROOT/upload # the server's folder, seen from here (for the untimed clean-up)
tls=${FTPS:-0}

peers_ftp

echo "strata: $STRATA ($("$STRATA" --version 2>&1 | head -1))"
echo "curl:   $(curl --version | head -1) (one invocation per set, 8 files at a time)"
echo "rclone: $(rcl version 2>/dev/null | head -1) (defaults: --transfers 4, --checkers 8)"
echo "server: Pure-FTPd on 127.0.0.1:$port, $([ "$tls" = 1 ] && echo "explicit TLS" || echo "plain FTP"); data in $work (page cache: $PERF_CACHE), $runs runs each"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

declare -A set_files=([large]=1 [small]=2000) set_kib=([large]=$((${LARGE_MIB:-1024} << 10)) [small]=4)
read -ra sets <<<"${SETS-large small}"
make_set_data small "${sets[@]}" # small always: the loopback check uses it

warm() { drop_caches; }
purge() { rm -rf "${root:?}/$1"; }

tools=(strata curl rclone)
declare -A results
check_tools_loopback
time_transfer_sets "$runs" "${sets[@]}"

print_transfer_medians "$runs" "${sets[@]}"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
