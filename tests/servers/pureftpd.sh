#!/usr/bin/env bash
# The real FTP server of the tests: Pure-FTPd (Debian package pure-ftpd) on 127.0.0.1 only,
# in the foreground with a command line made here: one virtual user (strata, a random
# password, mapped to nobody) chrooted into a fresh folder whose /upload is writable, no
# anonymous login, passive mode on a port range of its own announced as 127.0.0.1, and
# explicit TLS (AUTH TLS) offered with a self-signed certificate for 127.0.0.1 (plain FTP
# allowed too). Its listings answer MLSD as well as LIST, and show dot files (Pure-FTPd hides
# them by default; the tests look for temporary files by name).
#
# Usage: pureftpd.sh check      fail unless pure-ftpd, pure-pw and openssl are installed
#        pureftpd.sh start DIR  start a server; state in DIR (pid, port, env, log, cert, users)
#        pureftpd.sh stop DIR   stop it and its sessions (TERM, KILL after 5 s), remove its data
#        pureftpd.sh env DIR    print DIR/pureftpd.env (shell lines: URIs, user, password, CA)
#        pureftpd.sh crash DIR  kill -9 the server and its sessions, keeping port and data
#        pureftpd.sh revive DIR start a crashed server again on the same port and data
#
# PUREFTPD_PER_IP=N (start): at most N connections from one address (default 400).
#
# Pure-FTPd retitles itself "pure-ftpd (SERVER)": a process is ours when its environment
# holds STRATA_FIXTURE=DIR (a reused PID is never signalled).
set -euo pipefail
FIXTURE=pureftpd USAGE_LINES=9,14
# shellcheck source=fixture.sh
source "$(dirname "${BASH_SOURCE[0]}")/fixture.sh"

PUREFTPD=${PUREFTPD:-/usr/sbin/pure-ftpd}
START_TIMEOUT=20 # seconds
USER_NAME=strata

die() { echo "pureftpd.sh: $*" >&2; exit 1; }

cmd_check() {
  [ -x "$PUREFTPD" ] || die "pure-ftpd is not installed (scripts/bootstrap test installs it)"
  command -v pure-pw >/dev/null || die "pure-pw is not installed (package pure-ftpd-common)"
  command -v openssl >/dev/null || die "openssl is not installed"
  command -v curl >/dev/null || die "curl is not installed"
}

is_ours() {
  local pid=$1 dir=$2
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ" | grep -qxF "STRATA_FIXTURE=$dir"
}

# session_pids PID: the server's session: each login is a process and its privileged half
# (a grandchild), and every one of them holds the listening socket.
session_pids() { ps -o pid= --sid "$1" 2>/dev/null || true; }

kill_all() { # kill_all SIGNAL PID DIR: the server and its sessions
  local signal=$1 pid=$2 dir=$3 child
  # The server first, so that it forks no session after the list below is taken; sessions
  # keep its session id when they lose their parent.
  kill "-$signal" "$pid" 2>/dev/null || true
  for child in $(session_pids "$pid"); do
    [ "$child" != "$pid" ] && is_ours "$child" "$dir" && kill "-$signal" "$child" 2>/dev/null || true
  done
}

cmd_stop() {
  local dir=$1 pid=""
  [ -f "$dir/pureftpd.pid" ] && pid=$(head -1 "$dir/pureftpd.pid")
  if [ -n "$pid" ] && is_ours "$pid" "$dir"; then
    kill_all TERM "$pid" "$dir"
    local deadline=$(( ${EPOCHREALTIME/[.,]/} + 5000000 ))
    while is_ours "$pid" "$dir" && (( ${EPOCHREALTIME/[.,]/} < deadline )); do sleep 0.05; done
    if is_ours "$pid" "$dir"; then
      echo "pureftpd.sh: pid $pid ignored TERM for 5 s, killing it" >&2
      kill_all KILL "$pid" "$dir"
      for _ in {1..40}; do is_ours "$pid" "$dir" || break; sleep 0.05; done
    fi
  fi
  if [ -f "$dir/pureftpd.datadir" ]; then
    local data
    data=$(cat "$dir/pureftpd.datadir")
    case "$data" in "$dir"/data.*) rm -rf "$data" ;; esac
  fi
  rm -f "$dir/pureftpd.pid" "$dir/pureftpd.env" "$dir/pureftpd.datadir"
}

