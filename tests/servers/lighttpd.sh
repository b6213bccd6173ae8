#!/usr/bin/env bash
# The real WebDAV server of the tests: lighttpd 1.4.69 with mod_webdav (Debian packages
# lighttpd and lighttpd-mod-webdav), on 127.0.0.1 only, with a fresh document root and a
# config generated here; stopped by PID. Three areas of the document root:
#   /open/     anyone may read and write
#   /auth/     Basic auth (user strata, a random password written to the env file)
#   /digest/   Digest auth (the same user and password)
#
# Usage: lighttpd.sh check      fail unless lighttpd and its mod_webdav are installed
#        lighttpd.sh start DIR  start a server; state in DIR (lighttpd.pid, .port, .env, .conf, .log)
#        lighttpd.sh stop DIR   stop it (TERM, KILL after 5 s) and remove its data; safe twice
#        lighttpd.sh env DIR    print DIR/lighttpd.env (shell lines: endpoint, user, password)
#        lighttpd.sh crash DIR  kill -9 the server, keeping its port and data (fault tests)
#        lighttpd.sh revive DIR start a crashed server again on the same port and data
#
# lighttpd cannot listen on a port the kernel picks and report it, so start tries random
# free ports until one binds. lighttpd quirks the backend meets: PROPFIND needs Depth 0 or
# 1 (infinity is refused), a missing parent is 409 Conflict.
set -euo pipefail
FIXTURE=lighttpd USAGE_LINES=9,14
# shellcheck source=fixture.sh
source "$(dirname "${BASH_SOURCE[0]}")/fixture.sh"

LIGHTTPD=${LIGHTTPD:-/usr/sbin/lighttpd}
MODULES=${LIGHTTPD_MODULES:-/usr/lib/lighttpd}
START_TIMEOUT=20 # seconds
USER_NAME=strata

die() { echo "lighttpd.sh: $*" >&2; exit 1; }

cmd_check() {
  [ -x "$LIGHTTPD" ] || die "lighttpd is not installed (scripts/bootstrap test installs lighttpd and lighttpd-mod-webdav)"
  [ -f "$MODULES/mod_webdav.so" ] \
    || die "lighttpd's mod_webdav is not installed (scripts/bootstrap test installs lighttpd-mod-webdav)"
  [ -f "$MODULES/mod_authn_file.so" ] || die "lighttpd's mod_authn_file is missing from $MODULES"
  command -v curl >/dev/null || die "curl is not installed (scripts/bootstrap test installs it)"
}

# is_ours PID CONF: the process exists, is lighttpd and runs CONF (a reused PID is never signalled).
is_ours() {
  local pid=$1 conf=$2
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | grep -qxF "$conf"
}

cmd_stop() {
  local dir=$1 pid=""
  local conf=$dir/lighttpd.conf
  [ -f "$dir/lighttpd.pid" ] && pid=$(head -1 "$dir/lighttpd.pid")
  if [ -n "$pid" ] && is_ours "$pid" "$conf"; then
    kill -TERM "$pid" 2>/dev/null || true
    local deadline=$(( ${EPOCHREALTIME/[.,]/} + 5000000 ))
    while is_ours "$pid" "$conf" && (( ${EPOCHREALTIME/[.,]/} < deadline )); do sleep 0.05; done
    if is_ours "$pid" "$conf"; then
      echo "lighttpd.sh: pid $pid ignored TERM for 5 s, killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
      for _ in {1..40}; do is_ours "$pid" "$conf" || break; sleep 0.05; done
    fi
  fi
  if [ -f "$dir/lighttpd.datadir" ]; then
    local data
    data=$(cat "$dir/lighttpd.datadir")
    case "$data" in "$dir"/data.*) rm -rf "$data" ;; esac
  fi
  rm -f "$dir/lighttpd.pid" "$dir/lighttpd.port" "$dir/lighttpd.env" "$dir/lighttpd.datadir"
}

# write_conf DIR DATA PORT: the whole config; every path is inside DIR or DATA.
write_conf() {
  local dir=$1 data=$2 port=$3
  cat >"$dir/lighttpd.conf" <<EOF
server.modules = ( "mod_auth", "mod_authn_file", "mod_webdav" )
server.document-root = "$data/root"
server.bind = "127.0.0.1"
server.port = $port
server.errorlog = "$dir/lighttpd.log"
server.upload-dirs = ( "$data/upload" )
# Bodies go to the handler as they arrive: a PUT is written to its file while it streams
# rather than spooled whole to upload-dirs first.
server.stream-request-body = 1
server.max-request-size = 0
server.max-keep-alive-requests = 10000
server.max-keep-alive-idle = 30
server.max-fds = 4096
server.max-connections = 2048
mimetype.assign = ( "" => "application/octet-stream" )

webdav.activate = "enable"
webdav.is-readonly = "disable"
webdav.sqlite-db-name = "$data/webdav.db"

auth.backend = "plain"
auth.backend.plain.userfile = "$dir/lighttpd.users"
# Prefixes without the trailing '/': "/auth/" would leave the collection's own URL "/auth"
# (a PROPFIND of it lists its children) open to anyone.
auth.require = (
  "/auth" => ( "method" => "basic", "realm" => "strata", "require" => "valid-user" ),
  "/digest" => ( "method" => "digest", "realm" => "strata", "require" => "valid-user", "algorithm" => "MD5" )
)
EOF
}

