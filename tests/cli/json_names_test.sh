#!/usr/bin/env bash
# Exact names in machine output (issue 42, item 8). `old\xff.log` and `old\uFFFD.log`
# (the UTF-8 bytes EF BF BD) look alike once JSON has replaced the byte it cannot carry;
# `--json` must still tell them apart (name_raw, path_raw: '%' and non-UTF-8 bytes as %XX)
# and give each its own `uri`, which every command takes back. `ls --json | jq | xargs rm`
# removes exactly the file selected, locally and over SFTP (OpenSSH); names with a
# literal "%41", a newline and a '%' in valid UTF-8 round-trip the same way.
#
# Usage: json_names_test.sh /path/to/strata  (STRATA_SFTP_ENVFILE: fixture sshd)
set -u
STRATA=$(readlink -f "$1")
work=$(mktemp -d /tmp/strata-json-names-XXXXXX)
export STRATA_STATE_DIR="$work/.state" QT_QPA_PLATFORM=offscreen
trap 'rm -rf "$work"' EXIT
source "$(dirname "${BASH_SOURCE[0]}")/../lib/checks.sh"

ff=$'old\xff.log'              # a byte that is no UTF-8
fffd=$'old\xef\xbf\xbd.log'    # U+FFFD, what JSON shows for that byte
# name on disk | its name_raw | its content
names=(
  "$ff|old%FF.log|junk"
  "$fffd|$fffd|precious"
  "a%41.txt|a%2541.txt|percent41"
  $'line\nbreak|line\nbreak|newline'
  "100%.txt|100%25.txt|percent"
  $'\xc3\xbc%zz|\xc3\xbc%25zz|umlaut'
)

# make_files DIR: a file of each name, holding its content.
make_files() {
  local entry name raw content
  mkdir -p "$1"
  for entry in "${names[@]}"; do
    IFS='|' read -r -d '' name raw content <<<"$entry" || true
    printf '%s' "${content%$'\n'}" >"$1/$name"
  done
}

# uri_of JSON RAW: the uri of the entry whose name_raw is RAW (one line, or nothing).
uri_of() { jq -r --arg raw "$2" '.entries[] | select(.name_raw == $raw) | .uri' <<<"$1"; }