# launch DIR PORT PASSIVE_FROM: the server in the foreground of a new session. Tests share
# it, each with a pool of connections: 400 sessions at once (Pure-FTPd allows no more than
# half its passive ports, hence 1 000 of them; with 100 it said "50 allowed" and refused
# the 51st login by closing the connection).
launch() {
  local dir=$1 port=$2 from=$3 data
  data=$(cat "$dir/pureftpd.datadir")
  # From /: its unprivileged half (nobody) must be able to stand in its working folder.
  (cd / && STRATA_FIXTURE=$dir exec setsid "$PUREFTPD" --bind "127.0.0.1,$port" --login "puredb:$dir/users.pdb" \
    --passiveportrange "$from:$((from + 999))" --forcepassiveip 127.0.0.1 --noanonymous --tls 1 \
    --certfile "$dir/cert.pem" --limitrecursion 2000000:16 --displaydotfiles --chrooteveryone --dontresolve -c 400 -C "${PUREFTPD_PER_IP:-400}" \
    </dev/null >>"$dir/pureftpd.log" 2>&1) &
  echo $! >"$dir/pureftpd.pid"
}

# serving PORT PASSWORD: a listing of /upload over FTP works.
serving() {
  curl -s --noproxy '*' --max-time 10 -o /dev/null "ftp://$USER_NAME:$2@127.0.0.1:$1/upload/"
}

