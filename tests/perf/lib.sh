# shellcheck shell=bash
# Shared by the perf scripts: timing, medians, cache dropping, the release binary.
perf_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

perf_setup() {
  "$perf_root/scripts/bootstrap" perf >/dev/null
  STRATA=${STRATA:-$perf_root/build/release/app/strata}
  if [ -z "${STRATA_SKIP_BUILD:-}" ]; then
    cmake --preset release -S "$perf_root" >/dev/null && cmake --build --preset release >/dev/null
  fi
  # Peers must never send traffic anywhere; rclone 1.60 also fails with AWS_CA_BUNDLE set.
  unset AWS_CA_BUNDLE
  export STRATA_STATE_DIR=${STRATA_STATE_DIR:-$(mktemp -d /tmp/strata-perf-state-XXXXXX)}
  if sync && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
    PERF_CACHE="cold (page cache dropped before each run)"; PERF_DROP=1
  else
    PERF_CACHE="warm (cannot drop the page cache here)"; PERF_DROP=0
  fi
}

# Drops the page cache, then loads each tool once: the runs measure cold data, not how
# long a cold disk takes to page in Qt's libraries (a constant ~80 ms for strata).
drop_caches() {
  sync
  [ "$PERF_DROP" = 1 ] && echo 3 >/proc/sys/vm/drop_caches
  "$STRATA" --version >/dev/null; cp --version >/dev/null; rclone version >/dev/null 2>&1 || true
}

# time_cmd CMD...: seconds (wall) of one run, to stdout; the command's output is discarded.
time_cmd() {
  local start end errors
  errors=$(mktemp)
  start=$(date +%s.%N)
  "$@" >/dev/null 2>"$errors" || {
    echo "command failed: $*" >&2
    grep -v '^[[:space:]]*$' "$errors" | tail -n 2 | sed 's/^/  /' >&2
    rm -f "$errors"
    return 1
  }
  rm -f "$errors"
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}

# peak_rss_kib CMD...: peak resident memory of one run, in KiB.
peak_rss_kib() {
  /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1
}

