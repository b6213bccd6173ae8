#!/usr/bin/env bash
# The command line on Pure-FTPd (fixture pureftpd, chrooted; issue 28): where passwords come
# from (the environment for the named host only, ~/.netrc, never the URI), wrong and missing
# passwords, a dead server, FTPS with and without the server's CA, the file operations,
# what is never replaced unasked, a name with a line break, and no temporary file left.
# Every error is one line and no password is ever printed. HOME is a scratch folder.
# Usage: ftp_cli_test.sh STRATA
set -uo pipefail
strata=$1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/checks.sh
source "$here/../lib/checks.sh"
fixture_env STRATA_FTP_ENVFILE pureftpd
password=$STRATA_FTP_PASSWORD user=$STRATA_FTP_USER
work=$(mktemp -d)
run=run-$$-$RANDOM # a folder of this run's own: the server may hold others'
server_root=$STRATA_FTP_ROOT/upload/$run
trap 'rm -rf "$work" "$server_root"' EXIT
export HOME=$work/home
mkdir -p "$HOME" "$server_root"
chown nobody:nogroup "$server_root" 2>/dev/null || true # the server writes as nobody
unset STRATA_FTP_PASSWORD STRATA_FTP_USER
remote=ftp://$user@127.0.0.1:$STRATA_FTP_PORT/upload/$run
remote_tls=ftps://$user@127.0.0.1:$STRATA_FTP_PORT/upload/$run
with_password() { STRATA_FTP_HOST=127.0.0.1 STRATA_FTP_PASSWORD=$password "$@"; }
no_secret() { # no_secret WHAT: the password is in neither output of the last command
  lacks "$1: the password is not printed" "$out$err" "$password"
}

# 1. Passwords: never in the URI; from the environment only for the host it names.
expect 1 "a password in the URI" -- "$strata" ls "ftp://strata:$password@127.0.0.1:$STRATA_FTP_PORT/upload"
contains "password in URI: said" "$err" "a password never goes in an ftp:// URI"
no_secret "password in URI"
one_line "password in URI" "$err"
expect 1 "no password anywhere" -- "$strata" ls "$remote"
contains "no password: said" "$err" "refused the user name or password"
contains "no password: why" "$err" "no password was given"
one_line "no password" "$err"
STRATA_FTP_HOST=elsewhere.example STRATA_FTP_PASSWORD=$password expect 1 "a password for another host is not sent" \
  -- "$strata" ls "$remote"
contains "other host: no password given" "$err" "no password was given"
no_secret "other host"
STRATA_FTP_HOST=127.0.0.1 STRATA_FTP_PASSWORD=not-the-password expect 1 "a wrong password" -- "$strata" ls "$remote"
contains "wrong password: said" "$err" "refused the user name or password"
lacks "wrong password: not printed" "$err" "not-the-password"
one_line "wrong password" "$err"
expect 0 "the password from the environment" -- with_password "$strata" ls "$remote"
no_secret "ls"
printf 'machine 127.0.0.1 login %s password %s\n' "$user" "$password" >"$HOME/.netrc"
chmod 600 "$HOME/.netrc"
expect 0 "the password from ~/.netrc" -- "$strata" ls "$remote"
no_secret "netrc"

# 2. A server that is not there: said at once, in one line.
dead=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null \
  || echo 9)
started=$EPOCHREALTIME
expect 1 "a dead server" -- "$strata" ls "ftp://$user@127.0.0.1:$dead/upload"
contains "dead server: said" "$err" "cannot connect to 127.0.0.1:$dead"
one_line "dead server" "$err"
(( (${EPOCHREALTIME/[.,]/} - ${started/[.,]/}) < 15000000 )) && pass || fail "a dead server took 15 s or more to report"

# 3. FTPS: the self-signed certificate is refused without its CA, trusted with it.
expect 1 "ftps without the CA" -- "$strata" ls "$remote_tls"
contains "ftps untrusted: said" "$err" "TLS certificate is not trusted"
contains "ftps untrusted: the way out" "$err" "?ca=FILE"
one_line "ftps untrusted" "$err"
expect 0 "ftps with ?ca=" -- "$strata" ls "$remote_tls?ca=$STRATA_FTP_CA"
expect 1 "?ca= on plain ftp" -- "$strata" ls "$remote?ca=$STRATA_FTP_CA"
contains "?ca= on ftp: said" "$err" "are for ftps://"
expect 1 "an unknown option" -- "$strata" ls "$remote?bogus=1"
contains "unknown option: said" "$err" "unknown ftp:// option 'bogus'"

