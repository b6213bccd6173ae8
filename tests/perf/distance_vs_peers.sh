#!/usr/bin/env bash
# shellcheck disable=SC2317 # the tools' functions run by name (up_$tool, list_$tool)
# Strata and its peers at a distance (issue 43): every network backend is reached through
# tests/perf/delay_proxy.js, which delays each direction by RTT/2, at round trips of 0, 20
# and 80 ms. RTT 0 goes through the same proxy with no delay: every row pays the same
# user-space hop (and cap), so rows differ by the delay alone. Cases:
#   large   1 x LARGE_MIB (64) MiB                upload, download (a folder holding it)
#   small   SMALL_FILES (2000) x SMALL_KIB (4) KiB upload, download
#   list    one folder of LIST_ENTRIES (10 000) empty files, made untimed on the server
# Peers, on the same server through the same proxy:
#   sftp    OpenSSH sftp (one file at a time), rclone             sshd (tests/servers/sshd.sh)
#   ftp     curl (8 files at a time), lftp (mirror --parallel=8)  Pure-FTPd, plain FTP
#           and lftptemp (the same, xfer:use-temp-file: a temporary name renamed into
#           place, as Strata writes)
#   ftps    the same over explicit TLS                            Pure-FTPd: the control
#           connection's TLS ends in the proxy, to read PASV/EPSV (see delay_proxy.js)
#   webdav  rclone, curl (one connection, one file after another) lighttpd, its open area
#   s3      rclone, aws-cli                                       s3rver, or Ceph's radosgw
#           with S3_SERVER=rgw (s3rver copies the parts of a multipart upload into one
#           file at its end, single-threaded: 0.25 s for 64 MiB that radosgw does not spend)
# rclone runs with its defaults (--transfers 4), Strata with its own (--jobs 8).
# Listings: `strata ls` against `ls -1` in sftp, `rclone lsf` (FTP too: the goal's peer),
# `curl -l` (NLST: names only, which Pure-FTPd answers without a stat per entry) and
# `lftp cls -1`, curl PROPFIND (Depth 1: lighttpd refuses a PROPFIND without it),
# `aws s3 ls`; each must show all the entries (checked once per tool and RTT, untimed).
# Every run goes into a fresh folder on the server and a fresh local folder; each download
# is compared with its source (diff -r). Tools take turns: the order rotates every round.
# Prints every run, then one table: the medians per backend, case and RTT, and Strata's
# over the fastest peer's (below 1: Strata is faster).
#
# Usage: tests/perf/distance_vs_peers.sh
# Env:   RUNS (3), BACKENDS ("sftp ftp ftps webdav s3"), RTTS ("0 20 80"),
#        CASES ("large small list"), LARGE_MIB (64), SMALL_FILES (2000), SMALL_KIB (4),
#        LIST_ENTRIES (10000), CAP_MBIT (none: a cap each way, shared by all connections),
#        PERF_DIR (/var/tmp), STRATA (the release binary), STRATA_SKIP_BUILD=1, STRATA_JOBS,
#        S3_SERVER (s3rver; rgw).
#
# Quirks met: known_hosts is per host:port, so each proxy port gets a line with the
# server's key (every SFTP tool checks it strictly); s3rver runs with
# NODE_OPTIONS=--openssl-legacy-provider for paged listings (tests/servers/s3rver.sh);
# rclone 1.60 fails with AWS_CA_BUNDLE set (perf_setup unsets it); lftp would switch to
# TLS by itself where the server offers it, so plain FTP sets ftp:ssl-allow no.
# All traffic stays on 127.0.0.1: our own servers and proxy, every tool gets the address
# explicitly, HOME is a scratch folder, proxies are off, and one traced upload and
# download per tool and backend (through the proxy, no delay) fails the script if it
# reached for any other address.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
runs=${RUNS:-3}
read -ra backends <<<"${BACKENDS:-sftp ftp ftps webdav s3}"
read -ra rtts <<<"${RTTS:-0 20 80}"
read -ra cases <<<"${CASES:-large small list}"
list_entries=${LIST_ENTRIES:-10000}
cap=${CAP_MBIT:-}
[ -n "${STRATA_STATE_DIR:-}" ] && own_state=0 || own_state=1
perf_setup
perf_workdir distance
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY ftp_proxy FTP_PROXY
export no_proxy=127.0.0.1,localhost NO_PROXY=127.0.0.1,localhost