# seconds S [UNIT]: S with three decimals and UNIT, or S as it is ("failed").
seconds() { if [[ $1 =~ ^[0-9.]+$ ]]; then printf '%.3f%s' "$1" "${2:-}"; else printf '%s' "$1"; fi; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.2f'; }

# loopback_only LOG CMD...: runs CMD once under strace and fails when it tried to reach any
# address but 127.0.0.1 / ::1 (a tool that fell back to real AWS, a metadata service, DNS).
# The addresses it used are in LOG. Without strace, says so and runs CMD untraced.
# CMD may be a shell function if it and the variables it uses are exported (export -f).
loopback_only() {
  local log=$1; shift
  if ! command -v strace >/dev/null; then
    echo "loopback check skipped: strace is not installed" >&2
    "$@" >/dev/null 2>&1
    return
  fi
  strace -f -qq -e trace=connect,sendto,sendmsg -o "$log" bash -c '"$@"' bash "$@" >/dev/null 2>&1 \
    || { echo "command failed: $*" >&2; return 1; }
  local others
  others=$(grep -oE 'inet_addr\("[^"]*"\)|inet_pton\(AF_INET6, "[^"]*"' "$log" \
    | grep -oE '"[^"]*"' | tr -d '"' | grep -vxE '127\.0\.0\.1|::1|::ffff:127\.0\.0\.1' | sort -u || true)
  if [ -n "$others" ]; then
    echo "$1 tried to reach $(echo $others) (strace log: $log)" >&2
    return 1
  fi
}

# The round trips of the scripts that time transfer tools against one server
# (s3_vs_peers.sh, webdav_vs_peers.sh). The caller defines, per tool of the array `tools`,
# up_TOOL DIR PREFIX (leaves DIR's files at PREFIX/<basename DIR>/) and down_TOOL
# PREFIX/SET OUT (makes OUT/SET), plus warm (before each timed run) and purge PREFIX
# (removes a remote prefix, untimed); the sets' data is in $work/data/SET.

# check_tools_loopback: one traced upload and download of the small set per tool; fails
# when a tool reached beyond 127.0.0.1 or the round trip differs.
check_tools_loopback() {
  local tool
  for tool in "${tools[@]}"; do
    loopback_only "$work/strace-$tool-up.log" "up_$tool" "$work/data/small" "check/$tool"
    mkdir -p "$work/check-$tool"
    loopback_only "$work/strace-$tool-down.log" "down_$tool" "check/$tool/small" "$work/check-$tool"
    diff -rq "$work/data/small" "$work/check-$tool/small" >/dev/null \
      || { echo "$tool: the traced round trip of the small set differs" >&2; exit 1; }
    rm -rf "$work/check-$tool"
  done
  purge check
  command -v strace >/dev/null && echo "loopback check: ${tools[*]} reached 127.0.0.1 only (strace of one upload and one download each)"
  return 0
}

# start_perf_server FIXTURE TAG: the server of tests/servers/FIXTURE.sh, started in a scratch
# folder $work (perf_workdir TAG); it stops on exit. Sets servers and work.
start_perf_server() {
  servers=$perf_root/tests/servers/$1.sh
  "$servers" check
  perf_workdir "$2"
  perf_server_start "$1" "$work/server"
}

# perf_workdir TAG: a scratch folder $work (under PERF_DIR, /var/tmp; named after TAG) with a
# scratch HOME in it; on exit the servers of perf_server_start and the delay proxy stop, and
# both folders go (and Strata's state folder, if perf_setup made it: the caller's own_state
# is 1).
perf_workdir() {
  work=$(mktemp -d "${PERF_DIR:-/var/tmp}/strata-$1-XXXXXX")
  trap perf_cleanup EXIT
  export HOME=$work/home
  mkdir -p "$HOME"
}

# perf_server_start FIXTURE DIR: starts the server of tests/servers/FIXTURE.sh with its state
# in DIR (stopped by perf_cleanup); sets endpoint to what its start printed.
perf_started=()
perf_server_start() {
  perf_started+=("$1:$2")
  endpoint=$("$perf_root/tests/servers/$1.sh" start "$2" 2>"$2.start.log") || { cat "$2.start.log" >&2; exit 1; }
}
perf_cleanup() {
  local s
  stop_delay_proxy
  for s in ${perf_started[@]+"${perf_started[@]}"}; do
    "$perf_root/tests/servers/${s%%:*}.sh" stop "${s#*:}" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
  if [ "${own_state:-0}" = 1 ]; then
    case "$STRATA_STATE_DIR" in /tmp/strata-perf-state-*) rm -rf "$STRATA_STATE_DIR" ;; esac
  fi
}

# start_delay_proxy TARGET-PORT DELAY_MS [OPTIONS...]: tests/perf/delay_proxy.js in front of
# 127.0.0.1:TARGET-PORT (its options: --cap-mbit N, --ftp, --tls PEM); sets proxy_port and
# proxy_pid. One at a time: stop_delay_proxy (or the exit) stops it.
proxy_pid=""
start_delay_proxy() {
  local out
  out=$(mktemp)
  node "$perf_root/tests/perf/delay_proxy.js" "$@" >"$out" &
  proxy_pid=$!
  for _ in {1..400}; do grep -q "^listening " "$out" && break; kill -0 "$proxy_pid" 2>/dev/null || break; sleep 0.05; done
  proxy_port=$(awk '/^listening /{print $2}' "$out")
  rm -f "$out"
  [ -n "$proxy_port" ] || { echo "delay_proxy.js did not start" >&2; exit 1; }
}
stop_delay_proxy() {
  if [ -n "$proxy_pid" ]; then kill "$proxy_pid" 2>/dev/null && wait "$proxy_pid" 2>/dev/null || true; fi
  proxy_pid=""
}

# make_set_data SET...: the caller's data sets under $work/data/SET, as many files of random
# bytes as set_files[SET], each set_kib[SET] KiB (a set already there is kept); then sync.
make_set_data() {
  local set f
  for set in "$@"; do
    [ -d "$work/data/$set" ] && continue
    mkdir -p "$work/data/$set"
    for ((f = 0; f < set_files[$set]; f++)); do
      head -c "$((set_kib[$set] << 10))" /dev/urandom >"$(printf '%s/data/%s/f%04d' "$work" "$set" "$f")"
    done
    echo "data $set: ${set_files[$set]} x ${set_kib[$set]} KiB ($(du -sh "$work/data/$set" | cut -f1))"
  done
  sync
}

