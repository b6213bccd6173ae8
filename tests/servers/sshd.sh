#!/usr/bin/env bash
# The real SFTP server of the tests: OpenSSH's sshd (Debian package openssh-server) on
# 127.0.0.1 only, with its own host key, config and an authorized key made here, the SFTP
# subsystem internal-sftp, and every session chrooted into a fresh folder (/run/strata-sshd.*
# when root: sshd wants every folder above a chroot root-owned and not writable by others,
# which /tmp is not; /upload in it is writable): a test that goes wrong cannot touch the
# rest of the machine.
# The login is the user running the tests (root here, or the current user's own sshd when
# not root: then without chroot, confined by that user's permissions only), by key, and by
# password when root: sshd then runs in a mount namespace of its own where /etc/shadow is a
# file of the fixture's holding only that user with a password made here
# (STRATA_SFTP_LOGIN_PASSWORD in the env file) and /etc/pam.d/sshd is the fixture's (pam_unix
# on that shadow); the machine's own files are never read or changed. The password is
# asked as "password" on the port, and as PAM's keyboard-interactive (the way many
# servers ask it) on the next port (STRATA_SFTP_KBD_PORT).
#
# Usage: sshd.sh check      fail unless sshd, ssh-keygen and sftp are installed
#        sshd.sh start DIR  start a server; state in DIR (sshd.pid, .port, .env, .conf, .log, keys)
#        sshd.sh stop DIR   stop it (TERM, KILL after 5 s) and remove its data; safe twice
#        sshd.sh env DIR    print DIR/sshd.env (shell lines: URI, user, key, known_hosts)
#        sshd.sh crash DIR  kill -9 the server and its sessions, keeping port and data
#        sshd.sh revive DIR start a crashed server again on the same port and data
#
# sshd needs an absolute config path and /run/sshd (its privilege-separation folder).
set -euo pipefail
FIXTURE=sshd USAGE_LINES=17,22
# shellcheck source=fixture.sh
source "$(dirname "${BASH_SOURCE[0]}")/fixture.sh"

SSHD=${SSHD:-/usr/sbin/sshd}
START_TIMEOUT=20 # seconds

die() { echo "sshd.sh: $*" >&2; exit 1; }

cmd_check() {
  [ -x "$SSHD" ] || die "sshd is not installed (scripts/bootstrap test installs openssh-server)"
  command -v ssh-keygen >/dev/null || die "ssh-keygen is not installed (openssh-client)"
  command -v sftp >/dev/null || die "sftp is not installed (openssh-client)"
}

# is_ours PID CONF: the process exists, is sshd and runs CONF (a reused PID is never
# signalled). sshd retitles itself ("sshd: /usr/sbin/sshd -D -e -f CONF [listener] …"), so
# its command line is one string: CONF is looked for as a word after -f.
is_ours() {
  local pid=$1 conf=$2 line
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  line=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || return 1
  [[ " $line " == *" -f $conf "* && $line == sshd* ]]
}

# The server's session processes (children of the listener, and theirs).
sessions() {
  local pid=$1
  pgrep -P "$pid" 2>/dev/null || true
}

cmd_stop() {
  local dir=$1 pid="" conf=$1/sshd.conf
  [ -f "$dir/sshd.pid" ] && pid=$(head -1 "$dir/sshd.pid")
  if [ -n "$pid" ] && is_ours "$pid" "$conf"; then
    local children
    children=$(sessions "$pid")
    kill -TERM "$pid" $children 2>/dev/null || true
    local deadline=$(( ${EPOCHREALTIME/[.,]/} + 5000000 ))
    while is_ours "$pid" "$conf" && (( ${EPOCHREALTIME/[.,]/} < deadline )); do sleep 0.05; done
    if is_ours "$pid" "$conf"; then
      echo "sshd.sh: pid $pid ignored TERM for 5 s, killing it" >&2
      kill -KILL "$pid" 2>/dev/null || true
      for _ in {1..40}; do is_ours "$pid" "$conf" || break; sleep 0.05; done
    fi
  fi
  if [ -f "$dir/sshd.datadir" ]; then
    local data
    data=$(cat "$dir/sshd.datadir")
    case "$data" in "$dir"/data.* | /run/strata-sshd.*) rm -rf "$data" ;; esac
  fi
  rm -f "$dir/sshd.pid" "$dir/sshd.env" "$dir/sshd.datadir" "$dir/shadow" "$dir/password" "$dir/pam-sshd"
}