# round_trip WHERE DIR_URI DISK: the names are in DIR_URI (the folder DISK on this machine);
# each is found by its exact name, read back through its uri, and removed through it while
# every other name stays.
round_trip() {
  local where=$1 dir=$2 disk=$3 entry name raw content uri left
  expect 0 "$where: ls --json" -- "$STRATA" ls --json "$dir" || return
  local listing=$out
  [ "$(jq '.entries | length' <<<"$listing")" = "${#names[@]}" ] && pass \
    || fail "$where: ls --json lists $(jq '.entries | length' <<<"$listing") entries"
  # The twins share a display name; their raw names and URIs differ.
  [ "$(jq -r '[.entries[] | select(.name == "old\ufffd.log")] | length' <<<"$listing")" = 2 ] && pass \
    || fail "$where: the twins do not share the display name"
  [ "$(uri_of "$listing" "old%FF.log")" != "$(uri_of "$listing" "$fffd")" ] && pass \
    || fail "$where: the twins have one uri"
  for entry in "${names[@]}"; do
    IFS='|' read -r -d '' name raw content <<<"$entry" || true
    content=${content%$'\n'}
    uri=$(uri_of "$listing" "$raw")
    [ "$(wc -l <<<"$uri")" = 1 ] && [ -n "$uri" ] && pass || { fail "$where: no one entry with name_raw '$raw'"; continue; }
    expect 0 "$where: cat by uri of '$raw'" -- "$STRATA" cat "$uri"
    [ "$out" = "$content" ] && pass || fail "$where: uri of '$raw' read '$out', wanted '$content'"
  done
  # The pipeline of the issue: select the \xff twin by its exact name, remove it by uri.
  uri_of "$listing" "old%FF.log" | xargs "$STRATA" rm >"$work/.rm" 2>&1 && pass \
    || fail "$where: ls --json | jq | xargs strata rm failed: $(cat "$work/.rm")"
  expect 0 "$where: ls --json after rm" -- "$STRATA" ls --json "$dir"
  left=$out
  [ -z "$(uri_of "$left" "old%FF.log")" ] && pass || fail "$where: the \\xff twin is still there"
  [ ! -e "$disk/$ff" ] && [ "$(cat "$disk/$fffd")" = precious ] && pass \
    || fail "$where: on disk, the wrong twin went: $(ls "$disk" | od -c | head -3)"
  [ -n "$(uri_of "$left" "$fffd")" ] && pass || fail "$where: the U+FFFD twin was removed"
  [ "$(jq '.entries | length' <<<"$left")" = $((${#names[@]} - 1)) ] && pass \
    || fail "$where: rm removed more than one name: $(jq -c '[.entries[].name_raw]' <<<"$left")"
  # The others too, one at a time, each by its own uri.
  for entry in "${names[@]:1}"; do
    IFS='|' read -r -d '' name raw content <<<"$entry" || true
    uri=$(uri_of "$left" "$raw")
    expect 0 "$where: rm by uri of '$raw'" -- "$STRATA" rm "$uri"
  done
  expect 0 "$where: ls --json at the end" -- "$STRATA" ls --json "$dir"
  [ "$(jq '.entries | length' <<<"$out")" = 0 ] && pass || fail "$where: left behind: $(jq -c '[.entries[].name_raw]' <<<"$out")"
}

# Local files with those exact names.
make_files "$work/local"
ln -s "$ff" "$work/link"

# stat, find, walk, du and diff carry the exact bytes too.
expect 0 "stat --json" -- "$STRATA" stat --json "$work/local/$ff"
[ "$(jq -r .name_raw <<<"$out")" = "old%FF.log" ] && pass || fail "stat --json name_raw: $(jq -r .name_raw <<<"$out")"
[ "$(jq -r .uri <<<"$out")" = "file://$work/local/old%FF.log" ] && pass || fail "stat --json uri: $(jq -r .uri <<<"$out")"
expect 0 "stat --json of a link" -- "$STRATA" stat --json "$work/link"
[ "$(jq -r .target_raw <<<"$out")" = "old%FF.log" ] && pass || fail "stat --json target_raw: $out"
for cmd in find walk; do
  expect 0 "$cmd --json" -- "$STRATA" "$cmd" --json "$work/local"
  uri=$(jq -r 'select(.path_raw | endswith("/old%FF.log")) | .uri' <<<"$out")
  expect 0 "$cmd --json: cat its uri" -- "$STRATA" cat "$uri"
  [ "$out" = junk ] && pass || fail "$cmd --json: the uri of the \\xff twin read '$out'"
done
mkdir "$work/du" "$work/du/$ff" "$work/du/$fffd" && echo x >"$work/du/$ff/f"
expect 0 "du --json" -- "$STRATA" du --json "$work/du"
[ "$(jq -r '[.directories[].path_raw | select(endswith("/old%FF.log"))] | length' <<<"$out")" = 1 ] && pass \
  || fail "du --json: no path_raw for the \\xff folder: $out"
mkdir "$work/diff"
expect 1 "diff --json" -- "$STRATA" diff --json "$work/du" "$work/diff"
[ "$(jq -r '[.differences[].path_raw] | sort | join(",")' <<<"$out")" = "old%FF.log,$fffd" ] && pass \
  || fail "diff --json path_raw: $(jq -c '[.differences[].path_raw]' <<<"$out")"

round_trip local "$work/local" "$work/local"

# A remote server stores the same bytes and gives them back: OpenSSH's sftp server (lighttpd
# refuses a path that is not UTF-8 or holds a control character with 400). The host is an
# ~/.ssh/config alias: a URI's user name is never printed, so a printed URI with one would
# not log in as that user.
if [ -f "${STRATA_SFTP_ENVFILE:-}" ]; then
  source "$STRATA_SFTP_ENVFILE"
  export HOME=$work/home
  unset SSH_AUTH_SOCK STRATA_SFTP_PASSWORD
  mkdir -p "$HOME/.ssh" && chmod 700 "$HOME/.ssh"
  cat >"$HOME/.ssh/config" <<CONF
Host strata-test
    HostName $STRATA_SFTP_HOST
    Port $STRATA_SFTP_PORT
    User $STRATA_SFTP_USER
    IdentityFile $STRATA_SFTP_KEY
    IdentitiesOnly yes
CONF
  run=json-names-$$-$RANDOM
  mkdir -p "$STRATA_SFTP_ROOT/upload/$run"
  base=sftp://strata-test/upload/$run/names
  make_files "$work/up"
  expect 0 "sftp: cp -r up" -- "$STRATA" --accept-new-host-key cp -r "$work/up" "$base"
  round_trip sftp "$base" "$STRATA_SFTP_ROOT/upload/$run/names"
  rm -rf "${STRATA_SFTP_ROOT:?}/upload/$run"
else
  fail "no STRATA_SFTP_ENVFILE: run through CTest (fixture sshd)"
fi
finish