cmd_start() {
  local dir=$1
  cmd_check
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  cmd_stop "$dir" # a server left over by an interrupted run of this same state dir
  local data log=$dir/lighttpd.log conf=$dir/lighttpd.conf
  data=$(mktemp -d "$dir/data.XXXXXX")
  echo "$data" >"$dir/lighttpd.datadir"
  mkdir -p "$data/root/open" "$data/root/auth" "$data/root/digest" "$data/upload"
  local password
  password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  (umask 077 && printf '%s:%s\n' "$USER_NAME" "$password" >"$dir/lighttpd.users")

  local t0=$EPOCHREALTIME attempt pid="" port="" code
  for attempt in {1..20}; do
    port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
    write_conf "$dir" "$data" "$port"
    : >"$log"
    "$LIGHTTPD" -tt -m "$MODULES" -f "$conf" >"$dir/lighttpd.check" 2>&1 \
      || { cat "$dir/lighttpd.check" >&2; cmd_stop "$dir"; die "lighttpd refuses the generated config $conf"; }
    # -D: stays in the foreground, so $! is the server. setsid: out of CTest's process
    # group and session; all its descriptors point at files so CTest does not wait for it.
    setsid "$LIGHTTPD" -D -m "$MODULES" -f "$conf" </dev/null >>"$log" 2>&1 &
    pid=$!
    echo "$pid" >"$dir/lighttpd.pid"
    local i up=0
    for ((i = 0; i < START_TIMEOUT * 20; i++)); do
      if ! kill -0 "$pid" 2>/dev/null; then break; fi
      code=$(curl -s --noproxy '*' -o /dev/null -w '%{http_code}' --max-time 2 -X PROPFIND -H 'Depth: 0' \
        "http://127.0.0.1:$port/open/") || true
      [ "$code" = 207 ] && { up=1; break; }
      sleep 0.05
    done
    [ "$up" = 1 ] && break
    if kill -0 "$pid" 2>/dev/null; then
      cat "$log" >&2; cmd_stop "$dir"; die "lighttpd did not answer PROPFIND within $START_TIMEOUT s (HTTP $code)"
    fi
    grep -q 'Address already in use' "$log" || { cat "$log" >&2; cmd_stop "$dir"; die "lighttpd exited during start-up (log above)"; }
    pid="" # the port was taken: another one
  done
  [ -n "$pid" ] || { cmd_stop "$dir"; die "no free port found in 20 attempts"; }

  local endpoint=http://127.0.0.1:$port
  # The auth area refuses anonymous requests: the config does what it says.
  local area
  for area in auth auth/ digest digest/; do
    code=$(curl -s --noproxy '*' -o /dev/null -w '%{http_code}' --max-time 5 -X PROPFIND -H 'Depth: 1' "$endpoint/$area") || true
    [ "$code" = 401 ] || { cat "$log" >&2; cmd_stop "$dir"; die "/$area answered HTTP $code to an anonymous PROPFIND, not 401"; }
  done

  echo "$port" >"$dir/lighttpd.port"
  (umask 077 && cat >"$dir/lighttpd.env.tmp" <<EOF
STRATA_WEBDAV_ENDPOINT=$endpoint
STRATA_WEBDAV_HOST=127.0.0.1:$port
STRATA_WEBDAV_USER=$USER_NAME
STRATA_WEBDAV_PASSWORD=$password
EOF
  )
  mv "$dir/lighttpd.env.tmp" "$dir/lighttpd.env"
  local ms=$(( (${EPOCHREALTIME/[.,]/} - ${t0/[.,]/}) / 1000 ))
  echo "lighttpd.sh: pid $pid, port $port, ready in $ms ms, document root $data/root" >&2
  echo "$endpoint"
}

cmd_crash() {
  local dir=$1 pid=""
  [ -f "$dir/lighttpd.pid" ] && pid=$(head -1 "$dir/lighttpd.pid")
  is_ours "$pid" "$dir/lighttpd.conf" || die "no server of ours running for $dir"
  kill -KILL "$pid"
  while is_ours "$pid" "$dir/lighttpd.conf"; do sleep 0.02; done
}

cmd_revive() {
  local dir=$1 pid="" port code i conf=$1/lighttpd.conf
  [ -f "$dir/lighttpd.port" ] && [ -f "$conf" ] || die "no crashed server recorded in $dir"
  [ -f "$dir/lighttpd.pid" ] && pid=$(head -1 "$dir/lighttpd.pid")
  is_ours "$pid" "$conf" && die "the server of $dir is still running (pid $pid)"
  port=$(cat "$dir/lighttpd.port")
  setsid "$LIGHTTPD" -D -m "$MODULES" -f "$conf" </dev/null >>"$dir/lighttpd.log" 2>&1 &
  pid=$!
  echo "$pid" >"$dir/lighttpd.pid"
  for ((i = 0; i < START_TIMEOUT * 50; i++)); do
    kill -0 "$pid" 2>/dev/null || die "lighttpd exited while reviving on port $port (see $dir/lighttpd.log)"
    code=$(curl -s --noproxy '*' -o /dev/null -w '%{http_code}' --max-time 2 -X PROPFIND -H 'Depth: 0' \
      "http://127.0.0.1:$port/open/") || true
    [ "$code" = 207 ] && { echo "http://127.0.0.1:$port"; return 0; }
    sleep 0.02
  done
  die "lighttpd did not answer again on port $port within $START_TIMEOUT s"
}

fixture_main "$@"