write_conf() {
  local dir=$1 data=$2 port=$3 user
  user=$(id -un)
  local methods=publickey password=no root=prohibit-password pam=no
  if [ -f "$dir/shadow" ]; then methods="publickey password" password=yes root=yes; fi
  [ -f "$dir/pam-sshd" ] && pam=yes
  {
    echo "Port $port"
    if [ "$pam" = yes ]; then echo "Port $((port + 1))"; fi
    echo "ListenAddress 127.0.0.1"
    echo "HostKey $dir/host_ed25519"
    echo "PidFile none"
    echo "AuthorizedKeysFile $dir/authorized_keys"
    echo "AuthenticationMethods $methods"
    echo "PubkeyAuthentication yes"
    echo "PasswordAuthentication $password"
    echo "PermitEmptyPasswords no"
    echo "KbdInteractiveAuthentication no"
    echo "PermitRootLogin $root"
    echo "AllowUsers $user"
    echo "UsePAM $pam"
    echo "StrictModes no"
    echo "X11Forwarding no"
    echo "AllowTcpForwarding no"
    echo "PermitTTY no"
    echo "MaxStartups 64:30:128"
    echo "MaxSessions 64"
    echo "LogLevel INFO"
    echo "Subsystem sftp internal-sftp"
    echo "ForceCommand internal-sftp"
    # chroot needs root: the folder and its parents must be root's and not writable by others
    if [ "$(id -u)" = 0 ]; then echo "ChrootDirectory $data/root"; fi
    if [ "$pam" = yes ]; then
      echo "Match LocalPort $((port + 1))"
      echo "  PasswordAuthentication no"
      echo "  KbdInteractiveAuthentication yes"
      echo "  AuthenticationMethods publickey keyboard-interactive"
    fi
  } >"$dir/sshd.conf"
}

# launch DIR: sshd in the foreground (-D, so $! is the server; -e: its log to stderr, the
# log file) of a new session (setsid: out of CTest's process group), every descriptor on a
# file. With a password (DIR/shadow), in a private mount namespace whose /etc/shadow is
# that file (and /etc/pam.d/sshd DIR/pam-sshd, when made): unshare and sh exec, so the PID
# is still sshd's.
launch() {
  local dir=$1 conf=$1/sshd.conf
  if [ -f "$dir/shadow" ]; then
    local pam=/dev/null
    [ -f "$dir/pam-sshd" ] && pam=$dir/pam-sshd
    # shellcheck disable=SC2016 # expanded by the inner shell
    setsid unshare -m --propagation private sh -c \
      'mount --bind "$0" /etc/shadow && { [ "$1" = /dev/null ] || mount --bind "$1" /etc/pam.d/sshd; } && exec "$2" -D -e -f "$3"' \
      "$dir/shadow" "$pam" "$SSHD" "$conf" </dev/null >>"$dir/sshd.log" 2>&1 &
  else
    setsid "$SSHD" -D -e -f "$conf" </dev/null >>"$dir/sshd.log" 2>&1 &
  fi
  echo $! >"$dir/sshd.pid"
}

# make_password DIR: when root and mount namespaces work, DIR/shadow for password logins.
make_password() {
  local dir=$1 password hash
  rm -f "$dir/shadow" "$dir/password" "$dir/pam-sshd"
  [ "$(id -u)" = 0 ] && command -v unshare >/dev/null && unshare -m --propagation private true 2>/dev/null || return 0
  password=$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')
  hash=$(openssl passwd -6 -stdin <<<"$password")
  (umask 077 && echo "$(id -un):$hash:19000:0:99999:7:::" >"$dir/shadow" && echo "$password" >"$dir/password")
  # PAM for keyboard-interactive, where sshd has a PAM service file to stand in for.
  if [ -f /etc/pam.d/sshd ] && compgen -G '/*lib/*/security/pam_unix.so' >/dev/null; then
    printf '%s\n' 'auth required pam_unix.so' 'account required pam_permit.so' \
      'session required pam_permit.so' 'password required pam_deny.so' >"$dir/pam-sshd"
  fi
  return 0
}

# up PORT: an SFTP session as the client works (lists /).
up() {
  local dir=$1 port=$2
  echo "ls /" | sftp -q -b - -P "$port" -i "$dir/client_ed25519" -o IdentitiesOnly=yes -o BatchMode=yes \
    -o UserKnownHostsFile="$dir/known_hosts" -o StrictHostKeyChecking=yes -o ConnectTimeout=2 \
    "$(id -un)@127.0.0.1" >/dev/null 2>&1
}

