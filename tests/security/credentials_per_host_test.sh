#!/usr/bin/env bash
# Every credential stays with its host (issue 42): a copy between two servers of the same
# kind, the password given for one of them only (STRATA_SFTP_HOST / STRATA_FTP_HOST naming
# it). The other server never receives it: its own log shows no password tried (sshd at
# LogLevel INFO writes every "Failed password"), strata says which login had nothing to
# offer, and the password is never printed. Two sshd (the fixture's and one started here),
# two Pure-FTPd (likewise), each stopped by PID through its script.
# Usage: credentials_per_host_test.sh STRATA
set -uo pipefail
strata=$1
here=$(cd "$(dirname "$0")" && pwd)
servers=$here/../servers
# shellcheck source=../lib/checks.sh
source "$here/../lib/checks.sh"
work=$(mktemp -d)
sshd_b=$work/sshd-b ftp_b=$work/ftp-b
cleanup() {
  bash "$servers/sshd.sh" stop "$sshd_b" >/dev/null 2>&1
  bash "$servers/pureftpd.sh" stop "$ftp_b" >/dev/null 2>&1
  rm -rf "$work" "${sftp_a_dir:-/nonexistent}" "${ftp_a_dir:-/nonexistent}"
}
trap cleanup EXIT
export HOME=$work/home
mkdir -p "$HOME/.ssh" && chmod 700 "$HOME/.ssh"
unset SSH_AUTH_SOCK STRATA_SFTP_PASSWORD STRATA_SFTP_HOST STRATA_FTP_PASSWORD STRATA_FTP_HOST STRATA_FTP_USER
run=cred-$$-$RANDOM
# new_lines FILE MARK: what FILE gained after MARK lines.
new_lines() { tail -n "+$(($2 + 1))" "$1"; }
no_secret() { lacks "$1: no password printed" "$out$err" "$2"; }

# --- SFTP: the fixture's sshd is A, one started here is B, each with a password of its own.
fixture_env STRATA_SFTP_ENVFILE sshd
if [ -z "${STRATA_SFTP_LOGIN_PASSWORD:-}" ]; then
  skip "SFTP: the sshd fixture offers password logins only when run as root with mount namespaces"
else
  a_port=$STRATA_SFTP_PORT a_pw=$STRATA_SFTP_LOGIN_PASSWORD a_key=$STRATA_SFTP_KEY
  a_log=$(dirname "$STRATA_SFTP_KEY")/sshd.log user=$STRATA_SFTP_USER
  sftp_a_dir=$STRATA_SFTP_ROOT/upload/$run
  cat "$STRATA_SFTP_KNOWN_HOSTS" >"$HOME/.ssh/known_hosts"
  bash "$servers/sshd.sh" start "$sshd_b" >/dev/null || { fail "a second sshd did not start"; finish; }
  # shellcheck disable=SC1091
  source "$sshd_b/sshd.env"
  b_port=$STRATA_SFTP_PORT b_pw=$STRATA_SFTP_LOGIN_PASSWORD b_key=$STRATA_SFTP_KEY b_log=$sshd_b/sshd.log
  b_dir=$STRATA_SFTP_ROOT/upload/$run
  cat "$STRATA_SFTP_KNOWN_HOSTS" >>"$HOME/.ssh/known_hosts"
  [ "$a_pw" != "$b_pw" ] && pass || fail "the two servers were given the same password"
  mkdir -p "$sftp_a_dir" "$b_dir"
  head -c 100000 /dev/urandom >"$sftp_a_dir/f.bin"
  a="sftp://$user@127.0.0.1:$a_port/upload/$run" b="sftp://$user@127.0.0.1:$b_port/upload/$run"

  # 1. A's password, named for A: A logs in with it; B is never offered it.
  a_mark=$(wc -l <"$a_log") b_mark=$(wc -l <"$b_log")
  STRATA_SFTP_HOST=127.0.0.1:$a_port STRATA_SFTP_PASSWORD=$a_pw expect 1 "sftp: A's password is not B's" \
    -- "$strata" cp "$a/f.bin" "$b/f.bin"
  contains "sftp: B named" "$err" "$user@127.0.0.1:$b_port refused the login"
  contains "sftp: nothing to offer B" "$err" "no password given"
  contains "sftp: the way out" "$err" "STRATA_SFTP_HOST naming 127.0.0.1:$b_port"
  no_secret "sftp A to B" "$a_pw"
  new_lines "$a_log" "$a_mark" | grep -q "Accepted password for $user" && pass || fail "A did not take its password: $(new_lines "$a_log" "$a_mark")"
  if new_lines "$b_log" "$b_mark" | grep -qi 'password for'; then
    fail "B was offered a password: $(new_lines "$b_log" "$b_mark" | grep -i 'password for')"
  else pass; fi
  [ ! -e "$b_dir/f.bin" ] && pass || fail "a file reached B without a login"

  # 2. B by its key, A by its password: the copy goes through; B still sees no password.
  b_mark=$(wc -l <"$b_log")
  STRATA_SFTP_HOST=127.0.0.1:$a_port STRATA_SFTP_PASSWORD=$a_pw expect 0 "sftp: A by password, B by key" \
    -- "$strata" cp "$a/f.bin" "$b/f.bin?identity=$b_key"
  cmp -s "$sftp_a_dir/f.bin" "$b_dir/f.bin" && pass || fail "the copy on B differs"
  new_lines "$b_log" "$b_mark" | grep -q "Accepted publickey for $user" && pass || fail "B did not log in by key"
  new_lines "$b_log" "$b_mark" | grep -qi 'password for' && fail "B was offered a password with a key at hand" || pass

  # 3. The other way: B's password named for B, A by key; A never sees B's password.
  a_mark=$(wc -l <"$a_log")
  STRATA_SFTP_HOST=127.0.0.1:$b_port STRATA_SFTP_PASSWORD=$b_pw expect 0 "sftp: B by password, A by key" \
    -- "$strata" cp "$b/f.bin" "$a/back.bin?identity=$a_key"
  cmp -s "$sftp_a_dir/f.bin" "$sftp_a_dir/back.bin" && pass || fail "the copy back on A differs"
  new_lines "$a_log" "$a_mark" | grep -qi 'password for' && fail "A was offered B's password" || pass

  # 4. A password with no STRATA_SFTP_HOST goes nowhere (as STRATA_FTP_PASSWORD without
  #    STRATA_FTP_HOST); nor one named for another server, or for A's host on another port.
  for named in "" elsewhere.example "127.0.0.1:$b_port"; do
    a_mark=$(wc -l <"$a_log")
    STRATA_SFTP_HOST=$named STRATA_SFTP_PASSWORD=$a_pw expect 1 "sftp: named '$named', not A" -- "$strata" ls "$a"
    contains "sftp: named '$named': nothing given" "$err" "no password given"
    new_lines "$a_log" "$a_mark" | grep -qi 'password for' && fail "A was offered a password named for '$named'" || pass
  done
  # The host as the URI writes it, in any case, with or without the port, names A.
  STRATA_SFTP_HOST=127.0.0.1 STRATA_SFTP_PASSWORD=$a_pw expect 0 "sftp: the host without its port" -- "$strata" ls "$a"

  # 5. A key's passphrase in STRATA_SFTP_PASSWORD is A's too: B's login with that key is
  #    told it needs a passphrase (none tried), not that a wrong one was given.
  ssh-keygen -q -t ed25519 -N "$a_pw" -f "$HOME/.ssh/id_ed25519"
  cat "$HOME/.ssh/id_ed25519.pub" >>"$sshd_b/authorized_keys"
  STRATA_SFTP_HOST=127.0.0.1:$a_port STRATA_SFTP_PASSWORD=$a_pw expect 1 "sftp: A's passphrase is not used for B" \
    -- "$strata" ls "$b"
  contains "sftp: passphrase kept from B" "$err" "it needs a passphrase"
  no_secret "sftp passphrase" "$a_pw"
  STRATA_SFTP_HOST=127.0.0.1:$b_port STRATA_SFTP_PASSWORD=$a_pw expect 0 "sftp: the passphrase named for B" \
    -- "$strata" ls "$b"
  rm -f "$HOME/.ssh/id_ed25519" "$HOME/.ssh/id_ed25519.pub"