has_case() { [[ " ${cases[*]} " == *" $1 "* ]]; }
# list_seed DIR: DIR holds the listing's entries, empty files.
list_seed() { mkdir -p "$1" && (cd "$1" && seq -f 'e%05.0f' 1 "$list_entries" | xargs touch); }
list_strata() { "$STRATA" ls "$(uri list/)"; }
warm() { drop_caches; }

# Per backend: setup_B starts its server (target: the port the proxy forwards to), sets
# tools, the proxy's options and the server's folder root (cleaned up locally, untimed),
# and seeds the listing; via_B, after each proxy start (port), points the tools at it.
setup_sftp() {
  unset SSH_AUTH_SOCK STRATA_SFTP_PASSWORD
  perf_server_start sshd "$work/sftp"
  # shellcheck disable=SC1091
  source "$work/sftp/sshd.env"
  target=$STRATA_SFTP_PORT key=$STRATA_SFTP_KEY user=$STRATA_SFTP_USER root=$STRATA_SFTP_ROOT/upload
  known=$work/sftp/known_hosts_proxied
  : >"$known"
  tools=(strata sftp rclone) proxy_args=()
  if has_case list; then list_seed "$root/list"; fi
}
via_sftp() {
  echo "[127.0.0.1]:$port $(cut -d' ' -f1-2 "$work/sftp/host_ed25519.pub")" >>"$known"
  peers_sftp
  list_sftp() { echo "ls -1 /upload/list" | sftpb | grep -v '^sftp>'; }
  list_rclone() { rcl lsf ssh:/upload/list; }
}
purge_sftp() { rm -rf "${root:?}/$1"; }

# One Pure-FTPd serves ftp and ftps.
setup_ftp() {
  [ -f "$work/ftp/pureftpd.env" ] || perf_server_start pureftpd "$work/ftp"
  # shellcheck disable=SC1091
  source "$work/ftp/pureftpd.env"
  target=$STRATA_FTP_PORT user=$STRATA_FTP_USER ca=$STRATA_FTP_CA root=$STRATA_FTP_ROOT/upload tls=0
  export STRATA_FTP_PASSWORD
  tools=(strata curl lftp lftptemp) list_tools=(strata curl lftp rclone) proxy_args=(--ftp)
  if has_case list && [ ! -d "$root/list" ]; then
    list_seed "$root/list"
    chown -R nobody:nogroup "$root/list" 2>/dev/null || true # the server's user
  fi
}
setup_ftps() { setup_ftp; tls=1 proxy_args=(--ftp --tls "$work/ftp/cert.pem"); }
via_ftp() {
  peers_ftp
  # lftpc COMMANDS: lftp logged in, failing on the first error; no retries.
  lftpc() {
    local tls_set="set ftp:ssl-allow no"
    [ "$tls" = 1 ] && tls_set="set ftp:ssl-force yes; set ftp:ssl-protect-data yes; set ssl:ca-file \"$ca\""
    LFTP_PASSWORD=$STRATA_FTP_PASSWORD lftp -c "set cmd:fail-exit yes; set net:max-retries 1; $tls_set;
      open --env-password -u $user ftp://127.0.0.1:$port; $1"
  }
  up_lftp() { lftpc "mkdir -p -f \"/upload/$2\"; mirror -R --parallel=8 \"$1\" \"/upload/$2/$(basename "$1")\""; }
  down_lftp() { lftpc "mirror --parallel=8 \"/upload/$1\" \"$2/$(basename "$1")\""; }
  # lftptemp: lftp writing each file under a temporary name and renaming it into place
  # (xfer:use-temp-file), the promise Strata keeps (nothing half-written under the name):
  # two more round trips a file than lftp's default.
  up_lftptemp() { lftpc "set xfer:use-temp-file yes; mkdir -p -f \"/upload/$2\"; mirror -R --parallel=8 \"$1\" \"/upload/$2/$(basename "$1")\""; }
  down_lftptemp() { lftpc "set xfer:use-temp-file yes; mirror --parallel=8 \"/upload/$1\" \"$2/$(basename "$1")\""; }
  list_curl() { curlftp -l "ftp://127.0.0.1:$port/upload/list/" | tr -d '\r' | grep -vxE '\.\.?'; }
  list_lftp() { lftpc "cls -1 /upload/list"; }
  list_rclone() { rcl lsf ftp:/upload/list; }
  export -f lftpc up_lftp down_lftp up_lftptemp down_lftptemp
}
via_ftps() { via_ftp; }
purge_ftp() { rm -rf "${root:?}/$1"; }
purge_ftps() { purge_ftp "$@"; }

