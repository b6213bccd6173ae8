#!/usr/bin/env bash
# Modes come from files only (issue 42): `cp --overwrite` of a private (0600) file onto a
# symlink on the server (dangling, or to a file) gives the new file the source's mode masked
# as for a new file, never the link's 0777; the link is replaced, its target neither created
# nor written. A replaced regular file still keeps its own mode. On Pure-FTPd, on sshd, and
# locally; the links are made directly in the servers' folders on disk.
# Usage: replace_link_mode_test.sh STRATA
set -uo pipefail
strata=$1
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../lib/checks.sh
source "$here/../lib/checks.sh"
work=$(mktemp -d)
run=modes-$$-$RANDOM
trap 'rm -rf "$work" "${ftp_dir:-/nonexistent}" "${sftp_dir:-/nonexistent}"' EXIT
export HOME=$work/home
mkdir -p "$HOME"
umask 022
printf 'private bytes\n' >"$work/private.txt" && chmod 600 "$work/private.txt"

# check WHERE DIR URI [QUERY]: the links and a 0640 file made in DIR on disk, replaced
# through URI/NAME?QUERY.
check() {
  local where=$1 dir=$2 uri=$3 query=${4:-} name
  ln -s nowhere "$dir/dangling"
  printf 'target\n' >"$dir/target" && chmod 644 "$dir/target"
  ln -s target "$dir/link"
  printf 'old\n' >"$dir/kept.txt" && chmod 640 "$dir/kept.txt"
  for name in dangling link kept.txt; do
    expect 0 "$where: cp --overwrite onto $name" -- "$strata" cp --overwrite "$work/private.txt" "$uri/$name$query"
    [ -f "$dir/$name" ] && [ ! -L "$dir/$name" ] && pass || fail "$where: $name is not a file now: $(ls -l "$dir/$name")"
    cmp -s "$work/private.txt" "$dir/$name" && pass || fail "$where: $name does not hold the copied bytes"
  done
  [ "$(stat -c %a "$dir/dangling")" = 600 ] && pass || fail "$where: the file that replaced a dangling link is $(stat -c %a "$dir/dangling"), not 600"
  [ "$(stat -c %a "$dir/link")" = 600 ] && pass || fail "$where: the file that replaced a link is $(stat -c %a "$dir/link"), not 600"
  [ "$(stat -c %a "$dir/kept.txt")" = 640 ] && pass || fail "$where: a replaced file lost its mode: $(stat -c %a "$dir/kept.txt")"
  [ ! -e "$dir/nowhere" ] && pass || fail "$where: the dangling link's target was created"
  [ "$(cat "$dir/target")" = target ] && [ "$(stat -c %a "$dir/target")" = 644 ] && pass \
    || fail "$where: the link's target was written or changed"
}

# Pure-FTPd: the server writes as nobody; SITE CHMOD gives the mode.
fixture_env STRATA_FTP_ENVFILE pureftpd
ftp_dir=$STRATA_FTP_ROOT/upload/$run
mkdir -p "$ftp_dir" && chown nobody:nogroup "$ftp_dir" 2>/dev/null
STRATA_FTP_HOST=127.0.0.1 STRATA_FTP_PASSWORD=$STRATA_FTP_PASSWORD \
  check ftp "$ftp_dir" "ftp://$STRATA_FTP_USER@127.0.0.1:$STRATA_FTP_PORT/upload/$run"

# sshd: the fixture's key and known_hosts.
fixture_env STRATA_SFTP_ENVFILE sshd
sftp_dir=$STRATA_SFTP_ROOT/upload/$run
mkdir -p "$sftp_dir"
check sftp "$sftp_dir" "sftp://$STRATA_SFTP_USER@127.0.0.1:$STRATA_SFTP_PORT/upload/$run" \
  "?identity=$STRATA_SFTP_KEY&known-hosts=$STRATA_SFTP_KNOWN_HOSTS"

# Local files.
mkdir -p "$work/local"
check local "$work/local" "$work/local"

finish
