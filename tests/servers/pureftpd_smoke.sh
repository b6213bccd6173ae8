#!/usr/bin/env bash
# Checks the Pure-FTPd fixture (tests/servers/pureftpd.sh) with the curl tool (libcurl, as
# the FTP backend will use it): a file round-trips byte for byte over plain FTP and over
# explicit TLS (AUTH TLS, the certificate checked against the fixture's CA); MLSD and LIST
# both answer; REST resumes a download; a wrong password is refused (curl exit 67); the
# session is chrooted (the machine's /etc is not in it). Then a server of its own is
# started, crashed, revived on the same port and stopped: nothing left running.
#
# Usage: pureftpd_smoke.sh   (STRATA_FTP_ENVFILE: the fixture's env file, from CTest)
set -uo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$HERE/../lib/checks.sh"
work=$(mktemp -d /tmp/strata-ftpsmoke-XXXXXX)
own=$work/own
trap 'bash "$HERE/pureftpd.sh" stop "$own" >/dev/null 2>&1; rm -rf "$work"' EXIT
[ -f "${STRATA_FTP_ENVFILE:-}" ] || { echo "FAIL: no pureftpd.env (run through CTest, fixture pureftpd)"; exit 1; }
set -a; source "$STRATA_FTP_ENVFILE"; set +a
case "$STRATA_FTP_HOST" in 127.0.0.1) ;; *) echo "FAIL: $STRATA_FTP_HOST is not 127.0.0.1"; exit 1 ;; esac
# The password goes in a netrc file, never on a command line.
printf 'machine 127.0.0.1 login %s password %s\n' "$STRATA_FTP_USER" "$STRATA_FTP_PASSWORD" >"$work/netrc"
chmod 600 "$work/netrc"
c() { curl -s --noproxy '*' --max-time 20 --netrc-file "$work/netrc" "$@"; }
base="ftp://127.0.0.1:$STRATA_FTP_PORT/upload/smoke-$$"

head -c 1500000 /dev/urandom >"$work/data"
c --ftp-create-dirs -T "$work/data" "$base/a.bin" && pass || fail "put over FTP"
cmp -s "$work/data" "$STRATA_FTP_ROOT/upload/smoke-$$/a.bin" && pass || fail "the file on the server differs"
c -o "$work/back" "$base/a.bin" && cmp -s "$work/data" "$work/back" && pass || fail "get over FTP"
c --ssl-reqd --cacert "$STRATA_FTP_CA" -T "$work/data" "$base/tls.bin" && pass || fail "put over explicit TLS"
c --ssl-reqd --cacert "$STRATA_FTP_CA" -o "$work/tls" "$base/tls.bin" && cmp -s "$work/data" "$work/tls" && pass \
  || fail "get over explicit TLS"
# A certificate not signed by what we trust is refused (curl 60).
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/other.key" -out "$work/other.pem" -days 1 -subj /CN=other 2>/dev/null
c --ssl-reqd --cacert "$work/other.pem" -o /dev/null "$base/tls.bin"; code=$?
[ "$code" = 60 ] && pass || fail "an unknown certificate: exit $code, wanted 60"
# Listings: MLSD (facts: type, size, modify) and LIST.
mlsd=$(c -X MLSD "$base/")
[[ $mlsd == *"type=file"*"size=1500000"*" a.bin"* ]] && pass || fail "MLSD: $mlsd"
[[ $(c "$base/") == *" a.bin"* ]] && pass || fail "LIST"
# REST: the rest of a file from an offset.
c -C 1000000 -o "$work/tail" "$base/a.bin" && cmp -s "$work/tail" <(tail -c 500000 "$work/data") && pass || fail "REST"
# A wrong password (curl 67: login denied).
printf 'machine 127.0.0.1 login %s password wrong-%s\n' "$STRATA_FTP_USER" "$$" >"$work/badnetrc"
curl -s --noproxy '*' --max-time 20 --netrc-file "$work/badnetrc" -o /dev/null "$base/a.bin"; code=$?
[ "$code" = 67 ] && pass || fail "a wrong password: exit $code, wanted 67"
# Chrooted: the machine's /etc is not there.
c -o /dev/null "ftp://127.0.0.1:$STRATA_FTP_PORT/etc/passwd" && fail "/etc/passwd is reachable" || pass
rm -rf "${STRATA_FTP_ROOT:?}/upload/smoke-$$"

uri=$(bash "$HERE/pureftpd.sh" start "$own" 2>/dev/null) && pass || fail "start of a second server"
read -r port _ <"$own/pureftpd.port"
bash "$HERE/pureftpd.sh" crash "$own" && pass || fail "crash"
bash "$HERE/pureftpd.sh" revive "$own" >/dev/null && pass || fail "revive"
read -r again _ <"$own/pureftpd.port"
[ "$again" = "$port" ] && pass || fail "revived on another port"
pid=$(cat "$own/pureftpd.pid")
bash "$HERE/pureftpd.sh" stop "$own" && pass || fail "stop"
[ -n "$(tr -d '\0' <"/proc/$pid/cmdline" 2>/dev/null)" ] && fail "pure-ftpd $pid still runs after stop" || pass
for p in $(pgrep pure-ftpd); do
  tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qxF "STRATA_FIXTURE=$own" && fail "process $p of the stopped server is left"
done
pass
bash "$HERE/pureftpd.sh" stop "$own" && pass || fail "a second stop"
echo "$uri" | grep -q "^ftp://strata@127.0.0.1:$port/upload$" && pass || fail "start printed $uri"
finish