setup_webdav() {
  perf_server_start lighttpd "$work/webdav"
  target=${endpoint##*:} root=$(cat "$work/webdav/lighttpd.datadir")/root/open
  tools=(strata rclone curl) proxy_args=()
  if has_case list; then list_seed "$root/list"; fi
}
via_webdav() {
  endpoint=http://127.0.0.1:$port
  peers_webdav
  list_rclone() { rcl lsf dav:list; }
  list_curl() { curlq -X PROPFIND -H 'Depth: 1' "$endpoint/open/list/" | grep -o '<D:href>[^<]*</D:href>' | grep -v '/</D:href>$'; }
}
purge_webdav() { rm -rf "${root:?}/$1"; }

setup_s3() {
  s3_peer_env "$work/aws"
  if [ "${S3_SERVER:-s3rver}" = rgw ]; then # Ceph's radosgw: a multipart upload's end costs it no copy
    # Nagle off: through the proxy, the proxy's delayed ACKs (not the tool's) would hold an
    # answer's body 40 ms behind its head (tests/servers/rgw.sh, RGW_TCP_NODELAY).
    RGW_TCP_NODELAY=1 perf_server_start rgw "$work/s3"
    # shellcheck disable=SC1091
    {
      AWS_ACCESS_KEY_ID=$(. "$work/s3/rgw.env" && echo "$AWS_ACCESS_KEY_ID")
      AWS_SECRET_ACCESS_KEY=$(. "$work/s3/rgw.env" && echo "$AWS_SECRET_ACCESS_KEY")
    }
  else
    "$perf_root/tests/servers/s3rver.sh" install
    perf_server_start s3rver "$work/s3"
  fi
  target=${endpoint##*:} bucket=strata-test
  tools=(strata rclone aws) proxy_args=()
  warm() { drop_caches; "$AWS_CLI" --version >/dev/null 2>&1 || true; } # a Python program: paged in untimed
  if has_case list; then # uploaded once, straight to the server, by rclone with 16 in flight
    list_seed "$work/data/list"
    peers_s3
    rcl copy --transfers 16 --checkers 16 --no-check-dest "$work/data/list" "s3r:$bucket/list"
  fi
}
via_s3() {
  endpoint=http://127.0.0.1:$port
  peers_s3
  list_rclone() { rcl lsf "s3r:$bucket/list"; }
  list_aws() { awss3 ls "s3://$bucket/list/"; }
}
purge_s3() { rcl purge "s3r:$bucket/$1"; }

# through_proxy BACKEND RTT: the proxy in front of the backend's server, tools pointed at it.
through_proxy() {
  start_delay_proxy "$target" $(($2 / 2)) ${cap:+--cap-mbit "$cap"} ${proxy_args[@]+"${proxy_args[@]}"}
  port=$proxy_port
  "via_$1"
  purge() { "purge_$backend" "$@"; }
}

echo "strata: $STRATA ($("$STRATA" --version 2>&1 | head -1))"
echo "peers:  $(ssh -V 2>&1); $(rcl version 2>/dev/null | head -1); $(curl --version | head -1 | cut -d' ' -f1-2);" \
  "$(lftp --version | head -1 | cut -d'|' -f1-2 | tr -s ' '); aws-cli $( (/usr/bin/aws --version 2>&1 || aws --version 2>&1) | cut -d' ' -f1)"
echo "proxy:  tests/perf/delay_proxy.js on $(node --version), RTTs ${rtts[*]} ms (RTT 0: the proxy, no delay), cap: ${cap:-none}${cap:+ Mbit/s each way}"
echo "cases:  ${cases[*]}; data in $work (page cache: $PERF_CACHE); $runs runs each; S3 server: ${S3_SERVER:-s3rver}"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

# shellcheck disable=SC2034 # make_set_data reads them
declare -A set_files=([large]=1 [small]=${SMALL_FILES:-2000}) set_kib=([large]=$((${LARGE_MIB:-64} << 10)) [small]=${SMALL_KIB:-4})
sets=()
for c in large small; do if has_case "$c"; then sets+=("$c"); fi; done
make_set_data small "${sets[@]}" # small always: the loopback check uses it

declare -A results all
declare -A peers_of list_peers_of took
start_all=$SECONDS
for backend in "${backends[@]}"; do
  start_backend=$SECONDS
  echo
  echo "== $backend"
  list_tools=()
  "setup_$backend"
  peers_of[$backend]="${tools[*]:1}"
  [ "${#list_tools[@]}" = 0 ] && list_tools=("${tools[@]}")
  list_peers_of[$backend]="${list_tools[*]:1}"
  through_proxy "$backend" 0
  check_tools_loopback
  stop_delay_proxy
  for rtt in "${rtts[@]}"; do
    echo "-- $backend at $rtt ms RTT"
    through_proxy "$backend" "$rtt"
    results=()
    time_transfer_sets "$runs" ${sets[@]+"${sets[@]}"}
    if has_case list; then
      transfer_tools=("${tools[@]}") tools=("${list_tools[@]}")
      time_listings "$runs" "$list_entries"
      tools=("${transfer_tools[@]}")
    fi
    stop_delay_proxy
    for k in "${!results[@]}"; do all["$backend $rtt $k"]=${results[$k]}; done
  done
  took[$backend]=$((SECONDS - start_backend))
done

# --- table
# med KEY: the median of all[KEY]'s runs; "failed" if one failed, "-" if none ran.
med() {
  local v=${all["$1"]:-}
  if [ -z "$v" ]; then echo -; elif [[ " $v " == *" failed "* ]]; then echo failed; else tr ' ' '\n' <<<"$v" | grep . | median; fi
}
rows=()
for s in ${sets[@]+"${sets[@]}"}; do rows+=("$s-up" "$s-down"); done
if has_case list; then rows+=(list); fi
echo
echo "== medians over $runs runs (seconds, lower is better); strata/best: Strata's over the fastest peer's"
echo "   (below 1: Strata is faster). Cap: ${cap:-none}; large = ${LARGE_MIB:-64} MiB, small = ${set_files[small]} x ${set_kib[small]} KiB, list = $list_entries entries"
most=2 # peer columns: as many as the backend with the most has
for backend in "${backends[@]}"; do
  for p in "${peers_of[$backend]}" "${list_peers_of[$backend]}"; do
    read -ra ps <<<"$p"
    ((${#ps[@]} > most)) && most=${#ps[@]}
  done
done
row_line() { # BACKEND ROW RTT STRATA VERDICT CELL...
  local line cells=("${@:6}")
  while ((${#cells[@]} < most)); do cells+=(""); done
  line=$(printf '%-7s %-10s %4s %9s  ' "$1" "$2" "$3" "$4")
  for c in "${cells[@]}"; do line+=$(printf ' %-17s' "$c"); done
  printf '%s %12s\n' "$line" "$5"
}
peer_heads=()
for ((i = 0; i < most; i++)); do peer_heads+=(peer); done
row_line backend case rtt strata strata/best "${peer_heads[@]}"
for backend in "${backends[@]}"; do
  for row in "${rows[@]}"; do
    peers=${peers_of[$backend]}
    [ "$row" = list ] && peers=${list_peers_of[$backend]}
    for rtt in "${rtts[@]}"; do
      s=$(med "$backend $rtt $row,strata") best="" best_tool="" cells=()
      for tool in $peers; do
        m=$(med "$backend $rtt $row,$tool")
        cells+=("$(printf '%-7s %9s' "$tool" "$(seconds "$m")")")
        if [[ $m =~ ^[0-9.]+$ ]] && { [ -z "$best" ] || (( $(echo "$m < $best" | bc -l) )); }; then best=$m best_tool=$tool; fi
      done
      verdict="-"
      [[ $s =~ ^[0-9.]+$ ]] && [ -n "$best" ] && verdict="$(ratio "$s" "$best") $best_tool"
      row_line "$backend" "$row" "$rtt" "$(seconds "$s")" "$verdict" "${cells[@]}"
    done
  done
done
echo
for backend in "${backends[@]}"; do printf '%s %d s, ' "$backend" "${took[$backend]}"; done
echo "all $((SECONDS - start_all)) s"
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