# 4. Files: up and down (small, and large enough to stream), stat, mkdir, mv, rm; over
#    FTPS too. Nothing replaced unasked, no temporary file left.
head -c 300000 /dev/urandom >"$work/small.bin"
head -c $((20 << 20)) /dev/urandom >"$work/large.bin"
at() { # at BASE NAME: BASE's URI with /NAME added to its path, before its options
  if [[ $1 == *\?* ]]; then echo "${1%%\?*}/$2?${1#*\?}"; else echo "$1/$2"; fi
}
for r in "$remote" "$remote_tls?ca=$STRATA_FTP_CA"; do
  kind=${r%%:*}
  expect 0 "$kind: cp up (small)" -- "$strata" cp "$work/small.bin" "$(at "$r" small.bin)"
  expect 0 "$kind: cp up (large)" -- "$strata" cp "$work/large.bin" "$(at "$r" large.bin)"
  cmp -s "$work/small.bin" "$server_root/small.bin" && pass || fail "$kind: the small upload differs"
  cmp -s "$work/large.bin" "$server_root/large.bin" && pass || fail "$kind: the large upload differs"
  rm -f "$work/back-small.bin" "$work/back-large.bin"
  expect 0 "$kind: cp down (small)" -- "$strata" cp "$(at "$r" small.bin)" "$work/back-small.bin"
  expect 0 "$kind: cp down (large)" -- "$strata" cp "$(at "$r" large.bin)" "$work/back-large.bin"
  cmp -s "$work/small.bin" "$work/back-small.bin" && pass || fail "$kind: the small download differs"
  cmp -s "$work/large.bin" "$work/back-large.bin" && pass || fail "$kind: the large download differs"
  rm -f "$server_root/small.bin" "$server_root/large.bin"
done
expect 0 "cp up" -- "$strata" cp "$work/small.bin" "$remote/data.bin"
expect 0 "stat" -- "$strata" stat --json "$remote/data.bin"
[ "$(jq -r .size <<<"$out")" = 300000 ] && pass || fail "stat size: $out"
[ "$(jq -r .kind <<<"$out")" = file ] && pass || fail "stat kind: $out"
expect 0 "mkdir" -- "$strata" mkdir "$remote/folder"
[ -d "$server_root/folder" ] && pass || fail "mkdir made no folder"
expect 0 "mv into the folder" -- "$strata" mv "$remote/data.bin" "$remote/folder/moved.bin"
[ -f "$server_root/folder/moved.bin" ] && [ ! -e "$server_root/data.bin" ] && pass || fail "mv did not move"
echo old >"$server_root/keep.txt"
expect 1 "cp never replaces unasked" -- "$strata" cp "$work/small.bin" "$remote/keep.txt"
contains "cp unasked: the way out" "$err" "--overwrite"
[ "$(cat "$server_root/keep.txt")" = old ] && pass || fail "keep.txt was replaced without --overwrite"
expect 0 "cp --overwrite replaces" -- "$strata" cp --overwrite "$work/small.bin" "$remote/keep.txt"
cmp -s "$work/small.bin" "$server_root/keep.txt" && pass || fail "--overwrite did not replace"
expect 1 "rm of a folder that is not empty" -- "$strata" rm "$remote/folder"
[ -f "$server_root/folder/moved.bin" ] && pass || fail "rm without -r removed something"
expect 0 "rm -r" -- "$strata" rm -r "$remote/folder"
[ ! -e "$server_root/folder" ] && pass || fail "rm -r left the folder"
expect 0 "rm" -- "$strata" rm "$remote/keep.txt"
[ ! -e "$server_root/keep.txt" ] && pass || fail "rm left the file"

# 4b. A name taken while a large upload streams (another user of the server): the upload
#     fails and says so, the other's file is kept, and its temporary file goes.
name_taken_meanwhile "near" "$server_root" taken.bin "$strata" cp --bwlimit 8M "$work/large.bin" "$remote/taken.bin"
rm -f "$server_root/taken.bin"

# 5. A name with a line break cannot be sent (it would end the command): refused, nothing made.
expect 1 "a name with a line break" -- "$strata" cp "$work/small.bin" "$remote/two%0Alines"
contains "line break: said" "$err" "line break"
one_line "line break" "$err"

# 6. Nothing left behind: no temporary or partial file anywhere in the run's folder.
left=$(cd "$server_root" && find . -name '.strata-*' | tr '\n' ' ')
[ -z "$left" ] && pass || fail "temporary files were left: $left"

finish