cmd_start() {
  local dir=$1
  cmd_check
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  cmd_stop "$dir"
  local data password
  data=$(mktemp -d "$dir/data.XXXXXX")
  chmod 755 "$data" # the server, as nobody, goes through it to the chroot
  echo "$data" >"$dir/pureftpd.datadir"
  mkdir -p "$data/root/upload"
  chown -R nobody:nogroup "$data/root" 2>/dev/null || true # root runs the tests: files go to nobody
  password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
  rm -f "$dir/users" "$dir/users.pdb"
  printf '%s\n%s\n' "$password" "$password" \
    | pure-pw useradd "$USER_NAME" -u "$(id -u nobody)" -g "$(id -g nobody)" -d "$data/root" -f "$dir/users" >/dev/null
  # pure-pw hashes with memory-hard argon2 (8 MiB, about a second here, per login): with
  # many logins in flight on two cores they time out. A SHA-512 crypt hash is checked at
  # once and is good enough for a password that lives one test run on loopback.
  local hash
  hash=$(openssl passwd -6 "$password")
  awk -F: -v OFS=: -v h="$hash" '{ $2 = h; print }' "$dir/users" >"$dir/users.tmp" && mv "$dir/users.tmp" "$dir/users"
  pure-pw mkdb "$dir/users.pdb" -f "$dir/users"
  chmod 600 "$dir/users" "$dir/users.pdb"
  [ -f "$dir/cert.pem" ] || openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/cert.pem" -out "$dir/cert.pem" \
    -days 30 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
  chmod 600 "$dir/cert.pem"
  openssl x509 -in "$dir/cert.pem" -out "$dir/ca.pem"

  local t0=$EPOCHREALTIME pid="" port="" from ok=0 i
  for _ in {1..20}; do
    port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 20000 ))
    from=$(( 40000 + (RANDOM % 20) * 1000 ))
    : >"$dir/pureftpd.log"
    launch "$dir" "$port" "$from"
    pid=$(cat "$dir/pureftpd.pid")
    for ((i = 0; i < START_TIMEOUT * 20; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      if serving "$port" "$password"; then ok=1; break; fi
      sleep 0.05
    done
    [ "$ok" = 1 ] && break
    if kill -0 "$pid" 2>/dev/null; then
      cat "$dir/pureftpd.log" >&2; cmd_stop "$dir"; die "pure-ftpd did not serve within $START_TIMEOUT s"
    fi
    grep -qi 'address already in use' "$dir/pureftpd.log" \
      || { cat "$dir/pureftpd.log" >&2; cmd_stop "$dir"; die "pure-ftpd exited during start-up (log above)"; }
    pid=""
  done
  [ -n "$pid" ] || { cmd_stop "$dir"; die "no free port found in 20 attempts"; }
  echo "$port $from" >"$dir/pureftpd.port"
  (umask 077 && cat >"$dir/pureftpd.env.tmp" <<ENV
STRATA_FTP_URI=ftp://$USER_NAME@127.0.0.1:$port/upload
STRATA_FTPS_URI=ftps://$USER_NAME@127.0.0.1:$port/upload
STRATA_FTP_HOST=127.0.0.1
STRATA_FTP_PORT=$port
STRATA_FTP_USER=$USER_NAME
STRATA_FTP_PASSWORD=$password
STRATA_FTP_CA=$dir/ca.pem
STRATA_FTP_ROOT=$data/root
ENV
  )
  mv "$dir/pureftpd.env.tmp" "$dir/pureftpd.env"
  local ms=$(( (${EPOCHREALTIME/[.,]/} - ${t0/[.,]/}) / 1000 ))
  echo "pureftpd.sh: pid $pid, port $port, passive $from-$((from + 999)), ready in $ms ms, root $data/root" >&2
  echo "ftp://$USER_NAME@127.0.0.1:$port/upload"
}

cmd_crash() {
  local dir=$1 pid=""
  [ -f "$dir/pureftpd.pid" ] && pid=$(head -1 "$dir/pureftpd.pid")
  is_ours "$pid" "$dir" || die "no server of ours running for $dir"
  kill_all KILL "$pid" "$dir"
  # The sessions too: one still dying may hold the listening socket that revive binds again.
  for _ in {1..250}; do
    local alive=0 child
    for child in $pid $(session_pids "$pid"); do is_ours "$child" "$dir" && alive=1; done
    [ "$alive" = 0 ] && break
    sleep 0.02
  done
}

# revive DIR: the same port and data again. A port the killed server or its sessions held
# can stay busy a moment (a session still closing, under load).
cmd_revive() {
  local dir=$1 pid="" port from i password deadline
  [ -f "$dir/pureftpd.port" ] && [ -f "$dir/pureftpd.datadir" ] || die "no crashed server recorded in $dir"
  [ -f "$dir/pureftpd.pid" ] && pid=$(head -1 "$dir/pureftpd.pid")
  is_ours "$pid" "$dir" && die "the server of $dir is still running (pid $pid)"
  read -r port from <"$dir/pureftpd.port"
  password=$(sed -n 's/^STRATA_FTP_PASSWORD=//p' "$dir/pureftpd.env")
  deadline=$(( ${EPOCHREALTIME/[.,]/} + START_TIMEOUT * 1000000 ))
  while :; do
    local mark
    mark=$(wc -l <"$dir/pureftpd.log" 2>/dev/null || echo 0)
    launch "$dir" "$port" "$from"
    pid=$(cat "$dir/pureftpd.pid")
    for ((i = 0; i < START_TIMEOUT * 20; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      serving "$port" "$password" && { echo "ftp://$USER_NAME@127.0.0.1:$port/upload"; return 0; }
      sleep 0.05
    done
    kill -0 "$pid" 2>/dev/null && die "pure-ftpd did not serve again on port $port within $START_TIMEOUT s"
    # Say why, then try again: a start that failed (most often "address already in use")
    # is retried until START_TIMEOUT.
    echo "pureftpd.sh: pure-ftpd exited while reviving on port $port:" >&2
    tail -n "+$((mark + 1))" "$dir/pureftpd.log" | head -5 >&2
    (( ${EPOCHREALTIME/[.,]/} > deadline )) && die "pure-ftpd could not start again on port $port within $START_TIMEOUT s"
    sleep 0.2
  done
}

fixture_main "$@"