# rotated ROUND: the caller's tools in the order of that round (from 1): the order rotates
# each round, so no tool always runs first (or right after another's).
rotated() {
  local k=$(( ($1 - 1) % ${#tools[@]} ))
  echo "${tools[@]:k}" "${tools[@]:0:k}"
}

# time_transfer_sets RUNS SET...: each set up and down RUNS times per tool, the order of
# the tools rotating every round; each download is compared with its source. The seconds
# go into the caller's associative array results["SET-up,TOOL"] / ["SET-down,TOOL"]. A peer
# tool that fails (its error shown) counts as "failed" in that run; Strata failing ends it.
time_transfer_sets() {
  local runs=$1 set i tool prefix out tu td; shift
  for set in "$@"; do
    for ((i = 1; i <= runs; i++)); do
      for tool in $(rotated "$i"); do
        prefix=runs/$set-$i-$tool out=$work/out/$set-$i-$tool
        mkdir -p "$out"
        local first=${tools[0]}
        warm; tu=$(time_cmd "up_$tool" "$work/data/$set" "$prefix") || { [ "$tool" = "$first" ] && exit 1; tu=failed; }
        td=failed
        if [ "$tu" != failed ]; then
          warm; td=$(time_cmd "down_$tool" "$prefix/$set" "$out") || { [ "$tool" = "$first" ] && exit 1; td=failed; }
        fi
        if [ "$td" != failed ]; then
          diff -r "$work/data/$set" "$out/$set" >/dev/null \
            || { echo "$tool: the download of $set (run $i) differs from its source" >&2; exit 1; }
        fi
        results["$set-up,$tool"]+="$tu "; results["$set-down,$tool"]+="$td "
        printf '%-7s run %d %-7s upload %11s   download %11s   %s\n' "$set" "$i" "$tool" "$(seconds "$tu" " s")" \
          "$(seconds "$td" " s")" "$([ "$td" = failed ] && echo "(failed)" || echo "(identical)")"
        rm -rf "$out"; purge "$prefix" # untimed: keep the server small
      done
    done
  done
}

# time_listings RUNS COUNT: each of the caller's list_TOOL (prints the entries of one folder,
# one a line) once untimed, where it must show COUNT entries, then RUNS times with the order
# of the tools rotating; the seconds go into results["list,TOOL"]. A peer that fails or
# shows another count is "failed"; Strata doing so ends it.
time_listings() {
  local runs=$1 count=$2 i tool n t
  local -A broken=()
  for tool in "${tools[@]}"; do
    n=$("list_$tool" 2>"$work/list-$tool.err" | wc -l) || n=failed
    [ "$n" = "$count" ] && continue
    echo "$tool: its listing shows $n entries, not $count" >&2
    tail -n 2 "$work/list-$tool.err" | sed 's/^/  /' >&2
    [ "$tool" = "${tools[0]}" ] && exit 1
    broken[$tool]=1
  done
  for ((i = 1; i <= runs; i++)); do
    for tool in $(rotated "$i"); do
      t=failed
      if [ -z "${broken[$tool]:-}" ]; then
        warm; t=$(time_cmd "list_$tool") || { [ "$tool" = "${tools[0]}" ] && exit 1; t=failed; }
      fi
      results["list,$tool"]+="$t "
      printf '%-7s run %d %-7s %11s\n' list "$i" "$tool" "$(seconds "$t" " s")"
    done
  done
}

# print_transfer_medians RUNS SET...: after time_transfer_sets, the medians per set and
# direction for each of the caller's tools (the first is Strata), the ratios of every other
# tool's time over Strata's (above 1: Strata is faster) and the large set's MB/s (its size
# in KiB in the caller's set_kib[large]).
print_transfer_medians() {
  local runs=$1 set row tool dir; shift
  local -a others=("${tools[@]:1}")
  # The median of a tool's runs; "failed" if any of them failed.
  med() { if [[ " ${results["$1"]} " == *" failed "* ]]; then echo failed; else printf '%s\n' ${results["$1"]} | median; fi; }
  echo
  echo "== medians over $runs runs (seconds, lower is better; MB/s of the large set)"
  printf '%-12s' case; for tool in "${tools[@]}"; do printf ' %9s' "$tool"; done
  printf '  '; for tool in "${others[@]}"; do printf ' %16s' "$tool/${tools[0]}"; done; echo
  for set in "$@"; do
    for row in "$set-up" "$set-down"; do
      local s; s=$(med "$row,${tools[0]}")
      printf '%-12s' "$row"; for tool in "${tools[@]}"; do printf ' %9s' "$(seconds "$(med "$row,$tool")")"; done
      printf '  '
      for tool in "${others[@]}"; do
        local m; m=$(med "$row,$tool")
        if [ "$m" = failed ]; then printf ' %16s' failed; else printf ' %16s' "$(ratio "$m" "$s")x"; fi
      done
      echo
    done
  done
  if [[ " $* " == *" large "* ]]; then
    local bytes=$(( set_kib[large] << 10 ))
    for dir in up down; do
      printf 'large-%-5s MB/s:' "$dir"
      local sep=" "
      for tool in "${tools[@]}"; do
        local m; m=$(med "large-$dir,$tool")
        if [ "$m" = failed ]; then printf '%s%s failed' "$sep" "$tool"
        else printf '%s%s %.0f' "$sep" "$tool" "$(echo "$bytes / $m / 1000000" | bc -l)"; fi
        sep=", "
      done
      echo
    done
  fi
}

# How each tool drives each protocol, for the scripts that time them on one server. After
# peers_PROTOCOL, up_TOOL DIR PREFIX leaves DIR's files at PREFIX/<basename DIR>/ on the
# server, down_TOOL PREFIX/SET OUT makes the local folder OUT/SET, and uri PATH is Strata's
# URI of PATH there; all are exported (loopback_only runs them in a child shell). Each
# peers_PROTOCOL reads the variables its comment names: call it again when they change.
# rclone gets a remote from the environment alone; --config /dev/null reads no file.
rcl() { rclone --config /dev/null "$@"; }
up_strata() { "$STRATA" cp -r ${STRATA_JOBS:+--jobs "$STRATA_JOBS"} "$1" "$(uri "$2/")"; }
down_strata() { "$STRATA" cp -r ${STRATA_JOBS:+--jobs "$STRATA_JOBS"} "$(uri "$1")" "$2/"; }

# peers_sftp: port user key known (a known_hosts file that holds [127.0.0.1]:port); tools
# strata, sftp (OpenSSH's: 64 requests of 32 KiB in flight, one file at a time), rclone
# (remote ssh); the server's folder /upload.
# shellcheck disable=SC2317 # its functions run by name (up_$tool, …)
peers_sftp() {
  export RCLONE_CONFIG_SSH_TYPE=sftp RCLONE_CONFIG_SSH_HOST=127.0.0.1 RCLONE_CONFIG_SSH_PORT=$port \
    RCLONE_CONFIG_SSH_USER=$user RCLONE_CONFIG_SSH_KEY_FILE=$key RCLONE_CONFIG_SSH_KNOWN_HOSTS_FILE=$known
  uri() { echo "sftp://$user@127.0.0.1:$port/upload/$1?identity=$key&known-hosts=$known"; }
  sftpb() { sftp -q -b - -P "$port" -i "$key" -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile="$known" \
    -o StrictHostKeyChecking=yes "$user@127.0.0.1"; }
  up_sftp() {
    local parts="" p i
    IFS=/ read -ra p <<<"$2"
    for ((i = 0; i < ${#p[@]}; i++)); do parts+="${parts:+/}${p[i]}"; echo "-mkdir /upload/$parts"; done | sftpb >/dev/null
    printf 'put -r %s /upload/%s/\n' "$1" "$2" | sftpb
  }
  down_sftp() { printf 'get -r /upload/%s %s/\n' "$1" "$2" | sftpb; }
  up_rclone() { rcl copy "$1" "ssh:/upload/$2/$(basename "$1")"; }
  down_rclone() { rcl copy "ssh:/upload/$1" "$2/$(basename "$1")"; }
  export STRATA port user key known
  export -f rcl uri up_strata down_strata sftpb up_sftp down_sftp up_rclone down_rclone
}

# peers_ftp: port user STRATA_FTP_PASSWORD tls (1: explicit TLS) ca; tools strata, curl
# (one invocation per set, 8 files at a time), rclone (remote ftp); the folder /upload.
# shellcheck disable=SC2317 # its functions run by name (up_$tool, …)
peers_ftp() {
  export RCLONE_CONFIG_FTP_TYPE=ftp RCLONE_CONFIG_FTP_HOST=127.0.0.1 RCLONE_CONFIG_FTP_PORT=$port \
    RCLONE_CONFIG_FTP_USER=$user RCLONE_CONFIG_FTP_PASS
  RCLONE_CONFIG_FTP_PASS=$(rcl obscure "$STRATA_FTP_PASSWORD")
  if [ "$tls" = 1 ]; then
    export RCLONE_CONFIG_FTP_EXPLICIT_TLS=true SSL_CERT_FILE=$ca # rclone (Go) trusts the fixture's CA
  else
    unset RCLONE_CONFIG_FTP_EXPLICIT_TLS SSL_CERT_FILE
  fi
  uri() { if [ "$tls" = 1 ]; then echo "ftps://$user@127.0.0.1:$port/upload/$1?ca=$ca"; else echo "ftp://$user@127.0.0.1:$port/upload/$1"; fi; }
  # curlftp ARGS...: the curl tool with the fixture's login and no ~/.curlrc.
  curlftp() {
    local tls_args=()
    [ "$tls" = 1 ] && tls_args=(--ssl-reqd --cacert "$ca")
    curl -q -s -S --noproxy '*' -u "$user:$STRATA_FTP_PASSWORD" ${tls_args[@]+"${tls_args[@]}"} "$@"
  }
  # (One file after another, curl 7.88's easy loop sleeps 1 s at each file's EPSV data
  # connection: 2 000 s for 2 000 files.)
  curlftp8() { curlftp -Z --parallel-max 8 "$@"; }
  up_curl() {
    local args=() f base
    base="ftp://127.0.0.1:$port/upload/$2/$(basename "$1")"
    for f in "$1"/*; do args+=(-T "$f" "$base/${f##*/}"); done
    curlftp8 --ftp-create-dirs "${args[@]}"
  }
  down_curl() {
    local args=() name out
    out="$2/$(basename "$1")"
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
  export STRATA port user tls ca STRATA_FTP_PASSWORD STRATA_FTP_HOST=127.0.0.1 # the host Strata sends the password to
  export -f rcl uri up_strata down_strata curlftp curlftp8 up_curl down_curl up_rclone down_rclone
}

# peers_webdav: endpoint (http://127.0.0.1:PORT of lighttpd.sh); tools strata, rclone (remote
# dav), curl (the floor of one connection doing one file after another: one process per set
# and direction); the server's open area /open.
# shellcheck disable=SC2317 # its functions run by name (up_$tool, …)
peers_webdav() {
  export RCLONE_CONFIG_DAV_TYPE=webdav RCLONE_CONFIG_DAV_URL=$endpoint/open RCLONE_CONFIG_DAV_VENDOR=other
  uri() { echo "webdav://${endpoint#http://}/open/$1"; }
  curlq() { curl -q -sS --fail --noproxy '*' "$@"; }
  up_rclone() { rcl copy "$1" "dav:$2/$(basename "$1")"; }
  up_curl() {
    local url files
    url=$endpoint/open/$2/$(basename "$1")/
    curlq -X MKCOL "$endpoint/open/$2/" -o /dev/null 2>/dev/null || true # the prefix may exist
    curlq -X MKCOL "$url" -o /dev/null
    files=$(cd "$1" && printf '%s\n' * | paste -sd, -)
    (cd "$1" && curlq -T "{$files}" "$url" -o /dev/null)
  }
  down_rclone() { rcl copy "dav:$1" "$2/$(basename "$1")"; }
  down_curl() {
    # The names come from a PROPFIND, as a client that knows nothing else would get them.
    local out urls=()
    out=$2/$(basename "$1")
    mkdir -p "$out"
    mapfile -t urls < <(curlq -X PROPFIND -H 'Depth: 1' "$endpoint/open/$1/" \
      | grep -o '<D:href>[^<]*</D:href>' | sed 's|<D:href>\(.*\)</D:href>|\1|' | grep -v '/$' | sed "s|^|$endpoint|")
    curlq --output-dir "$out" --remote-name-all "${urls[@]}"
  }
  export STRATA endpoint
  export -f rcl uri curlq up_strata up_rclone up_curl down_strata down_rclone down_curl
}

# s3_peer_env DIR: aws-cli and rclone read none of the user's settings and reach nothing
# but the endpoint they are given (no EC2 metadata service, no proxy); aws's config in DIR.
# Sets AWS_CLI (Debian's /usr/bin/aws, scripts/bootstrap perf installs it, unless given).
s3_peer_env() {
  unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
  export no_proxy=127.0.0.1,localhost NO_PROXY=127.0.0.1,localhost
  unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_SECURITY_TOKEN AWS_ENDPOINT_URL \
    AWS_ENDPOINT_URL_S3 AWS_CA_BUNDLE AWS_ROLE_ARN AWS_WEB_IDENTITY_TOKEN_FILE \
    AWS_CONTAINER_CREDENTIALS_RELATIVE_URI AWS_CONTAINER_CREDENTIALS_FULL_URI
  export AWS_EC2_METADATA_DISABLED=true
  export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER
  export AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1
  export AWS_PAGER="" AWS_CLI_AUTO_PROMPT=off
  mkdir -p "$1"
  export AWS_CONFIG_FILE=$1/config AWS_SHARED_CREDENTIALS_FILE=$1/credentials
  : >"$AWS_SHARED_CREDENTIALS_FILE"
  if [ -z "${AWS_CLI:-}" ]; then
    if [ -x /usr/bin/aws ]; then AWS_CLI=/usr/bin/aws; else AWS_CLI=$(command -v aws || true); fi
  fi
  [ -n "$AWS_CLI" ] || { echo "aws-cli is missing: scripts/bootstrap perf installs it" >&2; exit 1; }
  "$AWS_CLI" configure set default.s3.addressing_style path # s3rver answers path style only
}

# peers_s3: endpoint bucket AWS_CLI (after s3_peer_env); tools strata, rclone (remote s3r),
# aws (aws s3 cp --recursive).
# shellcheck disable=SC2317 # its functions run by name (up_$tool, …)
peers_s3() {
  export RCLONE_CONFIG_S3R_TYPE=s3 RCLONE_CONFIG_S3R_PROVIDER=Other RCLONE_CONFIG_S3R_ENDPOINT=$endpoint
  export RCLONE_CONFIG_S3R_ACCESS_KEY_ID=$AWS_ACCESS_KEY_ID RCLONE_CONFIG_S3R_SECRET_ACCESS_KEY=$AWS_SECRET_ACCESS_KEY
  export RCLONE_CONFIG_S3R_FORCE_PATH_STYLE=true RCLONE_CONFIG_S3R_REGION=us-east-1
  export RCLONE_CONFIG_S3R_ENV_AUTH=false
  awss3() { "$AWS_CLI" --endpoint-url "$endpoint" s3 "$@"; }
  uri() { echo "s3://$bucket/$1?endpoint=$endpoint"; }
  up_rclone() { rcl copy "$1" "s3r:$bucket/$2/$(basename "$1")"; }
  up_aws()    { awss3 cp --recursive --only-show-errors "$1" "s3://$bucket/$2/$(basename "$1")/"; }
  down_rclone() { rcl copy "s3r:$bucket/$1" "$2/$(basename "$1")"; }
  down_aws()    { awss3 cp --recursive --only-show-errors "s3://$bucket/$1/" "$2/$(basename "$1")/"; }
  export STRATA AWS_CLI endpoint bucket
  export -f rcl awss3 uri up_strata up_rclone up_aws down_strata down_rclone down_aws
}
