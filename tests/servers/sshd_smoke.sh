#!/usr/bin/env bash
# Checks the sshd fixture (tests/servers/sshd.sh) with OpenSSH's sftp and libcurl's (the
# curl tool), as the SFTP backend will meet it: a file round-trips byte for byte through
# both clients; the session is chrooted (the machine's /etc is not in it, nothing is written
# outside the fixture's folder); a key that is not authorized is refused; a host key other
# than the recorded one is refused by both clients; libcurl lists a folder in `ls -l` form.
# Then a server of its own is started, crashed and revived on the same port, and stopped:
# no daemon left.
#
# Usage: sshd_smoke.sh   (STRATA_SFTP_ENVFILE: the fixture's env file, from CTest)
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/../lib/checks.sh"
work=$(mktemp -d /tmp/strata-sshdsmoke-XXXXXX)
own=$work/own
trap 'bash "$HERE/sshd.sh" stop "$own" >/dev/null 2>&1; rm -rf "$work"' EXIT
[ -f "${STRATA_SFTP_ENVFILE:-}" ] || { echo "FAIL: no sshd.env (run through CTest, fixture sshd)"; exit 1; }
set -a; source "$STRATA_SFTP_ENVFILE"; set +a
case "$STRATA_SFTP_HOST" in 127.0.0.1) ;; *) echo "FAIL: $STRATA_SFTP_HOST is not 127.0.0.1"; exit 1 ;; esac

sftp_b() { # sftp_b KEY KNOWN_HOSTS: runs the batch on stdin
  sftp -q -b - -P "$STRATA_SFTP_PORT" -i "$1" -o IdentitiesOnly=yes -o BatchMode=yes -o UserKnownHostsFile="$2" \
    -o StrictHostKeyChecking=yes -o ConnectTimeout=5 "$STRATA_SFTP_USER@127.0.0.1"
}
# curl with the fixture's key; known hosts from a HOME of our own (curl reads ~/.ssh/known_hosts).
mkdir -p "$work/home/.ssh"
cp "$STRATA_SFTP_KNOWN_HOSTS" "$work/home/.ssh/known_hosts"
c() { HOME=$work/home curl -s --noproxy '*' --max-time 20 --key "$STRATA_SFTP_KEY" --pubkey "" "$@"; }
base="sftp://$STRATA_SFTP_USER@127.0.0.1:$STRATA_SFTP_PORT/upload/smoke-$$"

head -c 1500000 /dev/urandom >"$work/data"
printf 'mkdir /upload/smoke-%s\nput %s /upload/smoke-%s/a.bin\n' $$ "$work/data" $$ \
  | sftp_b "$STRATA_SFTP_KEY" "$STRATA_SFTP_KNOWN_HOSTS" >/dev/null && pass || fail "sftp put"
cmp -s "$work/data" "$STRATA_SFTP_ROOT/upload/smoke-$$/a.bin" && pass || fail "the file on the server differs"
c -o "$work/back" "$base/a.bin" && cmp -s "$work/data" "$work/back" && pass || fail "curl get differs"
c -T "$work/data" "$base/b.bin" && cmp -s "$work/data" "$STRATA_SFTP_ROOT/upload/smoke-$$/b.bin" && pass || fail "curl put"
listing=$(c "$base/")
[[ $listing == *" a.bin"* && $listing == -rw* || $listing == *$'\n'-rw*" a.bin"* ]] && pass || fail "curl listing: $listing"
# Chrooted: the machine's /etc is not there, and / is the fixture's folder.
echo "ls /etc/passwd" | sftp_b "$STRATA_SFTP_KEY" "$STRATA_SFTP_KNOWN_HOSTS" >/dev/null 2>&1 \
  && fail "/etc/passwd is reachable: not chrooted" || pass
[ "$(id -u)" = 0 ] && { [ "$(c "sftp://$STRATA_SFTP_USER@127.0.0.1:$STRATA_SFTP_PORT/" | grep -c ' upload$')" = 1 ] && pass || fail "the root is not the fixture's"; }
# A key that is not authorized, and a host key that is not the recorded one, are refused.
ssh-keygen -q -t ed25519 -N '' -f "$work/other" && ssh-keygen -q -t ed25519 -N '' -f "$work/otherhost"
echo "ls" | sftp_b "$work/other" "$STRATA_SFTP_KNOWN_HOSTS" >/dev/null 2>&1 && fail "an unknown key got in" || pass
echo "[127.0.0.1]:$STRATA_SFTP_PORT $(cut -d' ' -f1-2 "$work/otherhost.pub")" >"$work/wrong_known"
echo "ls" | sftp_b "$STRATA_SFTP_KEY" "$work/wrong_known" >/dev/null 2>&1 && fail "sftp took a changed host key" || pass
cp "$work/wrong_known" "$work/home/.ssh/known_hosts"
c -o /dev/null "$base/a.bin"; code=$?
[ "$code" = 60 ] && pass || fail "curl with a changed host key: exit $code, wanted 60 (peer verification)"
rm -rf "${STRATA_SFTP_ROOT:?}/upload/smoke-$$"

# A server of its own: crash, revive on the same port, stop; nothing left running.
uri=$(bash "$HERE/sshd.sh" start "$own" 2>/dev/null) && pass || fail "start of a second server"
port=$(cat "$own/sshd.port")
bash "$HERE/sshd.sh" crash "$own" && pass || fail "crash"
bash "$HERE/sshd.sh" revive "$own" >/dev/null && pass || fail "revive"
[ "$(cat "$own/sshd.port")" = "$port" ] && pass || fail "revived on another port"
pid=$(cat "$own/sshd.pid")
bash "$HERE/sshd.sh" stop "$own" && pass || fail "stop"
# (a zombie waiting for whoever adopted it is not running: its command line is empty)
[ -n "$(tr -d '\0' <"/proc/$pid/cmdline" 2>/dev/null)" ] && fail "sshd $pid still runs after stop" || pass
pgrep -f -- "-f $own/sshd.conf" >/dev/null && fail "a process of the stopped server is left: $(pgrep -af -- "-f $own/sshd.conf")" || pass
bash "$HERE/sshd.sh" stop "$own" && pass || fail "a second stop"
echo "$uri" | grep -q "^sftp://.*@127.0.0.1:$port/upload$" && pass || fail "start printed $uri"
finish