cmd_start() {
  local dir=$1
  cmd_check
  mkdir -p "$dir" /run/sshd 2>/dev/null || true
  dir=$(cd "$dir" && pwd)
  cmd_stop "$dir" # a server left over by an interrupted run of this same state dir
  local data log=$dir/sshd.log conf=$dir/sshd.conf
  if [ "$(id -u)" = 0 ]; then data=$(mktemp -d /run/strata-sshd.XXXXXX); else data=$(mktemp -d "$dir/data.XXXXXX"); fi
  chmod 755 "$data"
  echo "$data" >"$dir/sshd.datadir"
  mkdir -p "$data/root/upload"
  chmod 755 "$data/root"
  [ -f "$dir/host_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C strata-test-host -f "$dir/host_ed25519"
  [ -f "$dir/client_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -C strata-test-client -f "$dir/client_ed25519"
  cp "$dir/client_ed25519.pub" "$dir/authorized_keys"
  chmod 600 "$dir/authorized_keys"
  make_password "$dir"

  local t0=$EPOCHREALTIME pid="" port=""
  for _ in {1..20}; do
    port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
    write_conf "$dir" "$data" "$port"
    echo "[127.0.0.1]:$port $(cut -d' ' -f1-2 "$dir/host_ed25519.pub")" >"$dir/known_hosts"
    if [ -f "$dir/pam-sshd" ]; then echo "[127.0.0.1]:$((port + 1)) $(cut -d' ' -f1-2 "$dir/host_ed25519.pub")" >>"$dir/known_hosts"; fi
    "$SSHD" -t -f "$conf" 2>"$dir/sshd.check" || { cat "$dir/sshd.check" >&2; cmd_stop "$dir"; die "sshd refuses the generated config $conf"; }
    : >"$log"
    launch "$dir"
    pid=$(cat "$dir/sshd.pid")
    local i ok=0
    for ((i = 0; i < START_TIMEOUT * 10; i++)); do
      kill -0 "$pid" 2>/dev/null || break
      if grep -q "Server listening" "$log" && up "$dir" "$port"; then ok=1; break; fi
      # One of its two ports taken (by a client's ephemeral port, say): sshd serves the
      # other and stays up, so it is stopped and another pair tried.
      if grep -q 'Address already in use' "$log"; then
        kill -TERM "$pid" 2>/dev/null
        for _ in {1..40}; do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
        break
      fi
      sleep 0.1
    done
    [ "$ok" = 1 ] && break
    if ! grep -q 'Address already in use' "$log" && kill -0 "$pid" 2>/dev/null; then
      cat "$log" >&2; cmd_stop "$dir"; die "sshd did not serve SFTP within $START_TIMEOUT s"
    fi
    grep -q 'Address already in use' "$log" || { cat "$log" >&2; cmd_stop "$dir"; die "sshd exited during start-up (log above)"; }
    pid=""
  done
  [ -n "$pid" ] || { cmd_stop "$dir"; die "no free port found in 20 attempts"; }
  echo "$port" >"$dir/sshd.port"
  (umask 077 && cat >"$dir/sshd.env.tmp" <<EOF
STRATA_SFTP_URI=sftp://$(id -un)@127.0.0.1:$port/upload
STRATA_SFTP_HOST=127.0.0.1
STRATA_SFTP_PORT=$port
STRATA_SFTP_USER=$(id -un)
STRATA_SFTP_KEY=$dir/client_ed25519
STRATA_SFTP_KNOWN_HOSTS=$dir/known_hosts
STRATA_SFTP_ROOT=$data/root
EOF
  if [ -f "$dir/password" ]; then echo "STRATA_SFTP_LOGIN_PASSWORD=$(cat "$dir/password")" >>"$dir/sshd.env.tmp"; fi
  if [ -f "$dir/pam-sshd" ]; then echo "STRATA_SFTP_KBD_PORT=$((port + 1))" >>"$dir/sshd.env.tmp"; fi
  )
  mv "$dir/sshd.env.tmp" "$dir/sshd.env"
  local ms=$(( (${EPOCHREALTIME/[.,]/} - ${t0/[.,]/}) / 1000 ))
  echo "sshd.sh: pid $pid, port $port, ready in $ms ms, sessions chrooted in $data/root" >&2
  echo "sftp://$(id -un)@127.0.0.1:$port/upload"
}

cmd_crash() {
  local dir=$1 pid=""
  [ -f "$dir/sshd.pid" ] && pid=$(head -1 "$dir/sshd.pid")
  is_ours "$pid" "$dir/sshd.conf" || die "no server of ours running for $dir"
  local children
  children=$(sessions "$pid")
  kill -KILL "$pid" $children 2>/dev/null || true
  while is_ours "$pid" "$dir/sshd.conf"; do sleep 0.02; done
}

cmd_revive() {
  local dir=$1 pid="" port i conf=$1/sshd.conf
  [ -f "$dir/sshd.port" ] && [ -f "$conf" ] || die "no crashed server recorded in $dir"
  [ -f "$dir/sshd.pid" ] && pid=$(head -1 "$dir/sshd.pid")
  is_ours "$pid" "$conf" && die "the server of $dir is still running (pid $pid)"
  port=$(cat "$dir/sshd.port")
  launch "$dir"
  pid=$(cat "$dir/sshd.pid")
  for ((i = 0; i < START_TIMEOUT * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || die "sshd exited while reviving on port $port (see $dir/sshd.log)"
    up "$dir" "$port" && { echo "sftp://$(id -un)@127.0.0.1:$port/upload"; return 0; }
    sleep 0.1
  done
  die "sshd did not serve again on port $port within $START_TIMEOUT s"
}

fixture_main "$@"