fi

# --- FTP: the fixture's Pure-FTPd is A, one started here is B (its own random password).
fixture_env STRATA_FTP_ENVFILE pureftpd
fa_port=$STRATA_FTP_PORT fa_pw=$STRATA_FTP_PASSWORD ftp_user=$STRATA_FTP_USER
ftp_a_dir=$STRATA_FTP_ROOT/upload/$run
bash "$servers/pureftpd.sh" start "$ftp_b" >/dev/null || { fail "a second Pure-FTPd did not start"; finish; }
# shellcheck disable=SC1091
source "$ftp_b/pureftpd.env"
fb_port=$STRATA_FTP_PORT fb_pw=$STRATA_FTP_PASSWORD fb_dir=$STRATA_FTP_ROOT/upload/$run
unset STRATA_FTP_PASSWORD STRATA_FTP_HOST STRATA_FTP_USER
mkdir -p "$ftp_a_dir" "$fb_dir" && chown nobody:nogroup "$ftp_a_dir" "$fb_dir" 2>/dev/null
head -c 100000 /dev/urandom >"$ftp_a_dir/f.bin"
fa="ftp://$ftp_user@127.0.0.1:$fa_port/upload/$run" fb="ftp://$ftp_user@127.0.0.1:$fb_port/upload/$run"
STRATA_FTP_HOST=127.0.0.1:$fa_port STRATA_FTP_PASSWORD=$fa_pw expect 1 "ftp: A's password is not B's" \
  -- "$strata" cp "$fa/f.bin" "$fb/f.bin"
contains "ftp: B had nothing" "$err" "no password was given"
no_secret "ftp A to B" "$fa_pw"
[ ! -e "$fb_dir/f.bin" ] && pass || fail "a file reached FTP server B"
# B's own password, named for B, with A's named for A: not possible in one command through
# the environment (one STRATA_FTP_HOST): ~/.netrc gives B's by its host name instead.
printf 'machine localhost login %s password %s\n' "$ftp_user" "$fb_pw" >"$HOME/.netrc"
chmod 600 "$HOME/.netrc"
STRATA_FTP_HOST=127.0.0.1:$fa_port STRATA_FTP_PASSWORD=$fa_pw expect 0 "ftp: A from the environment, B from ~/.netrc" \
  -- "$strata" cp "$fa/f.bin" "ftp://$ftp_user@localhost:$fb_port/upload/$run/f.bin"
cmp -s "$ftp_a_dir/f.bin" "$fb_dir/f.bin" && pass || fail "the FTP copy on B differs"
no_secret "ftp netrc" "$fb_pw"
# ~/.netrc's entry for localhost is not 127.0.0.1's.
expect 1 "ftp: a netrc entry for another host name is not sent" -- "$strata" ls "$fb"
contains "ftp: netrc kept to its host" "$err" "no password was given"
rm -f "$HOME/.netrc"

finish
