#!/usr/bin/env bash
# Strata's SFTP backend against OpenSSH's sftp client and rclone (sftp remote) on the same
# sshd (issue 28; the server of the tests, tests/servers/sshd.sh: internal-sftp, chrooted):
#   large    1 x 1 GiB     upload, download
#   small 2000 x 4 KiB     upload, download
# Every run goes into a fresh folder on the server and a fresh local folder; each download
# is compared with its source (diff -r). Tools take turns: the order rotates every round.
# Each tool logs in with the fixture's key and checks the fixture's known_hosts.
# Prints every run, then medians, throughput and the ratios. Goals: large >= 0.9 x sftp's
# throughput and faster than rclone; small faster than both.
#
# Usage: tests/perf/sftp_vs_peers.sh [RUNS=5]
# Env:   PERF_DIR (/var/tmp), STRATA (the release binary), STRATA_SKIP_BUILD=1,
#        SETS ("large small"), LARGE_MIB (1024).
#
# All traffic stays on 127.0.0.1: our own sshd, every tool gets the address explicitly,
# HOME is a scratch folder (no ~/.ssh/config, agent or rclone config of the user's), and
# one traced run per tool fails the script if it reached for any other address.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${1:-5}
[ -n "${STRATA_STATE_DIR:-}" ] && own_state=0 || own_state=1
perf_setup
unset SSH_AUTH_SOCK STRATA_SFTP_PASSWORD
start_perf_server sshd sftpperf
# shellcheck disable=SC1091
source "$work/server/sshd.env"
[ "$STRATA_SFTP_HOST" = 127.0.0.1 ] || { echo "unexpected host $STRATA_SFTP_HOST" >&2; exit 1; }
key=$STRATA_SFTP_KEY known=$STRATA_SFTP_KNOWN_HOSTS port=$STRATA_SFTP_PORT user=$STRATA_SFTP_USER
root=$STRATA_SFTP_ROOT/upload # the server's folder, seen from here (for the untimed clean-up)

peers_sftp

echo "strata: $STRATA ($("$STRATA" --version 2>&1 | head -1))"
echo "sftp:   $(ssh -V 2>&1) (defaults: 64 requests of 32 KiB in flight, one file at a time)"
echo "rclone: $(rcl version 2>/dev/null | head -1) (defaults: --transfers 4, --checkers 8)"
echo "sshd:   127.0.0.1:$port, internal-sftp; data in $work (page cache: $PERF_CACHE), $runs runs each"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

declare -A set_files=([large]=1 [small]=2000) set_kib=([large]=$((${LARGE_MIB:-1024} << 10)) [small]=4)
read -ra sets <<<"${SETS-large small}"
make_set_data small "${sets[@]}" # small always: the loopback check uses it

warm() { drop_caches; sftp -V >/dev/null 2>&1 || true; }
purge() { rm -rf "${root:?}/$1"; }

tools=(strata sftp rclone)
declare -A results
check_tools_loopback
time_transfer_sets "$runs" "${sets[@]}"

print_transfer_medians "$runs" "${sets[@]}"
echo
echo "goals (issue 28): large >= 0.90x sftp's throughput and above rclone's; small faster than both"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
