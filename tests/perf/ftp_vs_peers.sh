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

export RCLONE_CONFIG_FTP_TYPE=ftp RCLONE_CONFIG_FTP_HOST=127.0.0.1 RCLONE_CONFIG_FTP_PORT=$port \
  RCLONE_CONFIG_FTP_USER=$user RCLONE_CONFIG_FTP_PASS
RCLONE_CONFIG_FTP_PASS=$(rclone --config /dev/null obscure "$STRATA_FTP_PASSWORD")
curl_tls=()
if [ "$tls" = 1 ]; then
  export RCLONE_CONFIG_FTP_EXPLICIT_TLS=true SSL_CERT_FILE=$ca # rclone (Go) trusts the fixture's CA
  curl_tls=(--ssl-reqd --cacert "$ca")
fi
rcl() { rclone --config /dev/null "$@"; }
furi() { if [ "$tls" = 1 ]; then echo "ftps://$user@127.0.0.1:$port/upload/$1?ca=$ca"; else echo "ftp://$user@127.0.0.1:$port/upload/$1"; fi; }
# curlftp ARGS...: the curl tool with the fixture's login and no ~/.curlrc.
curlftp() { curl -q -s -S --noproxy '*' -u "$user:$STRATA_FTP_PASSWORD" "${curl_tls[@]}" "$@"; }
curlftp8() { curlftp -Z --parallel-max 8 "$@"; }

echo "strata: $STRATA ($("$STRATA" --version 2>&1 | head -1))"
echo "curl:   $(curl --version | head -1) (one invocation per set, 8 files at a time)"
echo "rclone: $(rcl version 2>/dev/null | head -1) (defaults: --transfers 4, --checkers 8)"
echo "server: Pure-FTPd on 127.0.0.1:$port, $([ "$tls" = 1 ] && echo "explicit TLS" || echo "plain FTP"); data in $work (page cache: $PERF_CACHE), $runs runs each"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

declare -A set_files=([large]=1 [small]=2000) set_kib=([large]=$((${LARGE_MIB:-1024} << 10)) [small]=4)
read -ra sets <<<"${SETS-large small}"
make_set_data small "${sets[@]}" # small always: the loopback check uses it

# Each tool's upload of DIR into PREFIX leaves the files at PREFIX/<basename DIR>/...;
# its download of PREFIX/<set> makes the local folder OUT/<set>.
up_strata() { "$STRATA" cp -r "$1" "$(furi "$2/")"; }
down_strata() { "$STRATA" cp -r "$(furi "$1")" "$2/"; }
up_curl() {
  local args=() f base="ftp://127.0.0.1:$port/upload/$2/$(basename "$1")"
  for f in "$1"/*; do args+=(-T "$f" "$base/${f##*/}"); done
  curlftp8 --ftp-create-dirs "${args[@]}"
}
down_curl() {
  local args=() name out="$2/$(basename "$1")"
  mkdir -p "$out"
  # The names from the server's listing (NLST): what a user of the curl tool would do.
  while IFS= read -r name; do
    name=${name%$'\r'}
    # (The fixture lists dot files, "." and ".." among them.)
    [ -n "$name" ] && [ "$name" != . ] && [ "$name" != .. ] && args+=(-o "$out/$name" "ftp://127.0.0.1:$port/upload/$1/$name")
  done < <(curlftp -l "ftp://127.0.0.1:$port/upload/$1/")
  curlftp8 "${args[@]}"
}
up_rclone() { rcl copy "$1" "ftp:/upload/$2/$(basename "$1")"; }
down_rclone() { rcl copy "ftp:/upload/$1" "$2/$(basename "$1")"; }
export STRATA port user tls ca STRATA_FTP_PASSWORD
export -f rcl furi curlftp curlftp8 up_strata down_strata up_curl down_curl up_rclone down_rclone
export curl_tls
warm() { drop_caches; }
purge() { rm -rf "${root:?}/$1"; }

tools=(strata curl rclone)
declare -A results
check_tools_loopback
time_transfer_sets "$runs" "${sets[@]}"

print_transfer_medians "$runs" "${sets[@]}"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
